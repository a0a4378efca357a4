//! What each model shows in the window beyond the kit's generic parts (heatmap, plots'
//! frame, status bar): one folder per model, and [`of`], the table the window reads by
//! `model.kind`. A new model adds its folder and one line to [`PANELS`].

pub mod devs;
pub mod diffusion;
pub mod mmck;
pub mod open_network;
pub mod phold;
pub mod torus;

pub use crate::kit::panel::Panel;

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
