//! PHOLD's preset keys (`model.kind = "phold"`), read with serde (`deny_unknown_fields`)
//! and checked by one `validate()` whose errors name the key and the range.

use super::Law;
use crate::preset::{Config, EngineKind, ModelConfig, PresetError, key_err};
use crate::torus::ServiceLaw;
use pdes_core::time::{MAX_TIME_UNITS, TICKS_PER_UNIT, Ticks, to_ticks};
use serde::{Deserialize, Serialize};

/// Every key of a PHOLD preset.
pub const KEYS: &[&str] = &[
    "model.kind",
    "model.lps",
    "model.population",
    "model.remote",
    "model.lookahead",
    "model.mean",
    "run.algorithm",
    "run.end_time",
    "run.seed",
    "run.engine",
];

/// Most LPs (2^24: the heatmap's grid and the GPU's counters).
pub const MAX_LPS: u32 = 1 << 24;
/// Most events in flight, LPs × population (2^26 16-byte records: 1 GiB on the GPU).
pub const MAX_EVENTS: u64 = 1 << 26;

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

#[derive(Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields, default)]
struct Keys {
    model: ModelKeys,
    run: RunKeys,
}

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
    let keys: Keys = crate::config::read_keys(table, &super::INFO)?;
    Ok(Config::new(PholdConfig::validate(keys)?))
}

fn range_err(key: &str, v: impl std::fmt::Display, range: &str) -> PresetError {
    key_err(key, format!("{v} is out of range: expected {range}"))
}

impl PholdConfig {
    fn validate(k: Keys) -> Result<Self, PresetError> {
        let m = k.model;
        if !(1..=MAX_LPS).contains(&m.lps) {
            return Err(range_err(
                "model.lps",
                m.lps,
                &format!("an integer in 1..={MAX_LPS}"),
            ));
        }
        if !(1..=1024).contains(&m.population) {
            return Err(range_err(
                "model.population",
                m.population,
                "an integer in 1..=1024",
            ));
        }
        let events = u64::from(m.lps) * u64::from(m.population);
        if events > MAX_EVENTS {
            return Err(range_err(
                "model.population",
                format!("lps × population = {events}"),
                &format!("at most {MAX_EVENTS} events"),
            ));
        }
        if !(0.0..=1.0).contains(&m.remote) {
            return Err(range_err("model.remote", m.remote, "a number in [0, 1]"));
        }
        if !(m.lookahead * TICKS_PER_UNIT >= 1.0 && m.lookahead <= 1e6) {
            return Err(range_err(
                "model.lookahead",
                m.lookahead,
                "a number in [2^-20, 1e6] (at least one tick, 2^-20 ≈ 9.54e-7)",
            ));
        }
        if !(0.0..4096.0).contains(&m.mean) {
            return Err(range_err("model.mean", m.mean, "a number in [0, 4096)"));
        }
        let r = k.run;
        let algorithm = match r.algorithm.as_str() {
            "sequential" => PholdAlgorithm::Sequential,
            "window" => PholdAlgorithm::Window,
            other => {
                return Err(key_err(
                    "run.algorithm",
                    format!(
                        "\"{other}\" is not an algorithm of phold: expected \"sequential\" or \"window\""
                    ),
                ));
            }
        };
        if !(r.end_time > 0.0 && r.end_time <= MAX_TIME_UNITS) || to_ticks(r.end_time) == 0 {
            return Err(range_err(
                "run.end_time",
                r.end_time,
                "a number in [2^-20, 2^40] (at least one tick)",
            ));
        }
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
        crate::config::with_comment(comment, toml::to_string(&keys))
    }
    crate::config::model_config_boilerplate!();
}
