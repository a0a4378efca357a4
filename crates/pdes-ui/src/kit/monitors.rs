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
        }
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

    /// The value as the monitor shows it: the number, or a dash during the warm-up.
    pub fn shown(&self) -> String {
        match self.warming_up_to {
            Some(_) => "—".to_string(),
            None => format(self.value),
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
    ui.horizontal_wrapped(|ui| {
        if !prefix.is_empty() {
            ui.strong(prefix);
        }
        for m in monitors {
            egui::Frame::group(ui.style())
                .inner_margin(egui::Margin::symmetric(6, 2))
                .show(ui, |ui| {
                    ui.vertical(|ui| {
                        ui.small(m.label);
                        ui.horizontal(|ui| {
                            ui.monospace(egui::RichText::new(m.shown()).strong());
                            if let Some(end) = m.warming_up_to {
                                ui.small(format!("warm-up to t = {}", format(end)));
                            } else if let Some((what, v)) = m.exact {
                                ui.small(format!("{what} {}", format(v)));
                            }
                        });
                    });
                })
                .response
                .on_hover_text(m.help.as_ref());
        }
    });
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
