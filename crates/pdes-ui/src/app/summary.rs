//! The finished run's summary on the screen: the fields `pdes-lab run` prints, in the same
//! table, in a window over the live view that can be copied (JSON) or closed — on the
//! desktop and in a page, where it also goes to the console as one line (the browser test
//! reads it). Issue 56 §5: the page said its summary only in the console.

use super::PdesApp;
use eframe::egui;
use pdes_runs::output::{Format, format_summary};

/// A finished run's summary as the window shows it.
pub struct RunSummary {
    /// The fields as `pdes-lab run` prints them (its table format).
    pub table: String,
    /// The same as JSON (`--format json`), for Copy.
    pub json: String,
    /// Shown (the window's × hides it until the next run ends).
    pub open: bool,
}

impl PdesApp {
    /// Takes the finished run's summary once its readbacks are back (a GPU engine in a page
    /// answers them on later frames; the others at once): kept for the screen, and in a
    /// page written to the console.
    pub(super) fn take_summary_when_back(&mut self) {
        if !self.summary_due {
            return;
        }
        match self.a.engine.report() {
            Err(pdes_core::sim::SimError::NotYet) => return,
            Ok(report) => {
                match (
                    format_summary(&report, Format::Table),
                    format_summary(&report, Format::Json),
                ) {
                    (Ok(table), Ok(json)) => {
                        #[cfg(target_arch = "wasm32")]
                        super::web::log_summary(&json);
                        self.summary = Some(RunSummary {
                            table,
                            json,
                            open: true,
                        });
                    }
                    (Err(e), _) | (_, Err(e)) => {
                        self.message = Some(format!("the summary could not be written: {e}"))
                    }
                }
            }
            Err(e) => self.message = Some(e.to_string()),
        }
        self.summary_due = false;
    }

    /// The summary's window over the live view, while it is open.
    pub(super) fn summary_window(&mut self, ctx: &egui::Context) {
        let Some(summary) = self.summary.as_mut() else {
            return;
        };
        let mut open = summary.open;
        let window = ctx.content_rect().size();
        egui::Window::new("Run summary")
            .open(&mut open)
            .collapsible(true)
            // in a small window (a projector's 800×600) it opens folded to its title bar:
            // unfolded it covered the heatmap there; a click unfolds it
            .default_open(window.x >= 1100.0)
            .resizable(true)
            .default_width(360.0)
            // at the top right, where it covers least of the lesson; movable
            .pivot(egui::Align2::RIGHT_TOP)
            .default_pos(ctx.content_rect().right_top() + egui::vec2(-8.0, 40.0))
            .show(ctx, |ui| {
                ui.label("What `pdes-lab run` prints for this configuration:");
                ui.horizontal(|ui| {
                    if ui
                        .button("Copy as JSON")
                        .on_hover_text("The same fields as `pdes-lab run --format json`.")
                        .clicked()
                    {
                        ui.ctx().copy_text(summary.json.clone());
                    }
                    if ui.button("Save as JSON…").clicked() {
                        let saved = crate::kit::files::save(
                            "pdes-summary.json",
                            "JSON",
                            &["json"],
                            summary.json.as_bytes(),
                        );
                        self.message = Some(saved.message("summary"));
                    }
                });
                egui::ScrollArea::vertical()
                    .max_height((0.45 * window.y).min(360.0))
                    .show(ui, |ui| {
                        ui.add(egui::Label::new(
                            egui::RichText::new(&summary.table).monospace(),
                        ));
                    });
            });
        summary.open = open;
    }
}
