//! The legend beside a heatmap: the colour bar or the swatches of its mode, with what they
//! mean.

use super::{Mode, colour_range, viridis};
use crate::kit::session::Session;
use eframe::egui;

/// The width the legend beside a heatmap takes: its text wraps inside it (a title as long
/// as "customers in system" ran past the window's edge).
pub const LEGEND_WIDTH: f32 = 96.0;

/// Draws the colour bar of `mode` for a session: what the heatmap's colours mean.
pub fn legend(ui: &mut egui::Ui, s: &Session, mode: Mode) {
    let (lo, hi) = colour_range(s);
    ui.vertical(|ui| {
        ui.set_max_width(LEGEND_WIDTH);
        ui.add(egui::Label::new(mode.label_in(s)).wrap_mode(egui::TextWrapMode::Wrap));
        let swatches: &[([u8; 3], &str)] = match mode {
            Mode::Busy => &[([252, 204, 51], "busy"), ([31, 31, 41], "idle")],
            Mode::Digit => &[([252, 204, 51], "1"), ([31, 31, 41], "0")],
            Mode::Steadied => &[([252, 204, 51], "1 at the start"), ([31, 31, 41], "0 at the start")],
            Mode::Errors => &[
                ([255, 38, 26], "causality error"),
                ([40, 30, 60], "none (dimmed:\nqueue length)"),
            ],
            Mode::Compartments => &[
                ([0, 255, 0], "susceptible"),
                ([255, 26, 26], "infected"),
                ([0, 0, 255], "recovered"),
            ],
            _ => &[],
        };
        if !swatches.is_empty() {
            // a discrete quantity gets one swatch per value, not a gradient
            for (rgb, what) in swatches {
                ui.horizontal(|ui| {
                    let (r, _) =
                        ui.allocate_exact_size(egui::vec2(14.0, 14.0), egui::Sense::hover());
                    ui.painter().rect_filled(
                        r,
                        2.0,
                        egui::Color32::from_rgb(rgb[0], rgb[1], rgb[2]),
                    );
                    ui.add(egui::Label::new(*what).wrap_mode(egui::TextWrapMode::Wrap));
                });
            }
            if mode == Mode::Errors {
                caption(ui, "red fades over\n8 steps");
            }
            if mode == Mode::Steadied {
                caption(
                    ui,
                    "every step flips\nevery cell: with\nits flips undone\nthe field stays\nstill (a cell that\nmissed one would\nchange). \"cell value\n(flashes)\" shows\nthe flips, slowly",
                );
            }
            if mode == Mode::Compartments {
                caption(
                    ui,
                    "green: s, blue: r;\nred over them: i,\nfull from i = 5%",
                );
            }
            return;
        }
        let (rect, _) = ui.allocate_exact_size(egui::vec2(22.0, 200.0), egui::Sense::hover());
        let steps = 32;
        for i in 0..steps {
            let t = 1.0 - i as f32 / steps as f32;
            let [r, g, b] = viridis(t);
            let y0 = rect.top() + rect.height() * i as f32 / steps as f32;
            let cell = egui::Rect::from_min_size(
                egui::pos2(rect.left(), y0),
                egui::vec2(rect.width(), rect.height() / steps as f32 + 0.5),
            );
            ui.painter().rect_filled(
                cell,
                0.0,
                egui::Color32::from_rgb((r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8),
            );
        }
        match mode {
            Mode::Tokens => caption(ui, &format!("0 … {hi}+ {}", s.panel.count_label)),
            Mode::Temperature => caption(ui, &format!("top {hi:.2}\nbottom {lo:.2}")),
            // the discrete modes returned above with their swatches
            Mode::Busy | Mode::Digit | Mode::Steadied | Mode::Compartments | Mode::Errors => {}
        }
    });
}

/// A legend caption, readable (egui's small text was ~8 px).
fn caption(ui: &mut egui::Ui, text: &str) {
    ui.add(
        egui::Label::new(egui::RichText::new(text).size(12.0)).wrap_mode(egui::TextWrapMode::Wrap),
    );
}
