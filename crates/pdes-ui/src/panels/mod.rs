//! What each model shows in the window beyond the kit's generic parts (heatmap, plots'
//! frame, status bar): one folder per model, and [`of`], the table the window reads by
//! `model.kind`. A new model adds its folder and one line to [`PANELS`].

use eframe::egui;

pub mod devs;
pub mod diffusion;
pub mod mmck;
pub mod open_network;
pub mod phold;
pub mod torus;

/// What a model shows in the window beyond the generic parts (heatmap, plots' frame,
/// status bar): its hover text, its inspector, and an optional strip above the heatmap.
#[derive(Debug)]
pub struct Panel {
    /// The heatmap's hover text for one cell.
    pub hover: fn(&mut egui::Ui, &crate::app::session::Session, u32),
    /// The inspector of a pinned cell (its heading and facts; the cell is inside the grid).
    pub inspector: fn(&mut egui::Ui, &crate::app::session::Session, u32),
    /// A strip above the heatmap (the torus: the current window over the pending events).
    pub timeline: Option<fn(&mut egui::Ui, &crate::app::session::Session)>,
    /// Its part of the left panel, showing a configuration of this model.
    pub form: fn(&pdes_models::preset::Config) -> Box<dyn crate::app::form::ModelForm>,
    /// Its heatmap modes (the first is the default).
    pub modes: &'static [crate::app::heatmap::Mode],
    /// The values at the bottom and top of its colormap for a session.
    pub colour_range: fn(&crate::app::session::Session) -> (f32, f32),
    /// What its work counter counts, for "… per second" in the status bar.
    pub work_label: &'static str,
    /// What the count mode of its heatmap counts per cell ("tokens", "customers").
    pub count_label: &'static str,
    /// The name of its count mode ([`crate::app::heatmap::Mode::Tokens`]) in the mode
    /// selector and above the colour bar ("queue length", "events per LP").
    pub count_mode: &'static str,
    /// The plots below the heatmap, for a session and its A/B partner.
    pub plots:
        fn(&mut egui::Ui, &crate::app::session::Session, Option<&crate::app::session::Session>),
    /// The numeric monitors above the heatmap: current values and their exact ones.
    pub monitors: fn(&crate::app::session::Session) -> Vec<crate::app::monitors::Monitor>,
    /// Its recent causality errors, oldest first (empty for models and engines without a
    /// list).
    pub violations: fn(&crate::app::session::Session) -> Vec<crate::app::violations::Violation>,
}

/// Every model's panel, by `model.kind`, in the registry's order.
pub static PANELS: &[(&str, &Panel)] = &[
    ("torus", &torus::panel::PANEL),
    ("diffusion", &diffusion::panel::PANEL),
    ("open-network", &open_network::panel::PANEL),
    ("mmck", &mmck::panel::PANEL),
    ("sir", &devs::panel::SIR_PANEL),
    ("devs-benchmark", &devs::panel::BENCHMARK_PANEL),
    ("phold", &phold::panel::PANEL),
];

/// The panel of a configuration's model. Every registered model has one (a test checks
/// the table against the registry); were one missing, the torus's would stand in rather
/// than the window failing.
pub fn of(config: &pdes_models::preset::Config) -> &'static Panel {
    let kind = config.kind();
    PANELS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(&torus::panel::PANEL, |(_, p)| *p)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_registered_model_has_a_panel_and_every_panel_a_model() {
        let kinds: Vec<&str> = pdes_models::MODELS.iter().map(|m| m.kind).collect();
        let panels: Vec<&str> = super::PANELS.iter().map(|(k, _)| *k).collect();
        assert_eq!(kinds, panels);
    }
}
