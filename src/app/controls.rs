//! The left panel: parameters, run controls, A/B, and the inspector of a pinned facility.

use super::PdesApp;
use eframe::egui;

impl PdesApp {
    fn torus_model(&mut self, ui: &mut egui::Ui) -> bool {
        let mut changed = false;
        ui.label(crate::models::torus::INFO.description).on_hover_text(
            "rows × cols service facilities on a torus, each a server with a FIFO queue. After service a token moves to one of the four neighbours at random (Sang et al. 2019, Park & Fishwick 2009).",
        );
        egui::Grid::new("model").num_columns(2).show(ui, |ui| {
            let lbl = ui.label("rows × cols").on_hover_text("Size of the torus. Up to 16384 each; large sizes want the GPU engine.");
            ui.horizontal(|ui| {
                changed |= ui.add(egui::DragValue::new(&mut self.form.rows).range(0..=16384)).labelled_by(lbl.id).changed();
                ui.label("×");
                changed |= ui.add(egui::DragValue::new(&mut self.form.cols).range(0..=16384)).labelled_by(lbl.id).changed();
            });
            ui.end_row();
            let lbl = ui.label("tokens / facility").on_hover_text("Tokens that start at every facility (P). The network is closed: their number never changes.");
            changed |= ui.add(egui::DragValue::new(&mut self.form.tokens_per_facility).range(0..=1024)).labelled_by(lbl.id).changed();
            ui.end_row();
            let lbl = ui.label("mean service M").on_hover_text("Mean service time of a visit.");
            changed |= ui.add(egui::DragValue::new(&mut self.form.mean_service).speed(0.1).range(0.0..=4095.0)).labelled_by(lbl.id).changed();
            ui.end_row();
            ui.label("service").on_hover_text("Exponential with mean M, or shifted: d + Exp(M − d). Shifted keeps the mean but never serves faster than d — the lookahead that makes the window algorithm exact.");
            ui.horizontal(|ui| {
                changed |= ui.selectable_value(&mut self.form.shifted, false, "exponential").changed();
                changed |= ui.selectable_value(&mut self.form.shifted, true, "shifted").changed();
            });
            ui.end_row();
        });
        changed
    }

    fn diffusion_model(&mut self, ui: &mut egui::Ui) -> bool {
        let mut changed = false;
        ui.label(crate::models::diffusion::INFO.description).on_hover_text(
            "dQ/dt = αx ∂²Q/∂x² + αy ∂²Q/∂y² + β on rows × cols cells, the edges held at the boundary temperature, the interior starting at the initial one (Perumalla 2006 §3.1).",
        );
        egui::Grid::new("dmodel").num_columns(2).show(ui, |ui| {
            let lbl = ui.label("rows × cols").on_hover_text(
                "Cells of the grid. Up to 16384 each; large grids want the GPU engine.",
            );
            ui.horizontal(|ui| {
                changed |= ui
                    .add(egui::DragValue::new(&mut self.form.rows).range(0..=16384))
                    .labelled_by(lbl.id)
                    .changed();
                ui.label("×");
                changed |= ui
                    .add(egui::DragValue::new(&mut self.form.cols).range(0..=16384))
                    .labelled_by(lbl.id)
                    .changed();
            });
            ui.end_row();
            for (label, help, value, speed) in [
                (
                    "αx",
                    "Diffusivity along the rows (x).",
                    &mut self.form.alpha_x,
                    0.01,
                ),
                (
                    "αy",
                    "Diffusivity along the columns (y).",
                    &mut self.form.alpha_y,
                    0.01,
                ),
                (
                    "β",
                    "Uniform heating rate (negative cools).",
                    &mut self.form.beta,
                    0.01,
                ),
                (
                    "boundary",
                    "Temperature held around the grid.",
                    &mut self.form.boundary,
                    1.0,
                ),
                (
                    "initial",
                    "Temperature every cell starts at.",
                    &mut self.form.initial,
                    1.0,
                ),
                (
                    "dx",
                    "Cell width (the same along x and y).",
                    &mut self.form.dx,
                    0.01,
                ),
            ] {
                let lbl = ui.label(label).on_hover_text(help);
                changed |= ui
                    .add(egui::DragValue::new(value).speed(speed))
                    .labelled_by(lbl.id)
                    .changed();
                ui.end_row();
            }
        });
        changed
    }

    /// dt and quantum rows of the run grid.
    fn diffusion_run(&mut self, ui: &mut egui::Ui) -> bool {
        let mut changed = false;
        let bound = self.form.dx * self.form.dx / (2.0 * (self.form.alpha_x + self.form.alpha_y));
        ui.label("dt").on_hover_text(format!("Timestepped's fixed step. Stable only up to dx²/(2(αx+αy)) = {bound:.4}; smaller is more accurate and slower. Hybrid never steps past that bound either."));
        changed |= ui
            .add(
                egui::Slider::new(&mut self.form.dt, 1e-4..=1.0)
                    .logarithmic(true)
                    .text("dt (log)"),
            )
            .changed();
        ui.end_row();
        ui.label("quantum").on_hover_text("Event and hybrid: how far a cell may move before it must be updated. Smaller is more accurate and takes more events (event) or shorter steps (hybrid); the error shrinks in proportion.");
        changed |= ui
            .add(
                egui::Slider::new(&mut self.form.quantum, 1e-3..=10.0)
                    .logarithmic(true)
                    .text("Δ (log)"),
            )
            .changed();
        ui.end_row();
        changed
    }

