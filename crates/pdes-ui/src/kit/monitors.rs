//! Numeric monitors (NetLogo's word): a row of the current values of a model's main
//! quantities above the heatmap, each with its exact value where one is known. Which
//! quantities is the model's panel's (`Panel::monitors`); the values come from the
//! session's latest plot sample and step log, so they are the engine's own numbers.

use super::session::Session;
use eframe::egui;

/// One monitor.
#[derive(Clone, Debug, PartialEq)]
pub struct Monitor {
    /// What it shows.
    pub label: &'static str,
    /// Its current value.
    pub value: f64,
    /// The exact value it should be compared with, if there is one, and what that is.
    pub exact: Option<(&'static str, f64)>,
    /// Hover text: what it counts.
    pub help: std::borrow::Cow<'static, str>,
    /// While the statistic has no value yet (its warm-up runs to this time), the monitor
    /// says so instead of showing a 0 that was never measured.
    pub warming_up_to: Option<f64>,
    /// Half-width of the value's 95% confidence interval ([`batch_means`]), once the run
    /// is long enough to have one: what tells a real gap to the exact value from noise.
    pub interval: Option<f64>,
}

impl Monitor {
    /// A monitor without an exact value.
    pub fn new(
        label: &'static str,
        value: f64,
        help: impl Into<std::borrow::Cow<'static, str>>,
    ) -> Self {
        Self {
            label,
            value,
            exact: None,
            help: help.into(),
            warming_up_to: None,
            interval: None,
        }
    }

    /// The same with a 95% confidence interval's half-width.
    pub fn within(mut self, half_width: Option<f64>) -> Self {
        self.interval = half_width;
        self
    }

    /// Whether the exact value lies inside the interval (None without either).
    pub fn exact_inside(&self) -> Option<bool> {
        let ((_, exact), h) = (self.exact?, self.interval?);
        Some((self.value - exact).abs() <= h)
    }

    /// The same with an exact value (`what` names it: "exact", "Jackson", …).
    pub fn exact(mut self, what: &'static str, v: f64) -> Self {
        self.exact = Some((what, v));
        self
    }

    /// The same, not measured yet: its warm-up runs to time `end` (the run is before it).
    pub fn warming_up(mut self, end: f64) -> Self {
        self.warming_up_to = Some(end);
        self
    }

