//! What each model shows in the window beyond the kit's generic parts (heatmap, plots'
//! frame, status bar): one folder per model, and [`of`], the table the window reads by
//! `model.kind`. A model without an entry gets the [`generic`] panel; one that teaches more
//! adds its folder and one line to [`PANELS`].

pub mod devs;
pub mod diffusion;
pub mod generic;
pub mod mmck;
pub mod network;
pub mod phold;
pub mod torus;

pub use crate::kit::panel::Panel;

/// Every model's panel, by `model.kind`, in the registry's order.
pub static PANELS: &[(&str, &Panel)] = &[
    ("torus", &torus::panel::PANEL),
    ("diffusion", &diffusion::panel::PANEL),
    ("mmck", &mmck::panel::PANEL),
    ("sir", &devs::panel::SIR_PANEL),
    ("devs-benchmark", &devs::panel::BENCHMARK_PANEL),
    ("phold", &phold::panel::PANEL),
    ("network", &network::PANEL),
];

/// The panel of a configuration's model: its own, or the [`generic`] one for a model that
/// writes none.
pub fn of(config: &pdes_models::preset::Config) -> &'static Panel {
    let kind = config.kind();
    PANELS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(&generic::PANEL, |(_, p)| *p)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_panel_is_a_registered_models() {
        for (kind, _) in super::PANELS {
            assert!(pdes_models::by_kind(kind).is_some(), "{kind}");
        }
    }
}
