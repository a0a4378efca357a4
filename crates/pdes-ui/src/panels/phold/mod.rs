//! PHOLD in the window: its panel (hover, inspector, monitors, plots).

pub mod panel;
