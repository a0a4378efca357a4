//! Causality errors made visible (paper 000 Fig. 4): the list of recent violations under the
//! controls, each naming the late token, the neighbour it came from and both timestamps;
//! selecting one pauses, pins the facility, centres the heatmap on it and draws the
//! arrival as an arrow from its source. "Pause on the first causality error" stops the run
//! at the step that makes one. The walkthrough sets up such a run on a small grid.

use super::PdesApp;
use eframe::egui;

pub use crate::kit::violation::Violation;

/// Most violations the list shows (the newest).
const SHOWN: usize = 40;

/// Most single steps a frame takes while the run pauses on the first causality error.
const MOST_STEPS_A_FRAME: usize = 2000;

/// The walkthrough's configuration: an 8×8 torus, two tokens per facility, exponential
/// service, interval with original timestamps and d = 4, seed 4 — its first causality
/// errors come at the 7th step, before t = 15 (`pdes-lab run` with these keys: 2 errors by
/// T = 15, none by T = 10).
pub const WALKTHROUGH: &[&str] = &[
    "model.rows=8",
    "model.cols=8",
    "model.tokens_per_facility=2",
    "model.mean_service=10",
    "model.service=\"exponential\"",
    "run.algorithm=\"interval\"",
    "run.timestamps=\"original\"",
    "run.d=4",
    "run.seed=4",
    "run.end_time=2000",
];

