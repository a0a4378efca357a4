//! The DEVS cell spaces' preset keys (`model.kind` = "devs-benchmark" or "sir"), read with
//! serde (`deny_unknown_fields`) and checked by one `validate()` whose errors name the key
//! and the range.

use super::{CellSpace, Neighbourhood, Rule, SirRates};
use crate::preset::{Config, EngineKind, ModelConfig, PresetError, key_err};
use serde::{Deserialize, Serialize};

/// The keys both kinds share.
const SHARED_KEYS: [&str; 8] = [
    "model.kind",
    "model.rows",
    "model.cols",
    "model.neighbourhood",
    "model.wrap",
    "run.algorithm",
    "run.end_time",
    "run.engine",
];

/// Every key of a benchmark preset.
pub const BENCHMARK_KEYS: &[&str] = &[
    SHARED_KEYS[0],
    SHARED_KEYS[1],
    SHARED_KEYS[2],
    SHARED_KEYS[3],
    SHARED_KEYS[4],
    "model.work",
    SHARED_KEYS[5],
    SHARED_KEYS[6],
    SHARED_KEYS[7],
];

/// Every key of an SIR preset.
pub const SIR_KEYS: &[&str] = &[
    SHARED_KEYS[0],
    SHARED_KEYS[1],
    SHARED_KEYS[2],
    SHARED_KEYS[3],
    SHARED_KEYS[4],
    "model.infection_rate",
    "model.contact_rate",
    "model.recovery_rate",
    "model.neighbour_weight",
    SHARED_KEYS[5],
    SHARED_KEYS[6],
    SHARED_KEYS[7],
];

/// Longest side.
pub const MAX_SIDE: u32 = 4000;
/// Most cells (a display pass's dispatch of 256-thread groups stays within 65,535 groups).
pub const MAX_CELLS: u32 = 16_000_000;
/// Most steps.
pub const MAX_END_TIME: u32 = 1_000_000;
/// Most extra arithmetic rounds per benchmark transition (Mesa's lavapipe stops any shader
/// loop after 65,535 iterations).
pub const MAX_WORK: u32 = 60_000;

/// The simulators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DevsAlgorithm {
    /// The classic PDEVS simulator with an event list (CPU only; the ground truth).
    Sequential,
    /// The flattened coordinator's four phases (CPU twin or GPU, by `run.engine`).
    Flattened,
}

impl DevsAlgorithm {
    /// Name in presets.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sequential => "sequential",
            Self::Flattened => "flattened",
        }
    }
}

/// The `[model]` section of either kind as written (each kind refuses the other's keys
/// through its key list).
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
struct ModelKeys {
    kind: String,
    rows: u32,
    cols: u32,
    neighbourhood: Neighbourhood,
    wrap: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    work: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    infection_rate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    contact_rate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    recovery_rate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    neighbour_weight: Option<f64>,
}

impl Default for ModelKeys {
    fn default() -> Self {
        Self {
            kind: "sir".into(),
            rows: 63,
            cols: 63,
            neighbourhood: Neighbourhood::Moore,
            wrap: false,
            work: None,
            infection_rate: None,
            contact_rate: None,
            recovery_rate: None,
            neighbour_weight: None,
        }
    }
}

/// The `[run]` section as written.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
struct RunKeys {
    algorithm: String,
    end_time: u32,
    engine: EngineKind,
}

