//! The diffusion grid in the window (its registry panel): the heatmap's hover text and the
//! inspector of a pinned cell.

use super::cpu::CpuDiffusion;
use crate::app::session::Session;
use eframe::egui;

/// The heatmap's hover text for cell `i`.
pub fn hover(ui: &mut egui::Ui, s: &Session, i: u32) {
    let cols = s.shape().1;
    ui.label(format!("cell ({}, {})", i / cols, i % cols));
    match s.engine.as_any().downcast_ref::<CpuDiffusion>() {
        Some(c) => {
            ui.label(format!("temperature {:.4}", c.temperature_at(i)));
        }
        None => {
            ui.label("click to pin and inspect");
        }
    }
}

/// The inspector of a pinned cell `i` (inside the grid: the caller checks).
pub fn inspector(ui: &mut egui::Ui, s: &Session, i: u32) {
    let cols = s.shape().1;
    ui.heading(format!("Cell ({}, {})", i / cols, i % cols));
    if let Some(t) = s.temperature_at(i) {
        ui.label(format!("temperature: {t:.4}"));
    }
}

/// The diffusion grid's panel in the registry.
pub const PANEL: crate::models::Panel = crate::models::Panel {
    hover,
    inspector,
    timeline: None,
};
