//! The diffusion grid in the window: its panel (hover, inspector, monitors, plots) and its form
//! in the left panel.

pub mod form;
pub mod panel;
