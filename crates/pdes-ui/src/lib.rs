//! The window: the UI kit ([`app`]: session, plots, monitors, heatmap modes, forms, the
//! panel trait's users) and what each model shows ([`panels`], one folder per model, keyed
//! by `model.kind`).

pub mod app;
pub mod panels;
