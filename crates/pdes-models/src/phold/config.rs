//! PHOLD's preset keys (`model.kind = "phold"`), read with serde (`deny_unknown_fields`)
//! and checked by one `validate()` whose errors name the key and the range.

use super::Law;
use crate::config::{Config, EngineKind, ModelConfig, PresetError};
use crate::keys::{Bound, Key};
use crate::torus::ServiceLaw;
use pdes_core::time::{TICKS_PER_UNIT, Ticks, to_ticks};
use serde::{Deserialize, Serialize};

/// Most LPs (2^24: the heatmap's grid and the GPU's counters).
pub const MAX_LPS: u32 = 1 << 24;
/// Most events in flight, LPs × population (2^26 16-byte records: 1 GiB on the GPU).
pub const MAX_EVENTS: u64 = 1 << 26;

/// `model.lps`: logical processes.
pub const LPS: Key = Key::whole_number("model.lps", 1, MAX_LPS as u64);
/// `model.population`: events per LP (LPs × population at most 2^26, checked with it).
pub const POPULATION: Key =
    Key::whole_number("model.population", 1, 1024).noting("lps × population at most 2^26");
/// `model.remote`: the probability that an event goes to another LP.
pub const REMOTE: Key = Key::number_between("model.remote", Bound::Closed(0.0), Bound::Closed(1.0));
/// `model.lookahead`: every delay's fixed part.
pub const LOOKAHEAD: Key =
    Key::number_between("model.lookahead", Bound::OneTick, Bound::Closed(1e6));
/// `model.mean`: the mean of the delay's exponential part.
pub const MEAN: Key = Key::number_between("model.mean", Bound::Closed(0.0), Bound::Open(4096.0));
/// `run.algorithm` of PHOLD.
pub const ALGORITHM: Key = Key::one_of("run.algorithm", &["sequential", "window"]);

/// Every key of a PHOLD preset and what it takes (the registry's table).
pub const KEYS: &[Key] = &[
    crate::keys::KIND,
    LPS,
    POPULATION,
    REMOTE,
    LOOKAHEAD,
    MEAN,
    ALGORITHM,
    crate::keys::END_TIME,
    crate::keys::SEED,
    crate::keys::ENGINE,
];

/// The algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PholdAlgorithm {
    /// One event at a time (CPU only; the ground truth).
    Sequential,
    /// Every event in [t_min, t_min + lookahead) per step (CPU twin or GPU).
    Window,
}

impl PholdAlgorithm {
    /// Name in presets.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sequential => "sequential",
            Self::Window => "window",
        }
    }
}

/// The `[model]` section as written (defaults: the teaching size).
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
struct ModelKeys {
    kind: String,
    lps: u32,
    population: u32,
    remote: f64,
    lookahead: f64,
    mean: f64,
}

impl Default for ModelKeys {
    fn default() -> Self {
        Self {
            kind: "phold".into(),
            lps: 4096,
            population: 1,
            remote: 1.0,
            lookahead: 0.1,
            mean: 1.0,
        }
    }
}

/// The `[run]` section as written.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
struct RunKeys {
    algorithm: String,
    end_time: f64,
    seed: u64,
    engine: EngineKind,
}

impl Default for RunKeys {
    fn default() -> Self {
        Self {
            algorithm: "window".into(),
            end_time: 100.0,
            seed: 1,
            engine: EngineKind::Cpu,
        }
    }
}

/// A preset as written.
type Keys = crate::reading::Sections<ModelKeys, RunKeys>;

/// A validated PHOLD configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct PholdConfig {
    /// Logical processes.
    pub lps: u32,
    /// Events per LP at the start.
    pub population: u32,
    /// Probability that an event's successor goes to a uniformly drawn LP.
    pub remote: f64,
    /// Least increment (the window's width).
    pub lookahead: f64,
    /// Mean of the exponential part of the increment.
    pub mean: f64,
    /// Algorithm.
    pub algorithm: PholdAlgorithm,
    /// Events before this time are processed.
    pub end_time: f64,
    /// Seed.
    pub seed: u64,
    /// Engine.
    pub engine: EngineKind,
}

