//! The open network's preset keys, read with serde (`deny_unknown_fields`: an unknown key
//! is named, with the valid ones) and checked by one `validate()` whose errors name the key
//! and the range.

use super::OpenParams;
use crate::models::torus::ServiceKind;
use crate::preset::{
    Algorithm, Config, EngineKind, ModelConfig, PresetError, RunConfig, Timestamps,
};
use crate::time::{TICKS_PER_UNIT, Ticks, to_ticks};
use serde::Deserialize;

/// The `[model]` section as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelKeys {
    /// "open-network" (the registry chose this parser by it).
    #[serde(rename = "kind")]
    _kind: String,
    #[serde(default = "sixteen")]
    lines: u32,
    #[serde(default = "sixteen")]
    servers_per_line: u32,
    #[serde(default = "default_rate")]
    arrival_rate: f64,
    #[serde(default = "default_exit")]
    exit_probability: f64,
    #[serde(default = "default_mean")]
    mean_service: f64,
    #[serde(default = "default_service")]
    service: String,
}

/// The `[run]` section as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RunKeys {
    #[serde(default = "default_algorithm")]
    algorithm: String,
    #[serde(default = "default_timestamps")]
    timestamps: String,
    #[serde(default = "default_d")]
    d: f64,
    #[serde(default = "default_end")]
    end_time: f64,
    #[serde(default = "default_seed")]
    seed: u64,
    #[serde(default = "default_engine")]
    engine: String,
}

/// A preset as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    model: ModelKeys,
    #[serde(default = "default_run")]
    run: RunKeys,
}

fn sixteen() -> u32 {
    16
}
fn default_rate() -> f64 {
    0.4
}
fn default_exit() -> f64 {
    0.25
}
fn default_mean() -> f64 {
    5.0
}
fn default_service() -> String {
    "exponential".into()
}
fn default_algorithm() -> String {
    "interval".into()
}
fn default_timestamps() -> String {
    "boundary".into()
}
fn default_d() -> f64 {
    1.0
}
fn default_end() -> f64 {
    10_000.0
}
fn default_seed() -> u64 {
    1
}
fn default_engine() -> String {
    "cpu".into()
}
fn default_run() -> RunKeys {
    RunKeys {
        algorithm: default_algorithm(),
        timestamps: default_timestamps(),
        d: default_d(),
        end_time: default_end(),
        seed: default_seed(),
        engine: default_engine(),
    }
}

/// A validated open-network configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenConfig {
    /// The network.
    pub model: OpenParams,
    /// The run (the torus's `[run]` keys).
    pub run: RunConfig,
}

fn key_err(key: &str, reason: impl Into<String>) -> PresetError {
    PresetError::Key {
        key: key.to_string(),
        reason: reason.into(),
    }
}

/// One of `valid`, or an error naming the key and the valid words.
fn word<T: Copy>(key: &str, v: &str, valid: &[(&str, T)]) -> Result<T, PresetError> {
    valid
        .iter()
        .find(|(n, _)| *n == v)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            let names: Vec<String> = valid.iter().map(|(n, _)| format!("\"{n}\"")).collect();
            key_err(key, format!("\"{v}\" is not one of {}", names.join(", ")))
        })
}

/// The registry's parser: reads and validates a preset table of the open network.
pub fn parse(table: &toml::Table) -> Result<Config, PresetError> {
    let keys: Keys = table.clone().try_into().map_err(|e: toml::de::Error| {
        key_err(
            "open network",
            format!(
                "{} (keys: {})",
                e.to_string().replace('\n', " ").trim(),
                super::INFO.keys.join(", ")
            ),
        )
    })?;
    Ok(Config::new(OpenConfig::validate(keys)?))
}

