//! The time strip above a heatmap: where the run stands on a time axis, the band of what
//! the next step runs together ([t_min, bound]), and every pending event as a tick —
//! brighter inside the band. The torus and PHOLD draw their lessons with it.

use eframe::egui;

/// What one strip shows.
pub struct Strip<'a> {
    /// The current time (t_min), in simulated units.
    pub t: f64,
    /// The axis' width in simulated time (a fixed span, so that a wider band is seen as
    /// wider rather than the axis shrinking).
    pub span: f64,
    /// The next step's band, lower and upper end (equal for one event at a time).
    pub band: (f64, f64),
    /// Pending event times.
    pub pending: &'a [f64],
    /// The line across its top: the algorithm, t_min and the bound, the last step.
    pub header: String,
    /// The sentence under it: what the heatmap's outlines are, and why they may run together.
    pub caption: &'static str,
}

/// Draws `strip` across the available width (52 px high, a line more for each line its
/// header wraps to in a narrow window), its caption below.
pub fn show(ui: &mut egui::Ui, strip: &Strip) {
    let width = ui.available_width();
    // the header wraps rather than running past the strip's right edge (at 800 px the
    // torus's ended "ticks: pend…")
    let header = ui.painter().layout(
        strip.header.clone(),
        egui::FontId::proportional(12.0),
        egui::Color32::LIGHT_GRAY,
        (width - 12.0).max(1.0),
    );
    let rows = header.rows.len().max(1) as f32;
    let extra = header.size().y * (rows - 1.0) / rows;
    let (rect, _) = ui.allocate_exact_size(egui::vec2(width, 52.0 + extra), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, egui::Color32::from_gray(30));
    let t0 = strip.t - 0.1 * strip.span;
    let x_of = |u: f64| rect.left() + ((u - t0) / strip.span) as f32 * rect.width();
    let lane = egui::Rangef::new(rect.top() + 16.0 + extra, rect.bottom() - 16.0);
    let (lo, hi) = strip.band;
    let band = egui::Rect::from_x_y_ranges(x_of(lo)..=x_of(hi).max(x_of(lo) + 2.0), lane);
    painter.rect_filled(
        band,
        0.0,
        egui::Color32::from_rgba_unmultiplied(255, 200, 60, 60),
    );
    for u in strip.pending {
        let x = x_of(*u);
        if x >= rect.left() && x <= rect.right() {
            let inside = *u >= lo && *u <= hi;
            painter.vline(
                x,
                lane,
                egui::Stroke::new(
                    if inside { 2.0 } else { 1.0 },
                    if inside {
                        egui::Color32::from_rgb(255, 230, 120)
                    } else {
                        egui::Color32::from_rgba_unmultiplied(120, 200, 255, 110)
                    },
                ),
            );
        }
    }
    painter.vline(
        x_of(strip.t),
        lane,
        egui::Stroke::new(2.0, egui::Color32::from_rgb(255, 200, 60)),
    );
    time_axis(&painter, rect, t0, strip.span);
    painter.galley(
        rect.left_top() + egui::vec2(6.0, 1.0),
        header,
        egui::Color32::LIGHT_GRAY,
    );
    ui.label(egui::RichText::new(strip.caption).small());
}

/// A "nice" tick spacing (1, 2 or 5 × 10^k) for about `n` ticks over `span`.
fn tick_step(span: f64, n: f64) -> f64 {
    let raw = span / n;
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

/// The strip's time axis: a tick and a label every round step of `span`, from `t0`.
fn time_axis(painter: &egui::Painter, rect: egui::Rect, t0: f64, span: f64) {
    let x_of = |u: f64| rect.left() + ((u - t0) / span) as f32 * rect.width();
    let step = tick_step(span, 8.0);
    let mut u = (t0 / step).ceil() * step;
    let axis_y = rect.bottom() - 15.0;
    while u <= t0 + span {
        let x = x_of(u);
        painter.vline(
            x,
            egui::Rangef::new(axis_y, axis_y + 3.0),
            egui::Stroke::new(1.0, egui::Color32::GRAY),
        );
        painter.text(
            egui::pos2(x, axis_y + 2.0),
            egui::Align2::CENTER_TOP,
            crate::kit::monitors::format(u),
            egui::FontId::proportional(crate::kit::SMALL_TEXT_PX),
            egui::Color32::GRAY,
        );
        u += step;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ticks_fall_on_round_steps() {
        assert_eq!(super::tick_step(10.0, 8.0), 2.0);
        assert_eq!(super::tick_step(0.6, 8.0), 0.1);
        assert_eq!(super::tick_step(300.0, 8.0), 50.0);
    }
}
