//! The editable parameters of the left panel, validated through the same preset code as
//! the command line (one mechanism, one set of error messages).

use crate::models::AlgorithmInfo;
use crate::models::torus::ServiceKind;
use crate::preset::{Config, EngineKind};

/// An algorithm the controls offer: an entry of the model registry.
pub type AlgorithmChoice = &'static AlgorithmInfo;

/// The algorithms the controls list for a model (`diffusion` picks the model).
pub fn choices(diffusion: bool) -> Vec<AlgorithmChoice> {
    crate::models::by_kind(kind_of(diffusion))
        .map(|m| m.listed().collect())
        .unwrap_or_default()
}

/// `model.kind` of the form's model switch (the one place that maps it to the registry).
fn kind_of(diffusion: bool) -> &'static str {
    if diffusion { "diffusion" } else { "torus" }
}

/// The values in the controls (some may be invalid while the user types). Both models'
/// fields are kept; `diffusion` says which ones are in use.
#[derive(Clone, Debug, PartialEq)]
pub struct Form {
    /// The diffusion grid (true) or the torus.
    pub diffusion: bool,
    /// Rows.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
    /// Torus: tokens per facility.
    pub tokens_per_facility: u32,
    /// Torus: mean service time.
    pub mean_service: f64,
    /// Torus: shifted (true) or exponential service.
    pub shifted: bool,
    /// Algorithm (of the model in use).
    pub algorithm: AlgorithmChoice,
    /// Run on the GPU.
    pub gpu: bool,
    /// Torus: the interval d.
    pub d: f64,
    /// Torus: seed.
    pub seed: u64,
    /// End time.
    pub end_time: f64,
    /// Diffusion: αx.
    pub alpha_x: f64,
    /// Diffusion: αy.
    pub alpha_y: f64,
    /// Diffusion: β.
    pub beta: f64,
    /// Diffusion: boundary temperature.
    pub boundary: f64,
    /// Diffusion: initial temperature.
    pub initial: f64,
    /// Diffusion: cell width.
    pub dx: f64,
    /// Diffusion: timestepped's step.
    pub dt: f64,
    /// Diffusion: quantum of event and hybrid.
    pub quantum: f64,
}

impl Form {
    /// The form showing `cfg` (the other model's fields keep the presets' defaults).
    pub fn from_config(cfg: &Config) -> Self {
        let mut f = Self {
            diffusion: false,
            rows: 16,
            cols: 16,
            tokens_per_facility: 1,
            mean_service: 10.0,
            shifted: true,
            algorithm: cfg.algorithm_info(),
            gpu: cfg.engine() == EngineKind::Gpu,
            d: 1.0,
            seed: 1,
            end_time: 1000.0,
            alpha_x: 1.0,
            alpha_y: 1.0,
            beta: 0.0,
            boundary: 100.0,
            initial: 0.0,
            dx: 1.0,
            dt: 0.05,
            quantum: 0.5,
        };
        match cfg {
            Config::Torus(c) => {
                f.rows = c.model.rows;
                f.cols = c.model.cols;
                f.tokens_per_facility = c.model.tokens_per_facility;
                f.mean_service = c.model.mean_service;
                f.shifted = c.model.service == ServiceKind::Shifted;
                f.d = c.run.d;
                f.seed = c.run.seed;
                f.end_time = c.run.end_time;
            }
            Config::Diffusion(c) => {
                f.diffusion = true;
                f.rows = c.model.rows;
                f.cols = c.model.cols;
                f.alpha_x = c.model.alpha_x;
                f.alpha_y = c.model.alpha_y;
                f.beta = c.model.beta;
                f.boundary = c.model.boundary;
                f.initial = c.model.initial;
                f.dx = c.model.dx;
                f.dt = c.run.dt;
                f.quantum = c.run.quantum;
                f.end_time = c.run.end_time;
            }
        }
        f
    }

    /// `model.kind` of the model the form edits.
    pub fn kind(&self) -> &'static str {
        kind_of(self.diffusion)
    }

    /// Validates the form into a configuration, or the one-line reason it is invalid.
    pub fn to_config(&self) -> Result<Config, String> {
        self.to_config_with(self.algorithm)
    }

    /// The same parameters with another algorithm (the B side of A/B mode).
    pub fn to_config_with(&self, algorithm: AlgorithmChoice) -> Result<Config, String> {
        let (alg, ts) = (
            algorithm.algorithm,
            algorithm.timestamps.unwrap_or("original"),
        );
        // CPU-only algorithms: the engine switch stays, the run goes to the CPU
        let engine = if self.gpu && algorithm.gpu {
            "gpu"
        } else {
            "cpu"
        };
        let text = if self.diffusion {
            format!(
                "[model]\nkind = \"diffusion\"\nrows = {}\ncols = {}\nalpha_x = {:?}\nalpha_y = {:?}\nbeta = {:?}\nboundary = {:?}\ninitial = {:?}\ndx = {:?}\n[run]\nalgorithm = \"{alg}\"\nend_time = {:?}\ndt = {:?}\nquantum = {:?}\nengine = \"{engine}\"\n",
                self.rows,
                self.cols,
                self.alpha_x,
                self.alpha_y,
                self.beta,
                self.boundary,
                self.initial,
                self.dx,
                self.end_time,
                self.dt,
                self.quantum,
            )
        } else {
            format!(
                "[model]\nrows = {}\ncols = {}\ntokens_per_facility = {}\nmean_service = {:?}\nservice = \"{}\"\n[run]\nalgorithm = \"{alg}\"\ntimestamps = \"{ts}\"\nd = {:?}\nend_time = {:?}\nseed = {}\nengine = \"{engine}\"\n",
                self.rows,
                self.cols,
                self.tokens_per_facility,
                self.mean_service,
                if self.shifted {
                    "shifted"
                } else {
                    "exponential"
                },
                self.d,
                self.end_time,
                self.seed.min(i64::MAX as u64),
            )
        };
        Config::from_toml(&text, "controls").map_err(|e| e.to_string())
    }
}
