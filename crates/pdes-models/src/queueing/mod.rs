//! What the queueing models (the torus, the network) share: their `[run]` keys —
//! algorithm, timestamps, d, end time, seed, engine — with one validation, and the
//! accessors every queueing configuration implements the same way, the facility record
//! (`facility.rs`) and the CPU run that drives either simulator (`cpu_run.rs`). Their engines share the
//! step rule (`pdes_core::sim::StepRule`) and, on the GPU, `shaders/stepped*.wgsl`.

mod cpu_run;
mod facility;

pub use cpu_run::{CpuRun, EventList, Simulator, Stepping};
pub(crate) use cpu_run::{cpu_run_engine, simulator};
pub use facility::{Facility, NEVER, NONE, queue_length};

use crate::config::{EngineKind, PresetError, key_err};
use crate::keys::{Bound, Key};
use pdes_core::time::{Ticks, to_ticks};
use serde::{Deserialize, Serialize};

/// `run.algorithm` of the queueing models.
pub const ALGORITHM: Key = Key::one_of("run.algorithm", &["sequential", "window", "interval"]);
/// `run.timestamps`: which timestamps clustered events of `interval` keep.
pub const TIMESTAMPS: Key = Key::one_of("run.timestamps", &["original", "boundary"]);
/// `run.d`: the window or interval (0 only for sequential; below the mean service with
/// shifted service, checked with the other keys).
pub const D: Key = Key::number_between("run.d", Bound::Closed(0.0), Bound::Closed(pdes_core::time::MAX_TIME_UNITS)).noting("0 only for sequential, at least one tick otherwise; below model.mean_service with shifted service");
pub use crate::keys::END_TIME;

/// Most causality errors a stepped CPU engine keeps (the newest), for the window's list.
pub const MAX_VIOLATIONS: usize = 4096;

/// One causality error: an arrival older than the latest arrival its facility (a torus's
/// facility, a network's station) had processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Step index.
    pub step: u64,
    /// The facility or station where the late token arrived.
    pub facility: u32,
    /// Where it came from (a neighbour; a network's sending station, or the station itself
    /// for an arrival from outside).
    pub source: u32,
    /// The late token.
    pub token: u32,
    /// The arriving timestamp.
    pub arrival: Ticks,
    /// The facility's latest arrival time before it.
    pub last_arrival: Ticks,
}

/// Appends `v` to `list`, dropping the oldest beyond [`MAX_VIOLATIONS`].
pub fn keep_violation(list: &mut std::collections::VecDeque<Violation>, v: Violation) {
    list.push_back(v);
    if list.len() > MAX_VIOLATIONS {
        list.pop_front();
    }
}
/// `run.warmup`: statistics cover [warmup, end_time] (below the end time, checked with it).
pub const WARMUP: Key =
    Key::number_between("run.warmup", Bound::Closed(0.0), Bound::None).noting("below run.end_time");
/// The `[run]` keys of the queueing models, in the order presets list them.
pub const RUN_KEYS: [Key; 7] = [
    ALGORITHM,
    TIMESTAMPS,
    D,
    END_TIME,
    WARMUP,
    crate::keys::SEED,
    crate::keys::ENGINE,
];

/// How the events of a step are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// One event at a time from a future event list (exact).
    Sequential,
    /// Every event in [t_min, t_min + d) (exact with shifted service; Sang et al.).
    Window,
    /// Every event up to the next multiple of d (Park & Fishwick; approximate).
    Interval,
}

impl Algorithm {
    /// Name in presets and output.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sequential => "sequential",
            Self::Window => "window",
            Self::Interval => "interval",
        }
    }
}

/// Which timestamps clustered events of `interval` keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Timestamps {
    /// Their own (causality errors happen).
    Original,
    /// The interval boundary (no ordering violation, biased statistics).
    Boundary,
}

impl Timestamps {
    /// Name in presets and output.
    pub fn name(self) -> &'static str {
        match self {
            Self::Original => "original",
            Self::Boundary => "boundary",
        }
    }
}

/// The `[run]` section.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    /// Algorithm.
    pub algorithm: Algorithm,
    /// Timestamps of `interval`.
    pub timestamps: Timestamps,
    /// The interval d (window width, interval length, and shift of shifted service).
    pub d: f64,
    /// Simulated end time T: every event earlier than T is processed.
    pub end_time: f64,
    /// Warm-up time: statistics cover [warmup, T] only (0: from the start).
    pub warmup: f64,
    /// Random seed.
    pub seed: u64,
    /// Engine.
    pub engine: EngineKind,
}

impl RunConfig {
    /// (run.algorithm, run.timestamps for interval): the registry's key of the algorithm.
    pub fn algorithm_keys(&self) -> (&'static str, Option<&'static str>) {
        (
            self.algorithm.name(),
            (self.algorithm == Algorithm::Interval).then(|| self.timestamps.name()),
        )
    }
}

/// The `[run]` keys of the queueing models as written (the torus and the network);
/// a key left out takes the model's default.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct QueueingRunKeys {
    /// `run.algorithm`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<Algorithm>,
    /// `run.timestamps`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamps: Option<Timestamps>,
    /// `run.d`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub d: Option<f64>,
    /// `run.end_time`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_time: Option<f64>,
    /// `run.warmup`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warmup: Option<f64>,
    /// `run.seed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// `run.engine`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<EngineKind>,
}

impl QueueingRunKeys {
    /// The keys of a validated run (all written).
    pub fn of(r: &RunConfig) -> Self {
        Self {
            algorithm: Some(r.algorithm),
            timestamps: Some(r.timestamps),
            d: Some(r.d),
            end_time: Some(r.end_time),
            warmup: (r.warmup > 0.0).then_some(r.warmup),
            seed: Some(r.seed),
            engine: Some(r.engine),
        }
    }