    pub(super) fn controls(&mut self, ui: &mut egui::Ui) {
        let mut changed = false;
        ui.heading("Model");
        ui.horizontal(|ui| {
            let current = self.form.kind();
            for m in crate::models::MODELS {
                // each model opens on its teaching preset
                if ui
                    .selectable_label(m.kind == current, m.label)
                    .on_hover_text(m.about)
                    .clicked()
                    && m.kind != current
                {
                    self.load_preset(m.teaching_preset);
                }
            }
        });
        if self.form.diffusion {
            changed |= self.diffusion_model(ui);
        } else {
            changed |= self.torus_model(ui);
        }
        ui.separator();
        ui.heading("Algorithm");
        for a in super::form::choices(self.form.diffusion) {
            changed |= ui
                .radio_value(&mut self.form.algorithm, a, a.label)
                .on_hover_text(a.help)
                .changed();
        }
        egui::Grid::new("run").num_columns(2).show(ui, |ui| {
            if self.form.diffusion {
                changed |= self.diffusion_run(ui);
            } else {
                let d_label = ui.label("d").on_hover_text("The interval. Window: events in [t_min, t_min + d) run together. Interval: events up to the next multiple of d. Larger d = more parallel events per step (faster) but, for the interval algorithms, more bias or more causality errors.");
                ui.horizontal(|ui| {
                    // the slider's own number box would clamp a typed -1 or 0 and ignore "abc"
                    // silently; a typed value goes through the preset's validation instead,
                    // which refuses it with the reason
                    let slider = ui.add(egui::Slider::new(&mut self.form.d, 0.001..=100.0).logarithmic(true).show_value(false).text("d (log)"));
                    if slider.changed() {
                        changed = true;
                        self.d_text = format!("{}", self.form.d);
                    }
                    let typed = ui.add(egui::TextEdit::singleline(&mut self.d_text).desired_width(50.0)).labelled_by(d_label.id).on_hover_text("d, typed: press Enter to apply");
                    if typed.lost_focus() && self.d_text.trim() != format!("{}", self.form.d) {
                        match self.d_text.trim().parse::<f64>() {
                            Ok(v) if v.is_finite() => {
                                self.form.d = v;
                                changed = true;
                            }
                            _ => {
                                self.form_error = Some(format!(
                                    "run.d: \"{}\" is not a number (expected a number ≥ 2^-20; 0 only for sequential)",
                                    self.d_text.trim()
                                ));
                            }
                        }
                    } else if !typed.has_focus() && self.form_error.is_none() {
                        self.d_text = format!("{}", self.form.d);
                    }
                });
                ui.end_row();
            }
            ui.label("engine").on_hover_text("Where the simulation runs. The GPU engines run on the same device that draws this window; sequential (torus) and event (diffusion) always run on the CPU.");
            ui.horizontal(|ui| {
                changed |= ui.selectable_value(&mut self.form.gpu, false, "CPU").changed();
                let gpu_ok = self.gpu_engines_available();
                changed |= ui.add_enabled(gpu_ok, egui::Button::selectable(self.form.gpu, "GPU")).clicked() && {
                    self.form.gpu = true;
                    true
                };
            });
            ui.end_row();
            if !self.form.diffusion {
                let lbl = ui.label("seed").on_hover_text("Every service time and route is a pure function of (seed, token, visit): the same seed gives the same sample path in every exact algorithm, on the CPU and on the GPU.");
                changed |= ui.add(egui::DragValue::new(&mut self.form.seed)).labelled_by(lbl.id).changed();
                ui.end_row();
            }
            let lbl = ui.label("end time").on_hover_text("Simulated time at which the run stops.");
            changed |= ui.add(egui::DragValue::new(&mut self.form.end_time).speed(10.0).range(0.0..=1e12)).labelled_by(lbl.id).changed();
            ui.end_row();
        });
        if changed {
            self.apply_form();
        }
        if let Some(e) = &self.form_error {
            ui.colored_label(egui::Color32::from_rgb(240, 90, 80), e.as_str());
            ui.label("(the running simulation keeps its last valid parameters)");
        }
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
        ui.add(
            egui::Slider::new(&mut self.sim_rate, 0.1..=100_000.0)
                .logarithmic(true)
                .text("sim time / s"),
        )
        .on_hover_text("Simulated time advanced per second of wall-clock time.");
        ui.separator();
        ui.heading("A/B");
        let mut ab = self.b.is_some();
        if ui.checkbox(&mut ab, "compare with a second algorithm").on_hover_text("Runs the same parameters and seed with a second algorithm side by side; the plots overlay both.").changed() {
            self.set_ab(ab);
        }
        if self.b.is_some() {
            let before = self.b_algorithm;
            for a in super::form::choices(self.form.diffusion) {
                ui.radio_value(&mut self.b_algorithm, a, format!("B: {}", a.label));
            }
            if before != self.b_algorithm {
                self.set_ab(true);
            }
        }
        if let Some(f) = self.pinned {
            ui.separator();
            self.inspector(ui, f);
        }
    }

    fn inspector(&mut self, ui: &mut egui::Ui, f: u32) {
        let (rows, cols) = self.a.shape();
        if u64::from(f) >= u64::from(rows) * u64::from(cols) {
            // the shape changed under the pin (any path that rebuilds a session)
            self.pinned = None;
            return;
        }
        (self.a.config.model_info().panel.inspector)(ui, &self.a, f);
        if ui.button("unpin").clicked() {
            self.pinned = None;
        }
    }
}