/// The registry's parser.
pub fn parse(table: &toml::Table) -> Result<Config, PresetError> {
    crate::reading::parse_sections(table, &super::INFO, PholdConfig::validate)
}

impl PholdConfig {
    fn validate(k: Keys) -> Result<Self, PresetError> {
        let m = k.model;
        LPS.whole(m.lps)?;
        POPULATION.whole(m.population)?;
        let events = u64::from(m.lps) * u64::from(m.population);
        if events > MAX_EVENTS {
            return Err(POPULATION.refuse_as(
                m.population,
                format!(
                    "a whole number with model.lps × model.population at most 2^26 (67,108,864) events: at most {} with {} LPs",
                    MAX_EVENTS / u64::from(m.lps),
                    m.lps
                ),
            ));
        }
        REMOTE.number(m.remote)?;
        LOOKAHEAD.number(m.lookahead)?;
        MEAN.number(m.mean)?;
        let r = k.run;
        let algorithm = match r.algorithm.as_str() {
            "sequential" => PholdAlgorithm::Sequential,
            "window" => PholdAlgorithm::Window,
            other => return Err(ALGORITHM.refuse(format!("\"{other}\""))),
        };
        crate::keys::END_TIME.number(r.end_time)?;
        Ok(Self {
            lps: m.lps,
            population: m.population,
            remote: m.remote,
            lookahead: m.lookahead,
            mean: m.mean,
            algorithm,
            end_time: r.end_time,
            seed: r.seed,
            engine: r.engine,
        })
    }

    /// Events in flight (constant: each event schedules exactly one).
    pub fn events_in_flight(&self) -> u32 {
        self.lps * self.population
    }

    /// The end time in ticks.
    pub fn end_ticks(&self) -> Ticks {
        to_ticks(self.end_time)
    }

    /// The lookahead in ticks.
    pub fn lookahead_ticks(&self) -> Ticks {
        to_ticks(self.lookahead)
    }

    /// The model in ticks.
    pub fn law(&self) -> Law {
        Law {
            lps: self.lps,
            delay: ServiceLaw {
                shift: self.lookahead_ticks(),
                scale: (self.mean * TICKS_PER_UNIT).round() as u32,
            },
            remote_q: (self.remote * 4_294_967_296.0).round() as u64,
            seed: self.seed,
        }
    }

    /// The heatmap's grid: the LPs row-major in a square (the last row may be short).
    pub fn grid(&self) -> (u32, u32) {
        let cols = (f64::from(self.lps).sqrt().ceil() as u32).max(1);
        (self.lps.div_ceil(cols), cols)
    }

    /// Events per LP per unit time in the long run: each token's events are a renewal
    /// process with mean gap lookahead + mean, and tokens spread evenly over LPs.
    pub fn event_rate_per_lp(&self) -> f64 {
        f64::from(self.population) / (self.lookahead + self.mean)
    }
}

impl ModelConfig for PholdConfig {
    fn info(&self) -> &'static crate::config::ModelInfo {
        &super::INFO
    }
    fn algorithm_keys(&self) -> (&'static str, Option<&'static str>) {
        (self.algorithm.name(), None)
    }
    fn engine(&self) -> EngineKind {
        self.engine
    }
    fn set_engine(&mut self, engine: EngineKind) {
        self.engine = engine;
    }
    fn end_time(&self) -> f64 {
        self.end_time
    }
    fn shape(&self) -> (u32, u32) {
        self.grid()
    }
    fn to_toml(&self, comment: &str) -> String {
        let keys = Keys {
            model: ModelKeys {
                kind: "phold".into(),
                lps: self.lps,
                population: self.population,
                remote: self.remote,
                lookahead: self.lookahead,
                mean: self.mean,
            },
            run: RunKeys {
                algorithm: self.algorithm.name().into(),
                end_time: self.end_time,
                seed: self.seed,
                engine: self.engine,
            },
        };
        crate::reading::with_comment(comment, toml::to_string(&keys))
    }
    crate::config::model_config_boilerplate!();
}
