//! The left panel: parameters, run controls, A/B, and the inspector of a pinned facility.

use super::PdesApp;
use eframe::egui;

impl PdesApp {
    pub(super) fn controls(&mut self, ui: &mut egui::Ui) {
        if self.parameter_controls(ui) {
            self.apply_form();
        }
        if let Some(e) = &self.form_error {
            ui.colored_label(egui::Color32::from_rgb(240, 90, 80), e.as_str());
            ui.label("(the running simulation keeps its last valid parameters)");
        } else if let Some(w) = self.a.config.warning() {
            ui.colored_label(egui::Color32::from_rgb(240, 180, 80), w);
        }
        self.run_controls(ui);
        self.ab_controls(ui);
        self.violations_ui(ui);
        if let Some(f) = self.pinned() {
            ui.separator();
            self.inspector(ui, f);
        }
    }

    /// The model's choice and its parameters, the algorithm, the engine, the end time.
    /// Returns whether any changed.
    fn parameter_controls(&mut self, ui: &mut egui::Ui) -> bool {
        let mut changed = false;
        // one line for eight models (their buttons took five rows of a laptop's panel and
        // pushed the inspector below the fold); each option says what the model is
        let current = self.form.kind();
        let current_label = pdes_models::by_kind(current).map_or(current, |m| m.label);
        let mut picked = None;
        ui.horizontal(|ui| {
            ui.heading("Model");
            egui::ComboBox::from_id_salt("model picker")
                .selected_text(current_label)
                .show_ui(ui, |ui| {
                    for m in pdes_models::MODELS {
                        // each model opens on its teaching preset
                        if ui
                            .selectable_label(m.kind == current, m.label)
                            .on_hover_text(m.about)
                            .clicked()
                            && m.kind != current
                        {
                            picked = Some((m.kind, m.teaching_preset));
                        }
                    }
                })
                .response
                .on_hover_text(
                    "The model: each opens on its teaching preset (Presets has the others).",
                );
        });
        if let Some((kind, preset)) = picked {
            self.switch_model(kind, preset);
        }
        changed |= self.form.model.model_controls(ui);
        ui.separator();
        ui.heading("Algorithm");
        for a in super::form::choices(self.form.kind()) {
            changed |= ui
                .radio_value(&mut self.form.algorithm, a, a.label)
                .on_hover_text(a.help)
                .changed();
        }
        egui::Grid::new("run").num_columns(2).show(ui, |ui| {
            changed |= self.form.model.run_controls(ui, &mut self.form_error);
            let cpu_only: Vec<&str> = pdes_models::MODELS
                .iter()
                .flat_map(|m| m.listed().filter(|a| !a.gpu).map(|a| a.name))
                .collect();
            ui.label("engine").on_hover_text(format!(
                "Where the simulation runs. The GPU engines run on the same device that draws this window; {} (one event at a time) always run on the CPU.",
                cpu_only.join(" and ")
            ));
            ui.horizontal(|ui| {
                changed |= ui.selectable_value(&mut self.form.gpu, false, "CPU").changed();
                let gpu_ok = self.gpu_engines_available();
                changed |= ui.add_enabled(gpu_ok, egui::Button::selectable(self.form.gpu, "GPU")).clicked() && {
                    self.form.gpu = true;
                    true
                };
            });
            ui.end_row();
            changed |= self.form.model.run_controls_after(ui);
            let lbl = ui.label("end time").on_hover_text("Simulated time at which the run stops.");
            changed |= ui.add(egui::DragValue::new(&mut self.form.end_time).speed(10.0)).labelled_by(lbl.id).changed();
            ui.end_row();
        });
        changed
    }

    /// Run, pause, step, reset, and the simulation speed.
    fn run_controls(&mut self, ui: &mut egui::Ui) {
        ui.separator();
        ui.heading("Run");
        ui.horizontal(|ui| {
            let label = if self.running { "Pause" } else { "Run" };
            if ui.button(label).on_hover_text("Space").clicked() {
                self.running = !self.running;
            }
            if ui
                .button("Step")
                .on_hover_text("→ : one window (one step; one event for sequential)")
                .clicked()
            {
                self.step_once();
            }
            if ui.button("Reset").on_hover_text("R").clicked() {
                self.reset();
            }
        });
        let before = self.sim_rate;
        ui.add(
            egui::Slider::new(&mut self.sim_rate, 0.1..=100_000.0)
                .logarithmic(true)
                .clamping(egui::SliderClamping::Never)
                .text("sim time / s"),
        )
        .on_hover_text("Simulated time advanced per second of wall-clock time: a number above 0 (the slider spans 0.1 to 100,000; a larger one may be typed).");
        // a typed rate is taken as typed, or refused with the reason — never clamped
        if !(self.sim_rate > 0.0 && self.sim_rate.is_finite()) {
            self.message = Some(format!(
                "sim time / s must be a number above 0; got {}",
                self.sim_rate
            ));
            self.sim_rate = before;
        }
    }

    /// The A/B comparison: a second algorithm (and its own overrides) beside the first.
    fn ab_controls(&mut self, ui: &mut egui::Ui) {
        ui.separator();
        ui.heading("A/B");
        let mut ab = self.b.is_some();
        if ui.checkbox(&mut ab, "compare with a second algorithm").on_hover_text("Runs the same parameters and seed with a second algorithm side by side; the plots overlay both.").changed() {
            self.set_ab(ab);
        }
        if self.b.is_some() {
            let before = self.b_algorithm;
            for a in super::form::choices(self.form.kind()) {
                ui.radio_value(&mut self.b_algorithm, a, format!("B: {}", a.label));
            }
            if before != self.b_algorithm {
                self.set_ab(true);
            }
            ui.horizontal(|ui| {
                ui.label("B only:");
                let r = ui
                    .add(
                        egui::TextEdit::singleline(&mut self.b_sets)
                            .hint_text("model.service=exponential")
                            .desired_width(170.0),
                    )
                    .on_hover_text("The B side's own key=value overrides, comma-separated: e.g. its own service distribution. Enter applies them.");
                if r.lost_focus() {
                    self.set_ab(true);
                }
            });
            if self.a.config.model_info().has_key("model.service")
                && ui
                    .small_button("paper 000's comparison")
                    .on_hover_text("B: sequential with exponential service — the model the window algorithm's shifted service departs from (Figs. 14–15). A stays as it is.")
                    .clicked()
            {
                if let Some(seq) = super::form::choices(self.form.kind())
                    .into_iter()
                    .find(|a| a.name == "sequential")
                {
                    self.b_algorithm = seq;
                }
                self.b_sets = "model.service=exponential".into();
                self.set_ab(true);
            }
        }
    }

    fn inspector(&mut self, ui: &mut egui::Ui, f: u32) {
        let (rows, cols) = self.a.shape();
        if u64::from(f) >= u64::from(rows) * u64::from(cols) {
            // the shape changed under the pin (any path that rebuilds a session)
            self.pinned = None;
            return;
        }
        (self.a.panel.inspector)(ui, &self.a, f);
        self.follow_controls(ui, f);
        if ui.button("unpin").clicked() {
            self.pinned = None;
        }
    }
}
