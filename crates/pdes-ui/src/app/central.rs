//! The window's middle and bottom: the live view (the model's strip, the heatmaps of A and
//! B side by side with their legends, the plots and monitors), the status bar, and taking a
//! value picked in the Sweep view into the live run.

use super::{PdesApp, Tab};
use crate::kit::form::Form;
use crate::kit::heatmap;
use crate::kit::session::Session;
use eframe::egui;
use pdes_core::time::to_units;

impl PdesApp {
    /// Sets `key` = `value` in the live run (the sweep view's pick) and shows it.
    pub fn use_sweep_value(&mut self, key: &str, value: f64) {
        let set = format!("{key}={value}");
        match pdes_runs::sweep::with_sets(&self.a.config, &[set]) {
            Ok(cfg) => {
                self.form = Form::from_config(&cfg, crate::panels::of(&cfg));
                if self.apply_form() {
                    self.message = Some(format!("{key} = {value} from the sweep"));
                    self.tab = Tab::Live;
                }
            }
            Err(e) => self.message = Some(e),
        }
    }
}

impl PdesApp {
    /// The live view: the strip, the heatmaps with their legends, the plots and monitors.
    /// Where the window is too small for the strip and a heatmap of at least
    /// [`heatmap::MIN_HEIGHT`], the view scrolls rather than shrinking the heatmap away.
    pub(super) fn central(&mut self, ui: &mut egui::Ui) {
        let room = ui.available_size();
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| self.central_content(ui, room));
    }

    fn central_content(&mut self, ui: &mut egui::Ui, room: egui::Vec2) {
        let top = ui.min_rect().top();
        if let Some(timeline) = self.a.panel.timeline {
            timeline(ui, &self.a);
        }
        let sessions: Vec<&Session> = std::iter::once(&self.a).chain(self.b.as_ref()).collect();
        let n = sessions.len();
        let strip = ui.min_rect().bottom() - top;
        let avail = egui::vec2(
            ui.available_width(),
            (room.y - strip).max(heatmap::MIN_HEIGHT + 60.0),
        );
        // room for the legend on the right
        let w = (avail.x - heatmap::LEGEND_WIDTH - 8.0 * n as f32) / n as f32;
        let mut pin = None;
        let mut views = self.views;
        let pinned = self.pinned();
        let arrow = self.selected_violation.map(|v| (v.source, v.facility));
        let trail = self.trail();
        let follow_line = self.followed.as_ref().and_then(|f| {
            f.hops.last().map(|h| {
                format!(
                    "   following token {}: at {} since t = {:.3}, visit {}",
                    f.token,
                    (self.a.panel.cell_name)(&self.a, h.cell),
                    h.arrived,
                    h.visits
                )
            })
        });
        let mut stop_follow = false;
        // the dots are drawn where cells are large enough (as the last frame drew them)
        // (a model's own view draws them whatever its size: no heatmap view then)
        let dots_drawn = !self.just_ran.is_empty()
            && views[0].map_or(self.a.panel.graph.is_some(), |v| {
                v.size[0] / v.span >= heatmap::DOT_MIN_PX
            });
        let row_top = ui.cursor().top();
        ui.horizontal(|ui| {
            for (i, s) in sessions.iter().enumerate() {
                ui.vertical(|ui| {
                    ui.horizontal(|ui| {
                        ui.label(format!(
                            "{}{} on {}",
                            if n > 1 { ["A: ", "B: "][i] } else { "" },
                            s.algorithm_label(),
                            s.runs_on()
                        ));
                        // the followed token where the grid is, not only under the inspector
                        if i == 0 && dots_drawn {
                            ui.label(
                                egui::RichText::new(format!(
                                    "   dots: the {} cells the last step ran; outlines: the next step's",
                                    self.just_ran.len()
                                ))
                                .color(egui::Color32::from_rgb(255, 150, 40)),
                            );
                        } else if i == 0 && !self.just_ran.is_empty() {
                            // cells too small for a dot (PHOLD's 64×64 at the default zoom):
                            // said, with the way to see them (issue 56 §5)
                            ui.label(
                                egui::RichText::new(format!(
                                    "   the last step ran {} cells: zoom in on the grid (scroll) to see them as dots",
                                    self.just_ran.len()
                                ))
                                .color(egui::Color32::from_rgb(255, 150, 40)),
                            );
                        }
                        if let (0, Some(line)) = (i, &follow_line) {
                            ui.label(
                                egui::RichText::new(line)
                                    .color(egui::Color32::from_rgb(120, 230, 255)),
                            );
                            stop_follow |= ui.small_button("stop following").clicked();
                        }
                    });
                    if let Some(note) = &s.note {
                        ui.small(note);
                    }
                    // the rest of the room below the label (a fixed 60 px kept for it left
                    // the heatmap 35 px short at 800×600, issue 56 §5)
                    let below_label = avail.y - (ui.cursor().top() - row_top) - 4.0;
                    let size = egui::vec2(w.max(50.0), below_label.max(heatmap::MIN_HEIGHT));
                    // the model's own view where it has one (the network's graph)
                    let marks = heatmap::Marks {
                        arrow: arrow.filter(|_| i == 0),
                        pinned,
                        trail: if i == 0 { &trail } else { &[] },
                        ran: if i == 0 { &self.just_ran } else { &[] },
                    };
                    let graph = s.panel.graph.and_then(|g| g(ui, s, size, &marks));
                    if let Some(clicked) = graph {
                        if clicked.is_some() {
                            pin = clicked;
                        }
                    } else if let Some(p) = heatmap::heatmap_widget(
                        ui,
                        s,
                        self.mode,
                        &mut views[i],
                        size,
                        i as u64,
                        marks,
                    ) {
                        pin = Some(p);
                    }
                });
            }
            heatmap::legend(ui, &self.a, self.mode);
        });
        self.views = views;
        if stop_follow {
            self.followed = None;
        }
        if let Some(f) = pin {
            self.pin(f);
        }
    }

    /// The bottom line: time, steps, events, the GPU check, and what just happened.
    pub(super) fn status_bar(&mut self, ui: &mut egui::Ui) {
        // the message first, on its own wrapped line: at the end of the figures it was cut
        // off at the window's edge ("malformed TOML at lin…")
        if let Some(m) = self.message.clone() {
            ui.horizontal_wrapped(|ui| {
                ui.label(egui::RichText::new(m).strong());
                if ui.small_button("×").on_hover_text("dismiss").clicked() {
                    self.message = None;
                }
            });
        }
        // wrapped: a long reason (no WebGPU over plain http) was cut off at 1366 px
        ui.horizontal_wrapped(|ui| {
            // the adapter's name alone, its backend and driver on hover: the whole line
            // ("llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Mesa …)") wrapped the bar to two
            // lines at 800 px, taken from the heatmap (issue 56 §5)
            // (its first words: "llvmpipe (LLVM 15.0.6, 256 bits)" is one adapter's name)
            let name = self
                .gpu
                .as_ref()
                .map(|g| g.info.name.split(" (").next().unwrap_or_default());
            match name {
                Some(name) if !name.is_empty() => {
                    ui.label(name).on_hover_text(&self.gpu_note);
                }
                _ => {
                    ui.label(&self.gpu_note);
                }
            }
            ui.separator();
            if let Some((text, alarm, hover)) = self.gpu_check.status() {
                let text = if alarm {
                    egui::RichText::new(text).color(ui.visuals().error_fg_color)
                } else {
                    egui::RichText::new(text)
                };
                ui.label(text).on_hover_text(hover);
                ui.separator();
            }
            ui.label(format!(
                "t = {:.3} / {}",
                to_units(self.a.now()),
                // an end computed by the model (M/M/c/k: the expected length) shown to 3 decimals
                (self.a.end_time() * 1000.0).round() / 1000.0
            ));
            ui.separator();
            ui.label(format!("steps {}", self.a.steps()));
            // a frame asks for at most 0.1 s of the speed's time: frames slower than that
            // (a large grid drawn on the CPU) fall behind without the engines being capped
            let frame_s = self.frame_ms / 1000.0;
            let frames_behind = frame_s > 0.1 && self.pace.achieved() < 0.9 * self.sim_rate;
            if self.running
                && self.step_limit().is_none()
                && (self.pace.slower_than(self.sim_rate, self.sim_rate * frame_s.min(0.1))
                    || frames_behind)
            {
                ui.separator();
                ui.label(format!(
                    "slower than asked: ~{:.3} time units/s",
                    self.pace.achieved()
                ))
                .on_hover_text("The engines cannot simulate the requested time per second at this size (each frame advances what fits in ~30 ms so the window stays responsive), or the frames themselves take longer than 0.1 s (see the frame time) and each advances at most 0.1 s of the speed's time.");
            }
            if let Some(most) = self.step_limit() {
                ui.separator();
                ui.label(format!("at most {most} steps/s"))
                    .on_hover_text("Every cell of this model changes with every step: shown faster, the whole field would flash (at 20 steps a second, 10 times a second). Flashes more often than 3 times a second can trigger seizures, so the window shows at most this many steps a second whatever the speed asks. `pdes-lab run` and the Sweep view run at full speed.");
            }
            ui.separator();
            let what = self.a.panel.work_label;
            ui.label(format!("{what}/s {:.3e}", self.events_per_sec))
                .on_hover_text(format!("{what} simulated per second of wall-clock time in this window: the window advances only as fast as the speed setting asks (sim time per second) and draws every frame, so this is far below the engine's own speed — `pdes-lab run` reports that (its {what}_per_second field, for the whole run)."));
            ui.separator();
            ui.label(format!("frame {:.1} ms", self.frame_ms));
            if self.a.gpu_memory_bytes() > 0 {
                ui.separator();
                ui.label(format!(
                    "GPU memory {:.1} MiB",
                    self.a.gpu_memory_bytes() as f64 / 1048576.0
                ));
            }
        });
    }
}
