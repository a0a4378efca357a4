//! The diffusion grid's part of the left panel: rows × cols, αx, αy, β, the boundary and
//! initial temperatures, dx, dt and the quantum — and the preset table they make.

use crate::kit::controls;
use crate::kit::form::{AlgorithmChoice, ModelForm, preset_table};
use eframe::egui;
use pdes_models::diffusion::DiffusionParams;
use pdes_models::diffusion::config;
use pdes_models::diffusion::config::DiffusionConfig;
use pdes_models::keys;
use pdes_models::preset::Config;

/// The diffusion grid's values in the controls: the model's parameters as the preset gives
/// them, and the run's steps.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffusionForm {
    /// The grid (rows, cols, αx, αy, β, boundary, initial, dx).
    pub model: DiffusionParams,
    /// Timestepped's step.
    pub dt: f64,
    /// Quantum of event and hybrid.
    pub quantum: f64,
}

/// The registry's constructor: the form showing `cfg` (the generic one for a configuration
/// of another model, which the window never hands it).
pub fn form(cfg: &Config) -> Box<dyn ModelForm> {
    match cfg.get::<DiffusionConfig>() {
        Some(c) => Box::new(DiffusionForm {
            model: c.model.clone(),
            dt: c.run.dt,
            quantum: c.run.quantum,
        }),
        None => crate::panels::generic::form(cfg),
    }
}

impl ModelForm for DiffusionForm {
    fn kind(&self) -> &'static str {
        "diffusion"
    }

    fn model_controls(&mut self, ui: &mut egui::Ui) -> bool {
        let mut changed = false;
        ui.label(pdes_models::diffusion::INFO.description).on_hover_text(
            "dQ/dt = αx ∂²Q/∂x² + αy ∂²Q/∂y² + β on rows × cols cells, the edges held at the boundary temperature, the interior starting at the initial one (Perumalla 2006 §3.1).",
        );
        egui::Grid::new("dmodel").num_columns(2).show(ui, |ui| {
            changed |= controls::size_pair(
                ui,
                "rows × cols",
                &controls::hint(
                    "Cells of the grid; large grids want the GPU engine.",
                    &keys::ROWS,
                ),
                &mut self.model.rows,
                &mut self.model.cols,
            );
            for (label, key, help, value, speed) in [
                (
                    "αx",
                    &config::ALPHA_X,
                    "Diffusivity along the rows (x).",
                    &mut self.model.alpha_x,
                    0.01,
                ),
                (
                    "αy",
                    &config::ALPHA_Y,
                    "Diffusivity along the columns (y).",
                    &mut self.model.alpha_y,
                    0.01,
                ),
                (
                    "β",
                    &config::BETA,
                    "Uniform heating rate (negative cools).",
                    &mut self.model.beta,
                    0.01,
                ),
                (
                    "boundary",
                    &config::BOUNDARY,
                    "Temperature held around the grid.",
                    &mut self.model.boundary,
                    1.0,
                ),
                (
                    "initial",
                    &config::INITIAL,
                    "Temperature every cell starts at.",
                    &mut self.model.initial,
                    1.0,
                ),
                (
                    "dx",
                    &config::DX,
                    "Cell width (the same along x and y).",
                    &mut self.model.dx,
                    0.01,
                ),
            ] {
                changed |= controls::row(
                    ui,
                    label,
                    help,
                    key,
                    egui::DragValue::new(value).speed(speed),
                );
            }
        });
        changed
    }

    fn run_controls(&mut self, ui: &mut egui::Ui, _error: &mut Option<String>) -> bool {
        let mut changed = false;
        let bound =
            self.model.dx * self.model.dx / (2.0 * (self.model.alpha_x + self.model.alpha_y));
        ui.label("dt").on_hover_text(controls::hint(&format!("Timestepped's fixed step. Stable only up to dx²/(2(αx+αy)) = {bound:.4}; smaller is more accurate and slower. Hybrid never steps past that bound either."), &config::DT));
        changed |= ui
            .add(
                egui::Slider::new(&mut self.dt, 1e-4..=1.0)
                    .logarithmic(true)
                    .text("dt (log)"),
            )
            .changed();
        ui.end_row();
        ui.label("quantum").on_hover_text(controls::hint("Event and hybrid: how far a cell may move before it must be updated. Smaller is more accurate and takes more events (event) or shorter steps (hybrid); the error shrinks in proportion.", &config::QUANTUM));
        changed |= ui
            .add(
                egui::Slider::new(&mut self.quantum, 1e-3..=10.0)
                    .logarithmic(true)
                    .text("Δ (log)"),
            )
            .changed();
        ui.end_row();
        changed
    }

    fn table(&self, algorithm: AlgorithmChoice, engine: &str, end_time: f64) -> toml::Table {
        let mut model = toml::Table::new();
        model.insert("kind".into(), "diffusion".into());
        model.insert("rows".into(), i64::from(self.model.rows).into());
        model.insert("cols".into(), i64::from(self.model.cols).into());
        for (k, v) in [
            ("alpha_x", self.model.alpha_x),
            ("alpha_y", self.model.alpha_y),
            ("beta", self.model.beta),
            ("boundary", self.model.boundary),
            ("initial", self.model.initial),
            ("dx", self.model.dx),
        ] {
            model.insert(k.into(), v.into());
        }
        let mut run = toml::Table::new();
        run.insert("algorithm".into(), algorithm.algorithm.into());
        run.insert("end_time".into(), end_time.into());
        run.insert("dt".into(), self.dt.into());
        run.insert("quantum".into(), self.quantum.into());
        run.insert("engine".into(), engine.into());
        preset_table(model, run)
    }
}
