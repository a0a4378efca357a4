//! The torus's preset keys, read with serde (`deny_unknown_fields`; unknown keys are named
//! with the valid ones by `preset::read_keys`) and checked by one [`TorusConfig::validate`]
//! whose errors name the key and the range. Written back with `toml::to_string`.

use super::{ServiceKind, ServiceLaw, TorusParams};
use crate::config::{Config, EngineKind, ModelConfig, PresetError};
use crate::keys::{Bound, Key};
use crate::queueing::{Algorithm, QueueingRunKeys, RUN_KEYS, RunConfig, Timestamps};
use pdes_core::time::{Ticks, to_ticks};
use serde::{Deserialize, Serialize};

use crate::keys::{COLS, ROWS};

/// `model.tokens_per_facility`: P, the tokens that start at every facility.
pub const TOKENS_PER_FACILITY: Key = Key::whole_number("model.tokens_per_facility", 1, 1024)
    .noting("rows × cols × tokens_per_facility at most 2^30");
/// `model.mean_service`: M, the queueing models' mean service time.
pub const MEAN_SERVICE: Key =
    Key::number_between("model.mean_service", Bound::OneTick, Bound::Open(4096.0));
/// `model.service`: the service-time law of the queueing models.
pub const SERVICE: Key = Key::one_of("model.service", &["exponential", "shifted"]);

/// Every key of a torus preset and what it takes (the registry's table: `--set`,
/// unknown-key messages, refusals, `presets`, the window's hints).
pub const KEYS: &[Key] = &crate::keys::joined::<13>(
    &[
        crate::keys::KIND,
        ROWS,
        COLS,
        TOKENS_PER_FACILITY,
        MEAN_SERVICE,
        SERVICE,
    ],
    &RUN_KEYS,
);

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

/// A preset as written.
type Keys = crate::reading::Sections<ModelKeys, QueueingRunKeys>;

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
    crate::reading::parse_sections(table, &super::INFO, TorusConfig::validate)
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
        Self::from_table(&crate::reading::parse_table(text, origin)?)
    }

    /// Validates a parsed table.
    pub fn from_table(table: &toml::Table) -> Result<Self, PresetError> {
        Self::validate(crate::reading::read_keys(table, &super::INFO)?)
    }

    /// Every range of a torus preset, written once; the error names the key and the range.
    fn validate(k: Keys) -> Result<Self, PresetError> {
        let m = k.model;
        ROWS.whole(m.rows)?;
        COLS.whole(m.cols)?;
        TOKENS_PER_FACILITY.whole(m.tokens_per_facility)?;
        let tokens = u64::from(m.rows) * u64::from(m.cols) * u64::from(m.tokens_per_facility);
        if tokens > 1 << 30 {
            return Err(TOKENS_PER_FACILITY.refuse_as(
                m.tokens_per_facility,
                format!(
                    "a whole number with rows × cols × tokens_per_facility at most 2^30 (1,073,741,824) tokens: at most {} on a {}×{} torus",
                    (1u64 << 30) / (u64::from(m.rows) * u64::from(m.cols)),
                    m.rows,
                    m.cols
                ),
            ));
        }
        let mean_service = MEAN_SERVICE.number(m.mean_service)?;
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
        crate::reading::with_comment(comment, toml::to_string(&keys))
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