    /// The run with `defaults` for the keys left out, checked: d ≥ one tick for the
    /// stepped algorithms, d < M with `shifted` service (mean `mean_service`), window only
    /// with shifted service, T in [one tick, 2^40], the warm-up in [0, T). Errors name the
    /// key and the range.
    pub fn validate(
        self,
        defaults: RunConfig,
        shifted: bool,
        mean_service: f64,
    ) -> Result<RunConfig, PresetError> {
        use pdes_core::time::TICKS_PER_UNIT;
        let algorithm = self.algorithm.unwrap_or(defaults.algorithm);
        let d = D.number(self.d.unwrap_or(defaults.d))?;
        if algorithm != Algorithm::Sequential && d * TICKS_PER_UNIT < 1.0 {
            return Err(D.refuse_as(
                d,
                format!(
                    "a number of at least one tick (2^-20 ≈ 0.00000095) for run.algorithm = \"{}\"",
                    algorithm.name()
                ),
            ));
        }
        if shifted && d >= mean_service {
            return Err(D.refuse_as(
                d,
                format!(
                    "a number from 0 to below model.mean_service = {mean_service} with shifted service"
                ),
            ));
        }
        if algorithm == Algorithm::Window && !shifted {
            return Err(key_err(
                "model.service",
                "run.algorithm = \"window\" needs \"shifted\" service (every service must last at least d)",
            ));
        }
        let end_time = END_TIME.number(self.end_time.unwrap_or(defaults.end_time))?;
        let warmup = WARMUP.number(self.warmup.unwrap_or(defaults.warmup))?;
        if warmup >= end_time {
            return Err(WARMUP.refuse_as(
                warmup,
                format!(
                    "a number from 0 to below run.end_time = {end_time} (run.warmup = 0 collects statistics from t = 0)"
                ),
            ));
        }
        Ok(RunConfig {
            algorithm,
            timestamps: self.timestamps.unwrap_or(defaults.timestamps),
            d,
            end_time,
            warmup,
            // TOML integers are i64: a seed read from a preset is at most 2^63 − 1
            seed: self.seed.unwrap_or(defaults.seed),
            engine: self.engine.unwrap_or(defaults.engine),
        })
    }
}

/// Implements [`ModelConfig`]'s run accessors for a configuration whose `run` is a
/// [`RunConfig`].
macro_rules! queueing_run_accessors {
    () => {
        fn algorithm_keys(&self) -> (&'static str, Option<&'static str>) {
            self.run.algorithm_keys()
        }
        fn engine(&self) -> $crate::config::EngineKind {
            self.run.engine
        }
        fn set_engine(&mut self, engine: $crate::config::EngineKind) {
            self.run.engine = engine;
        }
        fn end_time(&self) -> f64 {
            self.run.end_time
        }
    };
}
pub(crate) use queueing_run_accessors;

/// How a step bounds its events and stamps them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepRule {
    /// Exact window [t_min, t_min + d) (needs service ≥ d).
    Window {
        /// d in ticks.
        d: Ticks,
    },
    /// Interval up to the smallest multiple of d ≥ t_min, events keep their own times
    /// (the "old algorithm"; causality errors happen).
    IntervalOriginal {
        /// d in ticks.
        d: Ticks,
    },
    /// Interval whose events all execute at the boundary (Park & Fishwick).
    IntervalBoundary {
        /// d in ticks.
        d: Ticks,
    },
}

impl StepRule {
    /// The inclusive bound on event times for a step starting at `t_min`, and the
    /// execution time override (the boundary) if the rule clusters events.
    pub fn bound(self, t_min: Ticks, end: Ticks) -> (Ticks, Option<Ticks>) {
        let last = end - 1;
        match self {
            Self::Window { d } => ((t_min + d - 1).min(last), None),
            Self::IntervalOriginal { d } => ((t_min.div_ceil(d) * d).min(last), None),
            Self::IntervalBoundary { d } => {
                let b = t_min.div_ceil(d) * d;
                (b.min(last), Some(b))
            }
        }
    }
}

impl RunConfig {
    /// The warm-up time in ticks.
    pub fn warmup_ticks(&self) -> Ticks {
        to_ticks(self.warmup)
    }

    /// The step rule of a stepped run (None for sequential), d in ticks.
    pub fn step_rule(&self) -> Option<StepRule> {
        let d = to_ticks(self.d);
        match (self.algorithm, self.timestamps) {
            (Algorithm::Sequential, _) => None,
            (Algorithm::Window, _) => Some(StepRule::Window { d }),
            (Algorithm::Interval, Timestamps::Original) => Some(StepRule::IntervalOriginal { d }),
            (Algorithm::Interval, Timestamps::Boundary) => Some(StepRule::IntervalBoundary { d }),
        }
    }
}

impl StepRule {
    /// The rule's code in the GPU engines' parameters (RULE_* in shaders/stepped.wgsl).
    pub fn gpu_code(self) -> u32 {
        match self {
            Self::Window { .. } => 0,
            Self::IntervalOriginal { .. } => 1,
            Self::IntervalBoundary { .. } => 2,
        }
    }
}

impl RunConfig {
    /// The queueing models' warning: interval/original with shifted service cannot make a
    /// causality error (every service lasts at least d, the interval's length, so no event
    /// of an interval can cause an earlier one in it) — a first-time user looks for errors
    /// that cannot come.
    pub fn warning(&self, shifted: bool) -> Option<String> {
        (shifted && self.algorithm == Algorithm::Interval && self.timestamps == Timestamps::Original).then(|| {
            "interval/original with shifted service makes no causality errors: every service lasts at least d, so no event of an interval can cause an earlier one in it. Choose exponential service to see them.".to_string()
        })
    }
}
