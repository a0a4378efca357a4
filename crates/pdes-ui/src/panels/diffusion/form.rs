//! The diffusion grid's part of the left panel: rows × cols, αx, αy, β, the boundary and
//! initial temperatures, dx, dt and the quantum — and the preset table they make.

use crate::kit::controls;
use crate::kit::form::{AlgorithmChoice, ModelForm, preset_table};
use eframe::egui;
use pdes_models::diffusion::config;
use pdes_models::keys;
use pdes_models::preset::Config;

/// The diffusion grid's values in the controls.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffusionForm {
    /// Rows.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
    /// αx.
    pub alpha_x: f64,
    /// αy.
    pub alpha_y: f64,
    /// β.
    pub beta: f64,
    /// Boundary temperature.
    pub boundary: f64,
    /// Initial temperature.
    pub initial: f64,
    /// Cell width.
    pub dx: f64,
    /// Timestepped's step.
    pub dt: f64,
    /// Quantum of event and hybrid.
    pub quantum: f64,
}

/// The registry's constructor: the form showing `cfg`.
pub fn form(cfg: &Config) -> Box<dyn ModelForm> {
    let Some(c) = cfg.get::<pdes_models::diffusion::config::DiffusionConfig>() else {
        return Box::new(DiffusionForm {
            rows: 64,
            cols: 64,
            alpha_x: 1.0,
            alpha_y: 1.0,
            beta: 0.0,
            boundary: 100.0,
            initial: 0.0,
            dx: 1.0,
            dt: 0.05,
            quantum: 0.5,
        });
    };
    Box::new(DiffusionForm {
        rows: c.model.rows,
        cols: c.model.cols,
        alpha_x: c.model.alpha_x,
        alpha_y: c.model.alpha_y,
        beta: c.model.beta,
        boundary: c.model.boundary,
        initial: c.model.initial,
        dx: c.model.dx,
        dt: c.run.dt,
        quantum: c.run.quantum,
    })
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
                &mut self.rows,
                &mut self.cols,
            );
            for (label, key, help, value, speed) in [
                (
                    "αx",
                    &config::ALPHA_X,
                    "Diffusivity along the rows (x).",
                    &mut self.alpha_x,
                    0.01,
                ),
                (
                    "αy",
                    &config::ALPHA_Y,
                    "Diffusivity along the columns (y).",
                    &mut self.alpha_y,
                    0.01,
                ),
                (
                    "β",
                    &config::BETA,
                    "Uniform heating rate (negative cools).",
                    &mut self.beta,
                    0.01,
                ),
                (
                    "boundary",
                    &config::BOUNDARY,
                    "Temperature held around the grid.",
                    &mut self.boundary,
                    1.0,
                ),
                (
                    "initial",
                    &config::INITIAL,
                    "Temperature every cell starts at.",
                    &mut self.initial,
                    1.0,
                ),
                (
                    "dx",
                    &config::DX,
                    "Cell width (the same along x and y).",
                    &mut self.dx,
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
        let bound = self.dx * self.dx / (2.0 * (self.alpha_x + self.alpha_y));
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
        model.insert("rows".into(), i64::from(self.rows).into());
        model.insert("cols".into(), i64::from(self.cols).into());
        for (k, v) in [
            ("alpha_x", self.alpha_x),
            ("alpha_y", self.alpha_y),
            ("beta", self.beta),
            ("boundary", self.boundary),
            ("initial", self.initial),
            ("dx", self.dx),
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
