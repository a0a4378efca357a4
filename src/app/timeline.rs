//! The timeline strip: the current window (or interval) over the pending event times.

use super::session::Session;
use crate::preset;
use crate::sim::StepRecord;
use crate::time::to_units;
use eframe::egui;

/// The current window over the pending events: where the next step's bound falls.
pub(super) fn timeline(ui: &mut egui::Ui, s: &Session) {
    let Some(cfg) = s.torus() else { return };
    let log: &[StepRecord] = s.engine().step_log();
    let d = cfg.run.d;
    let t = to_units(s.now());
    let (rect, _) =
        ui.allocate_exact_size(egui::vec2(ui.available_width(), 34.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, egui::Color32::from_gray(30));
    let span = (8.0 * d).max(1e-3);
    let x_of = |u: f64| rect.left() + ((u - t + span * 0.1) / span) as f32 * rect.width();
    // pending departures (CPU engines: all of them; the GPU engine keeps them on the GPU)
    if let Some(c) = s
        .engine
        .as_any()
        .downcast_ref::<crate::models::torus::cpu::CpuEngine>()
    {
        for f in c.cpu.state().facilities.iter().take(200_000) {
            if f.departure != crate::models::torus::state::NEVER {
                let x = x_of(to_units(f.departure));
                if x >= rect.left() && x <= rect.right() {
                    painter.vline(
                        x,
                        rect.y_range().shrink(8.0),
                        egui::Stroke::new(
                            1.0,
                            egui::Color32::from_rgba_unmultiplied(120, 200, 255, 90),
                        ),
                    );
                }
            }
        }
    }
    let (lo, hi, label) = match cfg.run.algorithm {
        preset::Algorithm::Window => (t, t + d, "window [t_min, t_min + d)"),
        preset::Algorithm::Interval => (
            t,
            (t / d).ceil() * d,
            "interval: up to the next multiple of d",
        ),
        preset::Algorithm::Sequential => (t, t, "sequential: one event at a time"),
    };
    let band = egui::Rect::from_x_y_ranges(x_of(lo)..=x_of(hi).max(x_of(lo) + 2.0), rect.y_range());
    painter.rect_filled(
        band,
        0.0,
        egui::Color32::from_rgba_unmultiplied(255, 200, 60, 60),
    );
    painter.vline(
        x_of(t),
        rect.y_range(),
        egui::Stroke::new(2.0, egui::Color32::from_rgb(255, 200, 60)),
    );
    let last = log.last().map_or(0, |r| r.events);
    painter.text(
        rect.left_top() + egui::vec2(6.0, 2.0),
        egui::Align2::LEFT_TOP,
        format!("t_min = {t:.3}   {label}   last step: {last} events"),
        egui::FontId::proportional(12.0),
        egui::Color32::LIGHT_GRAY,
    );
}