/// `text` with its first letter a capital (a name that opens a sentence).
fn capitalized(text: &str) -> String {
    let mut c = text.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

impl PdesApp {
    /// The violations of the A session (newest last).
    pub fn violations(&self) -> Vec<Violation> {
        (self.a.panel.violations)(&self.a)
    }

    /// Selects `v`: pauses, pins its facility, centres the heatmap on it, draws its arrow.
    pub fn select_violation(&mut self, v: Violation) {
        self.running = false;
        self.pin(v.facility);
        self.selected_violation = Some(v);
        let (rows, cols) = self.a.shape();
        if let Some(view) = self.views[0].as_mut() {
            // the view is now made for this grid, whatever it was made for before
            view.shape = (rows, cols);
            let (r, c) = (
                (v.facility / cols) as f32 + 0.5,
                (v.facility % cols) as f32 + 0.5,
            );
            let aspect = view.size[0] / view.size[1].max(1.0);
            // close enough that the arrow between two cells is plain to see
            view.span = view.span.min(12.0);
            view.x0 = c - view.span / 2.0;
            view.y0 = r - view.span / aspect / 2.0;
            view.fitted = false;
        }
    }

    /// Advances A (and B) one step at a time towards `target` until a step makes a
    /// causality error beyond `errors_before` (steps with errors) or the run ends; at most
    /// [`MOST_STEPS_A_FRAME`] steps and about 30 ms, the rest on the next frames.
    pub(super) fn advance_to_an_error(
        &mut self,
        target: pdes_core::time::Ticks,
        errors_before: u64,
    ) {
        // at most ~30 ms of them: a large GPU run's single steps each wait for the device
        let started = web_time::Instant::now();
        for _ in 0..MOST_STEPS_A_FRAME {
            if started.elapsed().as_secs_f64() > 0.03 {
                return;
            }
            let before = self.a.now();
            if before >= target || !self.running || self.finished() {
                return;
            }
            self.advance(pdes_core::sim::Budget::Steps(1));
            if self.a.engine().totals().steps_with_errors > errors_before || self.a.now() == before
            {
                return;
            }
        }
    }

    /// After a frame's advance: with the toggle on, the first step that made a causality
    /// error stops the run and selects the error.
    pub(super) fn pause_on_error(&mut self, errors_before: u64) {
        if !self.pause_on_error {
            return;
        }
        let errors = self.a.engine().totals().steps_with_errors;
        if errors > errors_before {
            self.running = false;
            // the monitors and plots show the step that made the error
            self.sample_all();
            match self.violations().last().copied() {
                Some(v) => {
                    self.select_violation(v);
                    self.message = Some(format!(
                        "paused at the first causality error (step {}): see the list under the controls",
                        v.step
                    ));
                }
                None => {
                    self.message = Some(
                        "paused at a causality error (this engine keeps no list of them: the heatmap's causality-errors mode shows where)".into(),
                    );
                }
            }
        }
    }

    /// The walkthrough of a causality error: the small interval run, stopped at its first.
    pub fn causality_walkthrough(&mut self) {
        match pdes_models::preset::config_with("teaching-16x16", WALKTHROUGH) {
            Ok(cfg) => {
                self.form = super::form::Form::from_config(&cfg, crate::panels::of(&cfg));
                self.b = None;
                self.apply_form();
                self.mode = super::heatmap::Mode::Errors;
                self.pause_on_error = true;
                self.selected_violation = None;
                self.tab = super::Tab::Live;
                self.running = true;
                self.message = Some(
                    "walkthrough: interval / original runs until its first causality error".into(),
                );
            }
            Err(e) => self.message = Some(format!("walkthrough: {e}")),
        }
    }

    /// A/B on one seed with shifted service: window (A) beside sequential (B).
    pub fn same_sample_path(&mut self) {
        let (Some(window), Some(seq)) = (
            super::form::choices(self.form.kind())
                .into_iter()
                .find(|a| a.name == "window"),
            super::form::choices(self.form.kind())
                .into_iter()
                .find(|a| a.name == "sequential"),
        ) else {
            return;
        };
        if let Some(t) = self
            .form
            .model
            .as_any_mut()
            .downcast_mut::<crate::panels::torus::form::TorusForm>()
        {
            t.shifted = true;
        }
        self.form.algorithm = window;
        self.b_algorithm = seq;
        self.b_sets.clear();
        self.set_ab(true);
        self.tab = super::Tab::Live;
        self.running = true;
    }

    /// The toggle and the list, under the controls (models that list violations).
    pub(super) fn violations_ui(&mut self, ui: &mut egui::Ui) {
        if !self.a.config.model_info().has_key("run.timestamps") {
            return;
        }
        ui.separator();
        ui.checkbox(
            &mut self.pause_on_error,
            "pause on the first causality error",
        )
        .on_hover_text("Stop the run at the step that makes a causality error and select it.");
        let list = self.violations();
        let name = |i: u32| (self.a.panel.cell_name)(&self.a, i);
        if let Some(v) = self.selected_violation {
            ui.label(egui::RichText::new("the selected causality error").strong());
            let from = if v.source == v.facility {
                "from outside".to_string()
            } else {
                format!("from {}", name(v.source))
            };
            ui.label(format!(
                "Step {} ran all events up to its bound together. {} had already processed an arrival at t = {:.4}; then token {} {from} arrived with t = {:.4}, earlier. In sequential order the token would have come first — the arrow shows its way. The interval let both events run in the same step because the sender's event lay inside it although its token arrives before the other (paper 000 Fig. 4).",
                v.step,
                capitalized(&name(v.facility)),
                v.last_arrival,
                v.token,
                v.arrival
            ));
        }
        if list.is_empty() {
            return;
        }
        let rows: Vec<(Violation, String)> = list
            .iter()
            .rev()
            .take(SHOWN)
            .map(|v| {
                let text = format!(
                    "step {}: {} from {} token {}, t {:.3} < {:.3}",
                    v.step,
                    name(v.facility),
                    name(v.source),
                    v.token,
                    v.arrival,
                    v.last_arrival
                );
                (*v, text)
            })
            .collect();
        let selected_now = self.selected_violation;
        let mut picked = None;
        egui::CollapsingHeader::new(format!("recent causality errors ({})", list.len()))
            .default_open(true)
            .show(ui, |ui| {
                for (v, text) in rows {
                    let selected = selected_now == Some(v);
                    if ui
                        .selectable_label(selected, egui::RichText::new(text).small())
                        .clicked()
                    {
                        picked = Some(v);
                    }
                }
            });
        if let Some(v) = picked {
            self.select_violation(v);
        }
    }
}