    /// The value as the monitor shows it: the number (± its interval's half-width), or a
    /// dash during the warm-up.
    pub fn shown(&self) -> String {
        match (self.warming_up_to, self.interval) {
            (Some(_), _) => "—".to_string(),
            (None, Some(h)) => format!("{} ± {}", format(self.value), format_interval(h)),
            (None, None) => format(self.value),
        }
    }
}

/// A number as a monitor shows it: integers whole, others to four significant digits.
pub fn format(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else if v != 0.0 && (v.abs() >= 1e5 || v.abs() < 1e-3) {
        format!("{v:.3e}")
    } else {
        format!("{:.4}", v)
    }
}

/// A half-width to two significant digits (an interval is not known better than that).
fn format_interval(h: f64) -> String {
    if h <= 0.0 || !h.is_finite() {
        return format(h);
    }
    let digits = (1 - h.log10().floor() as i32).max(0) as usize;
    format!("{h:.digits$}")
}

/// Spans a run's statistics are cut into for [`batch_means`].
pub const BATCHES: usize = 10;

/// The 95% confidence half-width of a running mean, by batch means: the time from `from`
/// (the warm-up's end) to the latest sample is cut into [`BATCHES`] equal spans; each
/// span's own mean comes from the running means at its ends, `value` weighted by
/// `weight` (the mean's denominator: time covered, services completed); Student's t over
/// the spans. Spans of at least `min_span` (a few mean service times: longer than the
/// state's memory) are nearly independent, which is what lets the interval tell a shift
/// of the mean from noise; shorter ones would be correlated and the start's transient
/// would pass for a gap. None until the spans are that long and each holds a sample and
/// some weight.
pub fn batch_means(
    samples: &[pdes_gpu::Sample],
    from: f64,
    min_span: f64,
    value: impl Fn(&pdes_gpu::Sample) -> f64,
    weight: impl Fn(&pdes_gpu::Sample) -> f64,
) -> Option<f64> {
    let last = samples.last()?;
    let span = (last.time - from) / BATCHES as f64;
    if span <= 0.0 || span < min_span {
        return None;
    }
    // the running mean's numerator and denominator at the last sample at or before t
    let at = |t: f64| -> (f64, f64) {
        let i = samples.partition_point(|x| x.time <= t + 1e-9 * span);
        match i.checked_sub(1).map(|i| &samples[i]) {
            Some(x) if x.time > from => (value(x) * weight(x), weight(x)),
            _ => (0.0, 0.0),
        }
    };
    let mut means = Vec::with_capacity(BATCHES);
    let mut before = (0.0, 0.0);
    for j in 1..=BATCHES {
        let now = at(from + span * j as f64);
        let w = now.1 - before.1;
        if w <= 0.0 {
            return None;
        }
        means.push((now.0 - before.0) / w);
        before = now;
    }
    pdes_core::stats::estimate(&means).ci95
}

/// The latest plot sample of a session (a default one before the first).
pub fn latest(s: &Session) -> pdes_gpu::Sample {
    s.samples.last().copied().unwrap_or_default()
}

/// The events of a session's last step: 0 before the first; for a simulator that logs no steps
/// the mean per step (a sequential run: 1, each step being one event).
pub fn last_step_events(s: &Session) -> f64 {
    let engine = s.engine();
    match engine.step_log().last() {
        Some(r) => r.events as f64,
        // a sequential simulator logs no steps: each of its steps is one event (it showed 0)
        None => {
            let t = engine.totals();
            if t.steps > 0 {
                t.events as f64 / t.steps as f64
            } else {
                0.0
            }
        }
    }
}

/// Draws the monitors of session `s` (prefixed "A"/"B" in A/B mode) as one row of boxes.
pub fn row(ui: &mut egui::Ui, s: &Session, prefix: &str) {
    let monitors = (s.panel.monitors)(s);
    // rows of as many monitors as fit, each at its own width: the rows wrap between
    // monitors, never inside one (egui's wrapping layout let a framed group run past the
    // window's edge, or squeezed "causality errors" to one letter a line)
    let room = ui.available_width();
    let mut rows: Vec<Vec<&Monitor>> = vec![Vec::new()];
    let mut used = 0.0;
    for m in &monitors {
        let w = box_width(ui, m);
        if used + w > room
            && let Some(last) = rows.last()
            && !last.is_empty()
        {
            rows.push(Vec::new());
            used = 0.0;
        }
        used += w;
        if let Some(last) = rows.last_mut() {
            last.push(m);
        }
    }
    for (r, row) in rows.iter().enumerate() {
        ui.horizontal(|ui| {
            if r == 0 && !prefix.is_empty() {
                ui.strong(prefix);
            }
            for m in row {
                monitor_box(ui, m);
            }
        });
    }
}

/// What a monitor's box says: its label, its value, the note beside the value (the exact
/// value, or the warm-up's end) and the line under it (whether the exact value is inside
/// the interval).
fn texts(m: &Monitor) -> (String, String, Option<String>, Option<&'static str>) {
    let note = match (m.warming_up_to, m.exact) {
        (Some(end), _) => Some(format!("warm-up to t = {}", format(end))),
        (None, Some((what, v))) => Some(format!("{what} {}", format(v))),
        (None, None) => None,
    };
    let verdict = match (m.warming_up_to, m.exact_inside()) {
        (None, Some(true)) => Some("inside the interval: no gap shown yet"),
        (None, Some(false)) => Some("outside the interval: a real gap"),
        _ => None,
    };
    (m.label.to_string(), m.shown(), note, verdict)
}

/// The width `m`'s box takes: its widest line, its margins and the gap to the next box.
fn box_width(ui: &egui::Ui, m: &Monitor) -> f32 {
    let (label, value, note, verdict) = texts(m);
    let measure = |text: String, style: egui::TextStyle| -> f32 {
        let font = style.resolve(ui.style());
        ui.ctx()
            .fonts_mut(|f| f.layout_no_wrap(text, font, egui::Color32::WHITE).size().x)
    };
    let gap = ui.spacing().item_spacing.x;
    let value_line = measure(value, egui::TextStyle::Monospace)
        + note.map_or(0.0, |n| gap + measure(n, egui::TextStyle::Body));
    let widest = measure(label, egui::TextStyle::Small)
        .max(value_line)
        .max(verdict.map_or(0.0, |v| measure(v.to_string(), egui::TextStyle::Body)));
    widest + 2.0 * 6.0 + 2.0 + gap
}

/// Draws one monitor's box.
fn monitor_box(ui: &mut egui::Ui, m: &Monitor) {
    let (label, value, note, verdict) = texts(m);
    egui::Frame::group(ui.style())
        .inner_margin(egui::Margin::symmetric(6, 2))
        .show(ui, |ui| {
            ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Extend);
            ui.vertical(|ui| {
                ui.small(label);
                ui.horizontal(|ui| {
                    ui.monospace(egui::RichText::new(value).strong());
                    if let Some(n) = note {
                        ui.label(n);
                    }
                });
                if let Some(v) = verdict {
                    ui.label(v);
                }
            });
        })
        .response
        .on_hover_text(m.help.as_ref());
}

