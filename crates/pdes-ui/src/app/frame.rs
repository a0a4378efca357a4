//! The app frame by frame (eframe's `App`): `logic` advances the sessions, samples them,
//! picks up the start-up check and the page's settings; `ui` lays out the panels.

use super::*;

impl eframe::App for PdesApp {
    // each part of a frame under `guarded`: a bug in it pauses the run and saves the work
    // (rescue.rs) instead of closing the window with the class's work in it
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.guarded(|app| app.frame_logic(ctx));
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        #[cfg(target_arch = "wasm32")]
        super::web::first_frame_drawn();
        if let Some(r) = &self.rescued {
            let text = egui::RichText::new(r.message()).color(ui.visuals().error_fg_color);
            egui::Panel::top("rescued").show(ui, |ui| ui.label(text));
        }
        self.guarded(|app| app.frame_ui(ui));
    }
}

impl PdesApp {
    /// A frame's logic: advances the sessions, samples them, picks up the check and files.
    fn frame_logic(&mut self, ctx: &egui::Context) {
        if std::mem::take(&mut self.fail_next_frame) {
            // the tests' stand-in for a bug (rescue.rs)
            panic!("a fault injected by a test");
        }
        self.take_plots_image(ctx);
        if self.sweep.poll() | self.fit.poll() {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
        if self.gpu_check.poll() {
            // the GPU does not reproduce its CPU twins: everything moves to the CPU
            self.form.gpu = false;
            self.apply_form();
            self.message = Some("GPU differs from CPU: switched to the CPU engines".into());
        }
        if self.gpu_check.running() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        let now = Instant::now();
        // a frame asks for at most 0.1 s of the speed's simulated time (a stall must not turn
        // into a leap), but rates are per real second: measured with the clamped interval, a
        // CPU run at 2.5 units/s of 20 asked looked fast enough to say nothing
        let elapsed = now.duration_since(self.last_frame).as_secs_f64();
        let dt = elapsed.min(0.1);
        self.last_frame = now;
        self.frame_ms = 0.9 * self.frame_ms + 0.1 * elapsed * 1000.0;
        if self.running && !self.finished() {
            // many steps a frame: "the last step's cells" would be one step of many
            self.just_ran.clear();
            // simulated time per frame, the same for A and B so they stay side by side
            let want = self.sim_rate * dt;
            let span = self.pace.span(want);
            let before = self.a.now();
            let target = before + to_ticks(span.max(1e-6));
            let work = Instant::now();
            let errors_before = self.a.engine().totals().steps_with_errors;
            match self.step_limit() {
                // a model whose steps flash the whole field: one step when its time has come
                Some(most) => {
                    let due = self
                        .last_limited_step
                        .is_none_or(|t| now.duration_since(t).as_secs_f64() >= 1.0 / most);
                    if due {
                        self.last_limited_step = Some(now);
                        self.advance(Budget::Steps(1));
                    }
                }
                // stopping at the first error: one step at a time, so that the run stops at
                // the step that made it (a frame's many steps ran past it: "paused at the
                // first causality error (step 10)" beside an error of step 3)
                None if self.pause_on_error => self.advance_to_an_error(target, errors_before),
                None => self.advance_sampling(target),
            }
            self.pause_on_error(errors_before);
            let took = work.elapsed().as_secs_f64();
            let advanced = to_units(self.a.now().saturating_sub(before));
            if self.step_limit().is_none() {
                self.pace.record(want, span, took, advanced, elapsed);
            }
            self.frame += 1;
            // a page's GPU engine is sampled every frame: its advance cannot be split at
            // the sampling interval (advance_sampling), so frames are its only samples
            if self.frame.is_multiple_of(SAMPLE_EVERY) || self.samples_by_frame() {
                self.sample_all();
            }
            let events = self.a.engine().totals().events;
            if elapsed > 0.0 {
                let rate = (events - self.last_events.min(events)) as f64 / elapsed;
                self.events_per_sec = 0.9 * self.events_per_sec + 0.1 * rate;
            }
            self.last_events = events;
            ctx.request_repaint();
        } else if self.running {
            self.running = false;
            self.sample_all();
            self.run_finished();
        } else if self.settle() {
            // a paused page's Step: its batch comes back on the next frames
            ctx.request_repaint();
        }
        if self.summary_due {
            self.take_summary_when_back();
            ctx.request_repaint();
        }
        // Keyboard: space run/pause, → one step, R reset (not while typing in a field).
        if !ctx.egui_wants_keyboard_input() {
            let (space, right, r) = ctx.input(|i| {
                (
                    i.key_pressed(egui::Key::Space),
                    i.key_pressed(egui::Key::ArrowRight),
                    i.key_pressed(egui::Key::R),
                )
            });
            if space {
                self.running = !self.running;
            }
            if right {
                self.step_once();
            }
            if r {
                self.reset();
            }
        }
        // the page keeps its settings in local storage (a reload without a link reopens
        // them), stored on the frame an input may have changed them
        #[cfg(target_arch = "wasm32")]
        if ctx.input(|i| !i.events.is_empty()) {
            self.store_settings_if_changed();
        }
        // A preset picked through Presets → Open…, or dropped on the window (outside the
        // Fit view, where a dropped file is data).
        if let Some(answer) = self.opening_preset.as_mut().and_then(|p| p.take()) {
            self.opening_preset = None;
            match answer {
                Some(picked) => self.load_picked(picked),
                None => {
                    self.message =
                        Some(crate::kit::files::Saved::Cancelled.message("nothing opened"))
                }
            }
        }
        if self.tab != Tab::Fit
            && let Some(pick) = crate::kit::files::dropped(ctx)
        {
            self.opening_preset = Some(pick);
        }
    }

    /// A frame's layout: the menu, status bar, controls, plots and the centre.
    fn frame_ui(&mut self, ui: &mut egui::Ui) {
        egui::Panel::top("menu").show(ui, |ui| self.menu_bar(ui));
        egui::Panel::bottom("status").show(ui, |ui| self.status_bar(ui));
        // the panels' sizes follow the window (a laptop's 1366×768, a projector's 800×600):
        // each can be dragged within its range, and the range keeps the heatmap visible
        let window = ui.ctx().content_rect().size();
        egui::Panel::left("controls")
            .resizable(true)
            .default_size(CONTROLS_WIDTH.min(0.3 * window.x))
            .size_range(CONTROLS_MIN_WIDTH..=CONTROLS_WIDTH.max(0.4 * window.x))
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.controls(ui));
            });
        self.plots_rect = None;
        if self.tab == Tab::Live {
            let plots = egui::Panel::bottom("plots")
                .resizable(true)
                .default_size(PLOTS_HEIGHT.min(0.3 * window.y))
                // at most what leaves the heatmap a third of the window beside the menu,
                // status bar, monitors (two rows when narrow) and strip, ~290 px: at 800×600
                // the plots took 180 px and the heatmap got 125 (issue 56 §5)
                .size_range(PLOTS_MIN_HEIGHT..=PLOTS_MIN_HEIGHT.max(window.y * 2.0 / 3.0 - 290.0))
                .show(ui, |ui| {
                    if self.b.is_none() && !self.a.ghosts.is_empty() {
                        self.ghosts_line(ui);
                    }
                    plots::show(ui, &self.a, self.b.as_ref());
                });
            self.plots_rect = Some(plots.response.rect);
            egui::Panel::bottom("monitors").show(ui, |ui| {
                monitors::row(ui, &self.a, if self.b.is_some() { "A" } else { "" });
                if let Some(b) = &self.b {
                    monitors::row(ui, b, "B");
                    monitors::ab_line(ui, &self.a, b);
                }
            });
        }
        if self.tab == Tab::Live {
            self.tour_panel(ui);
            let ctx = ui.ctx().clone();
            self.summary_window(&ctx);
        }
        egui::CentralPanel::default().show(ui, |ui| {
            // sweeps and fits wait for their results inside their steps: not on a page's
            // device (its readbacks come back on later frames), where they run on the CPU
            let gpu = self
                .gpu
                .clone()
                .filter(|g| self.gpu_check.gpu_allowed() && !g.defers_readbacks());
            match self.tab {
                Tab::Sweep => {
                    let live = self.a.config.clone();
                    if let Some((key, v)) = self.sweep.show(ui, &live, gpu) {
                        self.use_sweep_value(&key, v);
                    }
                }
                Tab::Fit => {
                    let samples = self.a.engine.samples();
                    self.fit.show(ui, samples, gpu);
                }
                Tab::Live => self.central(ui),
                Tab::Info => self.info_tab(ui),
            }
        });
    }
}
