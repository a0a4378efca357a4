//! The editable parameters of the left panel, validated through the same preset code as
//! the command line (one mechanism, one set of error messages).

use crate::model::torus::ServiceKind;
use crate::preset::{Algorithm, EngineKind, Timestamps, TorusConfig};

/// The four algorithm choices a user sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlgorithmChoice {
    /// Future event list.
    Sequential,
    /// Exact window.
    Window,
    /// Interval, original timestamps.
    IntervalOriginal,
    /// Interval, events at the boundary.
    IntervalBoundary,
}

impl AlgorithmChoice {
    /// All choices.
    pub const ALL: [AlgorithmChoice; 4] = [
        Self::Sequential,
        Self::Window,
        Self::IntervalOriginal,
        Self::IntervalBoundary,
    ];

    /// Label.
    pub fn label(self) -> &'static str {
        match self {
            Self::Sequential => "sequential",
            Self::Window => "window",
            Self::IntervalOriginal => "interval / original",
            Self::IntervalBoundary => "interval / boundary",
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
        }
    }

    fn of(cfg: &TorusConfig) -> Self {
        match (cfg.run.algorithm, cfg.run.timestamps) {
            (Algorithm::Sequential, _) => Self::Sequential,
            (Algorithm::Window, _) => Self::Window,
            (Algorithm::Interval, Timestamps::Original) => Self::IntervalOriginal,
            (Algorithm::Interval, Timestamps::Boundary) => Self::IntervalBoundary,
        }
    }

    fn keys(self) -> (&'static str, &'static str) {
        match self {
            Self::Sequential => ("sequential", "original"),
            Self::Window => ("window", "original"),
            Self::IntervalOriginal => ("interval", "original"),
            Self::IntervalBoundary => ("interval", "boundary"),
        }
    }
}

/// The values in the controls (some may be invalid while the user types).
#[derive(Clone, Debug, PartialEq)]
pub struct Form {
    /// Rows.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
    /// Tokens per facility.
    pub tokens_per_facility: u32,
    /// Mean service time.
    pub mean_service: f64,
    /// Shifted (true) or exponential service.
    pub shifted: bool,
    /// Algorithm.
    pub algorithm: AlgorithmChoice,
    /// Run on the GPU.
    pub gpu: bool,
    /// The interval d.
    pub d: f64,
    /// Seed.
    pub seed: u64,
    /// End time.
    pub end_time: f64,
}

impl Form {
    /// The form showing `cfg`.
    pub fn from_config(cfg: &TorusConfig) -> Self {
        Self {
            rows: cfg.model.rows,
            cols: cfg.model.cols,
            tokens_per_facility: cfg.model.tokens_per_facility,
            mean_service: cfg.model.mean_service,
            shifted: cfg.model.service == ServiceKind::Shifted,
            algorithm: AlgorithmChoice::of(cfg),
            gpu: cfg.run.engine == EngineKind::Gpu,
            d: cfg.run.d,
            seed: cfg.run.seed,
            end_time: cfg.run.end_time,
        }
    }

    /// Validates the form into a configuration, or the one-line reason it is invalid.
    pub fn to_config(&self) -> Result<TorusConfig, String> {
        self.to_config_with(self.algorithm)
    }

    /// The same parameters with another algorithm (the B side of A/B mode).
    pub fn to_config_with(&self, algorithm: AlgorithmChoice) -> Result<TorusConfig, String> {
        let (alg, ts) = algorithm.keys();
        let text = format!(
            "[model]\nrows = {}\ncols = {}\ntokens_per_facility = {}\nmean_service = {:?}\nservice = \"{}\"\n[run]\nalgorithm = \"{alg}\"\ntimestamps = \"{ts}\"\nd = {:?}\nend_time = {:?}\nseed = {}\nengine = \"{}\"\n",
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
            if self.gpu { "gpu" } else { "cpu" },
        );
        TorusConfig::from_toml(&text, "controls").map_err(|e| e.to_string())
    }
}
