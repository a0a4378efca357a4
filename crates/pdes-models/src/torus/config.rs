//! The torus's preset keys, read with serde (`deny_unknown_fields`; unknown keys are named
//! with the valid ones by `preset::read_keys`) and checked by one [`TorusConfig::validate`]
//! whose errors name the key and the range. Written back with `toml::to_string`.

use super::{ServiceKind, ServiceLaw, TorusParams};
use crate::preset::{Config, EngineKind, ModelConfig, PresetError, key_err};
use crate::queueing::{Algorithm, QueueingRunKeys, RunConfig, Timestamps};
use pdes_core::time::{Ticks, to_ticks};
use serde::{Deserialize, Serialize};

/// Every key of a torus preset (the registry's list: `--set` and unknown-key messages).
pub const KEYS: &[&str] = &[
    "model.kind",
    "model.rows",
    "model.cols",
    "model.tokens_per_facility",
    "model.mean_service",
    "model.service",
    "run.algorithm",
    "run.timestamps",
    "run.d",
    "run.end_time",
    "run.warmup",
    "run.seed",
    "run.engine",
];

/// The `[model]` section as written (defaults: the 16 × 16 teaching torus).
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
struct ModelKeys {
    kind: String,
    rows: u32,
    cols: u32,
    tokens_per_facility: u32,
    mean_service: f64,
    service: ServiceKind,
}

impl Default for ModelKeys {
    fn default() -> Self {
        Self {
            kind: "torus".into(),
            rows: 16,
            cols: 16,
            tokens_per_facility: 1,
            mean_service: 10.0,
            service: ServiceKind::Shifted,
        }
    }
}

/// The torus's run defaults (keys a preset leaves out).
const RUN_DEFAULTS: RunConfig = RunConfig {
    algorithm: Algorithm::Window,
    timestamps: Timestamps::Original,
    d: 1.0,
    end_time: 1000.0,
    warmup: 0.0,
    seed: 1,
    engine: EngineKind::Cpu,
};

/// A torus preset as written.
#[derive(Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields, default)]
struct Keys {
    model: ModelKeys,
    run: QueueingRunKeys,
}

/// A validated torus configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct TorusConfig {
    /// The torus network.
    pub model: TorusParams,
    /// How it is run.
    pub run: RunConfig,
}

/// The registry's parser: reads and validates a torus preset table.
pub fn parse(table: &toml::Table) -> Result<Config, PresetError> {
    Ok(Config::new(TorusConfig::from_table(table)?))
}

impl TorusConfig {
    /// End time in ticks.
    pub fn end_ticks(&self) -> Ticks {
        to_ticks(self.run.end_time)
    }

    /// The service-time law in ticks.
    pub fn service_law(&self) -> ServiceLaw {
        ServiceLaw::new(self.model.service, self.model.mean_service, self.run.d)
    }

    /// Parses and validates preset text. `origin` names it in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, PresetError> {
        Self::from_table(&crate::config::parse_table(text, origin)?)
    }

    /// Validates a parsed table.
    pub fn from_table(table: &toml::Table) -> Result<Self, PresetError> {
        Self::validate(crate::config::read_keys(table, &super::INFO)?)
    }

    /// Every range of a torus preset, written once; the error names the key and the range.
    fn validate(k: Keys) -> Result<Self, PresetError> {
        let m = k.model;
        for (key, v) in [("model.rows", m.rows), ("model.cols", m.cols)] {
            if !(1..=16384).contains(&v) {
                return Err(key_err(
                    key,
                    format!("{v} is out of range: expected an integer in 1..=16384"),
                ));
            }
        }
        if !(1..=1024).contains(&m.tokens_per_facility) {
            return Err(key_err(
                "model.tokens_per_facility",
                format!(
                    "{} is out of range: expected an integer in 1..=1024",
                    m.tokens_per_facility
                ),
            ));
        }
        let tokens = u64::from(m.rows) * u64::from(m.cols) * u64::from(m.tokens_per_facility);
        if tokens > 1 << 30 {
            return Err(key_err(
                "model.tokens_per_facility",
                format!("rows × cols × tokens_per_facility = {tokens} exceeds 2^30 tokens"),
            ));
        }
        let mean_service = m.mean_service;
        if !(mean_service > 0.0 && mean_service < 4096.0) || to_ticks(mean_service) == 0 {
            return Err(key_err(
                "model.mean_service",
                format!(
                    "{mean_service} is out of range: expected a number in [2^-20, 4096) (at least one tick, 2^-20 ≈ 9.54e-7)"
                ),
            ));
        }
        let run = k.run.validate(
            RUN_DEFAULTS,
            m.service == ServiceKind::Shifted,
            mean_service,
        )?;
        Ok(TorusConfig {
            model: TorusParams {
                rows: m.rows,
                cols: m.cols,
                tokens_per_facility: m.tokens_per_facility,
                mean_service,
                service: m.service,
            },
            run,
        })
    }

    /// The configuration as preset TOML (what "Save preset" writes), with `comment` as its
    /// first line. Reading it back gives the same configuration.
    pub fn to_toml(&self, comment: &str) -> String {
        let m = &self.model;
        let keys = Keys {
            model: ModelKeys {
                kind: "torus".into(),
                rows: m.rows,
                cols: m.cols,
                tokens_per_facility: m.tokens_per_facility,
                mean_service: m.mean_service,
                service: m.service,
            },
            run: QueueingRunKeys::of(&self.run),
        };
        crate::config::with_comment(comment, toml::to_string(&keys))
    }
}

impl ModelConfig for TorusConfig {
    fn info(&self) -> &'static crate::config::ModelInfo {
        &super::INFO
    }
    crate::queueing::queueing_run_accessors!();
    fn shape(&self) -> (u32, u32) {
        (self.model.rows, self.model.cols)
    }
    fn to_toml(&self, comment: &str) -> String {
        TorusConfig::to_toml(self, comment)
    }
    fn warning(&self) -> Option<String> {
        self.run
            .warning(self.model.service == crate::torus::ServiceKind::Shifted)
    }
    crate::config::model_config_boilerplate!();
}