impl Default for RunKeys {
    fn default() -> Self {
        Self {
            algorithm: "flattened".into(),
            end_time: 1000,
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

/// A validated DEVS configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct DevsConfig {
    /// The grid and its couplings.
    pub space: CellSpace,
    /// The cells' rule.
    pub rule: Rule,
    /// Simulator.
    pub algorithm: DevsAlgorithm,
    /// Last step time (steps at t = 1..=end_time).
    pub end_time: u32,
    /// Engine.
    pub engine: EngineKind,
}

/// The registry's parser of either kind.
pub fn parse(table: &toml::Table) -> Result<Config, PresetError> {
    let kind = crate::preset::kind_of(table).unwrap_or("sir");
    let info = if kind == "sir" {
        &super::SIR_INFO
    } else {
        &super::BENCHMARK_INFO
    };
    let keys: Keys = crate::config::read_keys(table, info)?;
    Ok(Config::new(DevsConfig::validate(keys)?))
}

fn range_err(key: &str, v: impl std::fmt::Display, range: &str) -> PresetError {
    key_err(key, format!("{v} is out of range: expected {range}"))
}

/// A rate key in thousandths: a number in [0, 1] with at most three decimals.
fn thousandths(key: &str, v: Option<f64>, default: u32) -> Result<u32, PresetError> {
    let Some(v) = v else { return Ok(default) };
    let scaled = v * 1000.0;
    if !(0.0..=1.0).contains(&v) || (scaled - scaled.round()).abs() > 1e-6 {
        return Err(range_err(
            key,
            v,
            "a number in [0, 1] with at most three decimals (the state is kept in exact thousandths)",
        ));
    }
    Ok(scaled.round() as u32)
}

impl DevsConfig {
    fn validate(k: Keys) -> Result<Self, PresetError> {
        let m = k.model;
        for (key, v) in [("model.rows", m.rows), ("model.cols", m.cols)] {
            let lo = if m.wrap { 3 } else { 1 };
            if !(lo..=MAX_SIDE).contains(&v) {
                return Err(range_err(
                    key,
                    v,
                    &format!(
                        "an integer in {lo}..={MAX_SIDE}{}",
                        if m.wrap {
                            " (a wrapping grid needs 3 cells a side so that no cell is coupled twice to one neighbour)"
                        } else {
                            ""
                        }
                    ),
                ));
            }
        }
        let cells = u64::from(m.rows) * u64::from(m.cols);
        if cells > u64::from(MAX_CELLS) {
            return Err(range_err(
                "model.rows × model.cols",
                format!("{}×{} = {cells}", m.rows, m.cols),
                &format!("at most {MAX_CELLS} cells"),
            ));
        }
        let rule = match m.kind.as_str() {
            "devs-benchmark" => {
                let work = m.work.unwrap_or(0);
                if work > MAX_WORK {
                    return Err(range_err(
                        "model.work",
                        work,
                        &format!("an integer in 0..={MAX_WORK}"),
                    ));
                }
                Rule::Benchmark { work }
            }
            _ => {
                let d = SirRates::default();
                Rule::Sir(SirRates {
                    infection: thousandths("model.infection_rate", m.infection_rate, d.infection)?,
                    contact: thousandths("model.contact_rate", m.contact_rate, d.contact)?,
                    recovery: thousandths("model.recovery_rate", m.recovery_rate, d.recovery)?,
                    weight: thousandths("model.neighbour_weight", m.neighbour_weight, d.weight)?,
                })
            }
        };
        let r = k.run;
        let (algorithm, engine) = match r.algorithm.as_str() {
            "sequential" => (DevsAlgorithm::Sequential, r.engine),
            "flattened" => (DevsAlgorithm::Flattened, r.engine),
            "flattened-cpu" if r.engine == EngineKind::Gpu => {
                return Err(key_err(
                    "run.engine",
                    "\"gpu\" contradicts run.algorithm = \"flattened-cpu\": expected \"cpu\" (or run.algorithm = \"flattened\")",
                ));
            }
            "flattened-cpu" => (DevsAlgorithm::Flattened, EngineKind::Cpu),
            other => {
                return Err(key_err(
                    "run.algorithm",
                    format!(
                        "\"{other}\" is not an algorithm of {}: expected \"sequential\", \"flattened\" or \"flattened-cpu\"",
                        m.kind
                    ),
                ));
            }
        };
        if !(1..=MAX_END_TIME).contains(&r.end_time) {
            return Err(range_err(
                "run.end_time",
                r.end_time,
                &format!("a whole number of steps in 1..={MAX_END_TIME}"),
            ));
        }
        Ok(Self {
            space: CellSpace {
                rows: m.rows,
                cols: m.cols,
                neighbourhood: m.neighbourhood,
                wrap: m.wrap,
            },
            rule,
            algorithm,
            end_time: r.end_time,
            engine,
        })
    }

    /// `model.kind`.
    pub fn kind_name(&self) -> &'static str {
        match self.rule {
            Rule::Benchmark { .. } => "devs-benchmark",
            Rule::Sir(_) => "sir",
        }
    }
}

impl ModelConfig for DevsConfig {
    fn info(&self) -> &'static crate::config::ModelInfo {
        match self.rule {
            Rule::Benchmark { .. } => &super::BENCHMARK_INFO,
            Rule::Sir(_) => &super::SIR_INFO,
        }
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
        f64::from(self.end_time)
    }
    fn shape(&self) -> (u32, u32) {
        (self.space.rows, self.space.cols)
    }
    fn to_toml(&self, comment: &str) -> String {
        let s = &self.space;
        let rate = |v: u32| Some(f64::from(v) / 1000.0);
        let mut model = ModelKeys {
            kind: self.kind_name().into(),
            rows: s.rows,
            cols: s.cols,
            neighbourhood: s.neighbourhood,
            wrap: s.wrap,
            ..ModelKeys::default()
        };
        match self.rule {
            Rule::Benchmark { work } => model.work = Some(work),
            Rule::Sir(k) => {
                model.infection_rate = rate(k.infection);
                model.contact_rate = rate(k.contact);
                model.recovery_rate = rate(k.recovery);
                model.neighbour_weight = rate(k.weight);
            }
        }
        let keys = Keys {
            model,
            run: RunKeys {
                algorithm: self.algorithm.name().into(),
                end_time: self.end_time,
                engine: self.engine,
            },
        };
        crate::config::with_comment(comment, toml::to_string(&keys))
    }
    crate::config::model_config_boilerplate!();
}
