//! The editable parameters of the left panel, validated through the same preset code as
//! the command line (one mechanism, one set of error messages).

use crate::model::torus::ServiceKind;
use crate::preset::{Algorithm, Config, DiffusionAlgorithm, EngineKind, Timestamps};

/// The algorithm choices a user sees, of both models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlgorithmChoice {
    /// Torus: future event list.
    Sequential,
    /// Torus: exact window.
    Window,
    /// Torus: interval, original timestamps.
    IntervalOriginal,
    /// Torus: interval, events at the boundary.
    IntervalBoundary,
    /// Diffusion: fixed step.
    Timestepped,
    /// Diffusion: quantized-state events.
    Event,
    /// Diffusion: global minimum step, synchronous update.
    Hybrid,
}

impl AlgorithmChoice {
    /// The torus's choices.
    pub const TORUS: [AlgorithmChoice; 4] = [
        Self::Sequential,
        Self::Window,
        Self::IntervalOriginal,
        Self::IntervalBoundary,
    ];

    /// The diffusion grid's choices.
    pub const DIFFUSION: [AlgorithmChoice; 3] = [Self::Timestepped, Self::Event, Self::Hybrid];

    /// The choices of a model.
    pub fn of_model(diffusion: bool) -> &'static [AlgorithmChoice] {
        if diffusion {
            &Self::DIFFUSION
        } else {
            &Self::TORUS
        }
    }

    /// Label.
    pub fn label(self) -> &'static str {
        match self {
            Self::Sequential => "sequential",
            Self::Window => "window",
            Self::IntervalOriginal => "interval / original",
            Self::IntervalBoundary => "interval / boundary",
            Self::Timestepped => "timestepped",
            Self::Event => "event",
            Self::Hybrid => "hybrid",
        }
    }

    /// Plain-words explanation for the hover text.
    pub fn help(self) -> &'static str {
        match self {
            Self::Sequential => {
                "One event at a time from a priority queue: exact, the ground truth, and the baseline every speedup is measured against."
            }
            Self::Window => {
                "Sang et al. 2019: every event in [t_min, t_min + d) runs in parallel. Exact, because with shifted service no token can finish sooner than d after it starts, so nothing inside the window can affect anything else inside it."
            }
            Self::IntervalOriginal => {
                "The old algorithm: every event up to the next multiple of d runs in parallel with its own timestamp. Events inside an interval can depend on each other, so causality errors happen (red on the heatmap in the causality mode)."
            }
            Self::IntervalBoundary => {
                "Park & Fishwick 2009: every event up to the next multiple of d runs at that boundary. Order is preserved but every event is delayed, so utilization is biased down; the corrected value multiplies it by 1 + d/(2M)."
            }
            Self::Timestepped => {
                "Perumalla 2006 Fig. 3: every cell advances by the same fixed step dt, whether it changes or not. Simple and regular; dt must stay under the stability bound dx²/(2(αx+αy))."
            }
            Self::Event => {
                "Perumalla 2006 Fig. 6 (Nutaro's quantized states): each cell schedules its own update for when it will have moved one quantum; an update moves the cell and reschedules its neighbours. Only active cells cost anything, one event at a time from a priority queue (CPU only)."
            }
            Self::Hybrid => {
                "Perumalla 2006 Fig. 8: every cell computes when it would move one quantum; the earliest of those is the step, and all cells advance together. Steps grow as the grid smooths; on the GPU the minimum is a reduction that never leaves the device."
            }
        }
    }

    /// The choice a configuration makes.
    pub fn of(cfg: &Config) -> Self {
        match cfg {
            Config::Torus(c) => match (c.run.algorithm, c.run.timestamps) {
                (Algorithm::Sequential, _) => Self::Sequential,
                (Algorithm::Window, _) => Self::Window,
                (Algorithm::Interval, Timestamps::Original) => Self::IntervalOriginal,
                (Algorithm::Interval, Timestamps::Boundary) => Self::IntervalBoundary,
            },
            Config::Diffusion(c) => match c.run.algorithm {
                DiffusionAlgorithm::Timestepped => Self::Timestepped,
                DiffusionAlgorithm::Event => Self::Event,
                DiffusionAlgorithm::Hybrid => Self::Hybrid,
            },
        }
    }

    /// (run.algorithm, run.timestamps) in a preset.
    fn keys(self) -> (&'static str, &'static str) {
        match self {
            Self::Sequential => ("sequential", "original"),
            Self::Window => ("window", "original"),
            Self::IntervalOriginal => ("interval", "original"),
            Self::IntervalBoundary => ("interval", "boundary"),
            Self::Timestepped => ("timestepped", ""),
            Self::Event => ("event", ""),
            Self::Hybrid => ("hybrid", ""),
        }
    }
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
            algorithm: AlgorithmChoice::of(cfg),
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

    /// Validates the form into a configuration, or the one-line reason it is invalid.
    pub fn to_config(&self) -> Result<Config, String> {
        self.to_config_with(self.algorithm)
    }

    /// The same parameters with another algorithm (the B side of A/B mode).
    pub fn to_config_with(&self, algorithm: AlgorithmChoice) -> Result<Config, String> {
        let (alg, ts) = algorithm.keys();
        // event runs on the CPU only: the engine switch stays, the run goes to the CPU
        let cpu_only = algorithm == AlgorithmChoice::Event;
        let engine = if self.gpu && !cpu_only { "gpu" } else { "cpu" };
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
