//! The Info tab: the model's own text from the registry (`ModelInfo::info`) — what is
//! simulated, what the colours, monitors and plots mean, where it comes from in the
//! papers, what to try first — and the guided start points it mentions.

use super::PdesApp;
use eframe::egui;

/// Draws a small Markdown subset: `# ` headings, `- ` bullets, paragraphs.
pub fn markdown(ui: &mut egui::Ui, text: &str) {
    for line in text.lines() {
        let line = line.trim_end();
        if let Some(h) = line.strip_prefix("# ") {
            ui.add_space(8.0);
            ui.heading(h);
        } else if let Some(b) = line.strip_prefix("- ") {
            ui.horizontal_wrapped(|ui| {
                ui.label("-");
                ui.label(b);
            });
        } else if !line.is_empty() {
            ui.label(line);
        }
    }
}

impl PdesApp {
    /// The Info tab of the live model.
    pub(super) fn info_tab(&mut self, ui: &mut egui::Ui) {
        let info = self.a.config.model_info();
        egui::ScrollArea::vertical().show(ui, |ui| {
            // lines of at most 900 points, and never wider than the view (a small window)
            ui.set_max_width(ui.available_width().min(900.0));
            markdown(ui, info.info);
            ui.add_space(12.0);
            ui.separator();
            ui.horizontal_wrapped(|ui| {
                if ui
                    .button("Open the teaching preset")
                    .on_hover_text(info.teaching_preset)
                    .clicked()
                {
                    self.load_preset(info.teaching_preset);
                    self.tab = super::Tab::Live;
                }
                if info.kind == "torus" {
                    if ui
                        .button("Guided tour")
                        .on_hover_text("Seven short stops: on the live torus which events run in parallel and why, a wider window, the bias of the shift, the same sample path, a causality error; the same lesson on PHOLD; and what to try next.")
                        .clicked()
                    {
                        self.start_tour();
                    }
                    if ui
                        .button("Walk through a causality error")
                        .on_hover_text("Paper 000 Fig. 4 on a small grid with a fixed seed: interval / original runs until its first causality error and stops there, with the late token's arrow on the grid.")
                        .clicked()
                    {
                        self.causality_walkthrough();
                    }
                    if ui
                        .button("Same sample path: window beside sequential")
                        .on_hover_text("A/B on one seed with shifted service: window (A) and sequential (B) process the same events and report the same statistics.")
                        .clicked()
                    {
                        self.same_sample_path();
                    }
                }
            });
        });
    }
}
