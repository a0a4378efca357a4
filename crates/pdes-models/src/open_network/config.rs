//! The open network's preset keys, read with serde (`deny_unknown_fields`; unknown keys are
//! named with the valid ones by `preset::read_keys`) and checked by one `validate()` whose
//! errors name the key and the range. Written back with `toml::to_string`.

use super::OpenParams;
use crate::config::{Config, EngineKind, ModelConfig, PresetError};
use crate::keys::{Bound, Key};
use crate::queueing::{Algorithm, QueueingRunKeys, RUN_KEYS, RunConfig, Timestamps};
use crate::torus::ServiceKind;
use crate::torus::config::{MEAN_SERVICE, SERVICE};
use pdes_core::time::{Ticks, to_ticks};
use serde::{Deserialize, Serialize};

/// `model.lines`: tandem lines.
pub const LINES: Key = Key::whole_number("model.lines", 1, 16384);
/// `model.servers_per_line`.
pub const SERVERS_PER_LINE: Key = Key::whole_number("model.servers_per_line", 1, 16384);
/// `model.arrival_rate`: λ, external arrivals per time unit (below the stability bound,
/// checked with the other keys).
pub const ARRIVAL_RATE: Key =
    Key::number_between("model.arrival_rate", Bound::Open(0.0), Bound::Closed(1e6))
        .noting("below lines · exit_probability / mean_service (ρ < 1)");
/// `model.exit_probability`: P_exit after a line's last server.
pub const EXIT_PROBABILITY: Key = Key::number_between(
    "model.exit_probability",
    Bound::Open(0.0),
    Bound::Closed(1.0),
);

/// Every key of an open-network preset and what it takes (the registry's table).
pub const KEYS: &[Key] = &crate::keys::joined::<14>(
    &[
        crate::keys::KIND,
        LINES,
        SERVERS_PER_LINE,
        ARRIVAL_RATE,
        EXIT_PROBABILITY,
        MEAN_SERVICE,
        SERVICE,
    ],
    &RUN_KEYS,
);

/// The `[model]` section as written (defaults: paper 002's 16 × 16 network at ρ = 0.5).
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
struct ModelKeys {
    kind: String,
    lines: u32,
    servers_per_line: u32,
    arrival_rate: f64,
    exit_probability: f64,
    mean_service: f64,
    service: ServiceKind,
}

impl Default for ModelKeys {
    fn default() -> Self {
        Self {
            kind: "open-network".into(),
            lines: 16,
            servers_per_line: 16,
            arrival_rate: 0.4,
            exit_probability: 0.25,
            mean_service: 5.0,
            service: ServiceKind::Exponential,
        }
    }
}

/// The open network's run defaults (keys a preset leaves out): interval/boundary, TI = 1.
const RUN_DEFAULTS: RunConfig = RunConfig {
    algorithm: Algorithm::Interval,
    timestamps: Timestamps::Boundary,
    d: 1.0,
    end_time: 10_000.0,
    warmup: 0.0,
    seed: 1,
    engine: EngineKind::Cpu,
};

/// A preset as written.
type Keys = crate::config::Sections<ModelKeys, QueueingRunKeys>;

/// A validated open-network configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenConfig {
    /// The network.
    pub model: OpenParams,
    /// The run (the torus's `[run]` keys).
    pub run: RunConfig,
}

/// The registry's parser: reads and validates a preset table of the open network.
pub fn parse(table: &toml::Table) -> Result<Config, PresetError> {
    crate::config::parse_sections(table, &super::INFO, OpenConfig::validate)
}

impl OpenConfig {
    /// Every range of an open-network preset: the network's in [`OpenParams::validate`]
    /// (stability included), the run's shared with the torus.
    fn validate(k: Keys) -> Result<Self, PresetError> {
        let m = k.model;
        let model = OpenParams {
            lines: m.lines,
            servers_per_line: m.servers_per_line,
            arrival_rate: m.arrival_rate,
            exit_probability: m.exit_probability,
            mean_service: m.mean_service,
            service: m.service,
        };
        model.validate()?;
        let run = k.run.validate(
            RUN_DEFAULTS,
            model.service == ServiceKind::Shifted,
            model.mean_service,
        )?;
        Ok(Self { model, run })
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
    fn info(&self) -> &'static crate::config::ModelInfo {
        &super::INFO
    }
    crate::queueing::queueing_run_accessors!();
    fn shape(&self) -> (u32, u32) {
        (self.model.lines, self.model.servers_per_line)
    }
    fn to_toml(&self, comment: &str) -> String {
        let m = &self.model;
        let keys = Keys {
            model: ModelKeys {
                kind: "open-network".into(),
                lines: m.lines,
                servers_per_line: m.servers_per_line,
                arrival_rate: m.arrival_rate,
                exit_probability: m.exit_probability,
                mean_service: m.mean_service,
                service: m.service,
            },
            run: QueueingRunKeys::of(&self.run),
        };
        crate::config::with_comment(comment, toml::to_string(&keys))
    }
    fn warning(&self) -> Option<String> {
        self.run
            .warning(self.model.service == crate::torus::ServiceKind::Shifted)
    }
    crate::config::model_config_boilerplate!();
}
