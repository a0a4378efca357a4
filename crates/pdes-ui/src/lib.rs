//! The window, in three layers that import downward: the kit ([`kit`]: session, plots,
//! monitors, heatmap, forms, the panel a model fills in), what each model shows ([`panels`],
//! one folder per model, keyed by `model.kind`), and the window's shell ([`app`]: menus,
//! controls, the tour, the Info, Sweep and Fit views), which gives each session its panel.

pub mod app;
pub mod kit;
pub mod panels;