/// One line comparing A and B: their events and times while they run, and once both
/// stand at the same time, whether their events and statistics are identical (the window
/// algorithm with shifted service against sequential: the same sample path).
pub fn ab_line(ui: &mut egui::Ui, a: &Session, b: &Session) {
    let (ea, eb) = (a.engine().totals().events, b.engine().totals().events);
    let (xa, xb) = (latest(a), latest(b));
    let same_time = a.now() == b.now() && xa.time == xb.time;
    let text = if same_time && ea > 0 {
        let same = ea == eb
            && xa.utilization == xb.utilization
            && xa.sojourn == xb.sojourn
            && xa.causality_errors == xb.causality_errors;
        if same {
            format!(
                "A and B at t = {}: the same {ea} events and the same statistics, bit for bit — one sample path",
                format(xa.time)
            )
        } else {
            format!(
                "A and B at t = {}: {ea} and {eb} events; utilization {} and {} — different sample paths",
                format(xa.time),
                format(xa.utilization),
                format(xb.utilization)
            )
        }
    } else {
        format!(
            "A: {ea} events by t = {}   B: {eb} events by t = {}   (compared when both stand at the same time; at the end at the latest)",
            format(pdes_core::time::to_units(a.now())),
            format(pdes_core::time::to_units(b.now()))
        )
    };
    ui.small(text);
}

#[cfg(test)]
mod tests {
    use super::{BATCHES, Monitor, batch_means};
    use pdes_gpu::Sample;

    /// Samples of a running mean whose spans (of time 10 each from t = 100, five samples a
    /// span) have the means `spans`, weighted by time.
    fn running(spans: &[f64]) -> Vec<Sample> {
        let mut samples = vec![Sample {
            time: 50.0,
            ..Sample::default()
        }];
        let mut area = 0.0;
        for (j, m) in spans.iter().enumerate() {
            for k in 1..=5 {
                let t = 100.0 + 10.0 * j as f64 + 2.0 * k as f64;
                let covered = t - 100.0;
                let part = area + m * 2.0 * k as f64;
                samples.push(Sample {
                    time: t,
                    utilization: part / covered,
                    ..Sample::default()
                });
            }
            area += m * 10.0;
        }
        samples
    }

    #[test]
    fn the_interval_is_students_t_over_the_spans_means() {
        let spans = [0.4, 0.6, 0.5, 0.45, 0.55, 0.52, 0.48, 0.5, 0.47, 0.53];
        assert_eq!(spans.len(), BATCHES);
        let h = batch_means(
            &running(&spans),
            100.0,
            10.0,
            |x| x.utilization,
            |x| x.time - 100.0,
        );
        let expected = pdes_core::stats::estimate(&spans).ci95;
        let (h, expected) = (h.unwrap(), expected.unwrap());
        assert!((h - expected).abs() < 1e-12, "{h} against {expected}");
        // a constant mean has no spread
        let flat = batch_means(
            &running(&[0.5; 10]),
            100.0,
            10.0,
            |x| x.utilization,
            |x| x.time - 100.0,
        );
        assert!(flat.unwrap().abs() < 1e-12);
    }

    #[test]
    fn no_interval_until_every_span_has_a_sample() {
        let mut samples = running(&[0.5; 10]);
        // no sample from t = 125 to 145: the fourth span (130 to 140) has no weight of its own
        samples.retain(|x| !(125.0..=145.0).contains(&x.time));
        assert_eq!(
            batch_means(&samples, 100.0, 10.0, |x| x.utilization, |x| x.time - 100.0),
            None
        );
        assert_eq!(
            batch_means(&[], 100.0, 10.0, |x| x.utilization, |x| x.time),
            None
        );
        // spans shorter than asked: no interval (the run is too short to have one)
        let whole = running(&[0.5; 10]);
        assert_eq!(
            batch_means(&whole, 100.0, 10.5, |x| x.utilization, |x| x.time - 100.0),
            None
        );
    }

    #[test]
    fn the_monitor_says_whether_the_exact_value_is_inside() {
        let m = Monitor::new("utilization", 0.497, "").exact("exact", 0.5);
        assert_eq!(m.exact_inside(), None);
        assert_eq!(m.clone().within(Some(0.005)).exact_inside(), Some(true));
        assert_eq!(m.clone().within(Some(0.002)).exact_inside(), Some(false));
        assert_eq!(m.within(Some(0.0052)).shown(), "0.4970 ± 0.0052");
    }
}