impl OpenConfig {
    fn validate(k: Keys) -> Result<Self, PresetError> {
        let service = word(
            "model.service",
            &k.model.service,
            &[
                ("exponential", ServiceKind::Exponential),
                ("shifted", ServiceKind::Shifted),
            ],
        )?;
        let model = OpenParams {
            lines: k.model.lines,
            servers_per_line: k.model.servers_per_line,
            arrival_rate: k.model.arrival_rate,
            exit_probability: k.model.exit_probability,
            mean_service: k.model.mean_service,
            service,
        };
        model.validate().map_err(|e| {
            let (key, reason) = e.split_once(": ").unwrap_or(("model", e.as_str()));
            key_err(key, reason)
        })?;
        let algorithm = word(
            "run.algorithm",
            &k.run.algorithm,
            &[
                ("sequential", Algorithm::Sequential),
                ("window", Algorithm::Window),
                ("interval", Algorithm::Interval),
            ],
        )?;
        let timestamps = word(
            "run.timestamps",
            &k.run.timestamps,
            &[
                ("original", Timestamps::Original),
                ("boundary", Timestamps::Boundary),
            ],
        )?;
        let engine = word(
            "run.engine",
            &k.run.engine,
            &[("cpu", EngineKind::Cpu), ("gpu", EngineKind::Gpu)],
        )?;
        let d = k.run.d;
        if algorithm != Algorithm::Sequential && !(d * TICKS_PER_UNIT >= 1.0 && d <= 1e6) {
            return Err(key_err(
                "run.d",
                format!(
                    "{d} is out of range: {} needs d in [2^-20, 1e6]",
                    algorithm.name()
                ),
            ));
        }
        if service == ServiceKind::Shifted && !(d >= 0.0 && d < model.mean_service) {
            return Err(key_err(
                "run.d",
                format!(
                    "{d} is out of range: shifted service needs 0 ≤ d < model.mean_service = {}",
                    model.mean_service
                ),
            ));
        }
        if algorithm == Algorithm::Window && service != ServiceKind::Shifted {
            return Err(key_err(
                "model.service",
                "run.algorithm = \"window\" needs \"shifted\" service (every service must last at least d)",
            ));
        }
        let end_time = k.run.end_time;
        if !(end_time * TICKS_PER_UNIT >= 1.0 && end_time <= 1e12) {
            return Err(key_err(
                "run.end_time",
                format!(
                    "{end_time} is out of range: expected a number in [2^-20, 1e12] (at least one tick)"
                ),
            ));
        }
        if k.run.seed > i64::MAX as u64 {
            return Err(key_err(
                "run.seed",
                "expected an integer in 0..=9223372036854775807",
            ));
        }
        Ok(Self {
            model,
            run: RunConfig {
                algorithm,
                timestamps,
                d,
                end_time,
                seed: k.run.seed,
                engine,
            },
        })
    }

    /// End time in ticks.
    pub fn end_ticks(&self) -> Ticks {
        to_ticks(self.run.end_time)
    }

    /// The laws in ticks (the shift of shifted service is d).
    pub fn laws(&self) -> super::Laws {
        super::Laws::new(&self.model, self.run.d)
    }
}

impl ModelConfig for OpenConfig {
    fn kind(&self) -> &'static str {
        "open-network"
    }
    crate::preset::queueing_run_accessors!();
    fn shape(&self) -> (u32, u32) {
        (self.model.lines, self.model.servers_per_line)
    }
    fn to_toml(&self, comment: &str) -> String {
        let m = &self.model;
        let r = &self.run;
        let mut model = toml::Table::new();
        model.insert("kind".into(), "open-network".into());
        model.insert("lines".into(), i64::from(m.lines).into());
        model.insert(
            "servers_per_line".into(),
            i64::from(m.servers_per_line).into(),
        );
        model.insert("arrival_rate".into(), m.arrival_rate.into());
        model.insert("exit_probability".into(), m.exit_probability.into());
        model.insert("mean_service".into(), m.mean_service.into());
        model.insert("service".into(), m.service.name().into());
        let mut run = toml::Table::new();
        run.insert("algorithm".into(), r.algorithm.name().into());
        run.insert("timestamps".into(), r.timestamps.name().into());
        run.insert("d".into(), r.d.into());
        run.insert("end_time".into(), r.end_time.into());
        run.insert("seed".into(), (r.seed as i64).into());
        run.insert("engine".into(), r.engine.name().into());
        let table = crate::app::form::preset_table(model, run);
        format!(
            "# {}\n{}",
            comment.replace('\n', " "),
            toml::to_string(&table).unwrap_or_default()
        )
    }
    crate::preset::model_config_boilerplate!();
}
