//! The DEVS cell spaces' preset keys (`model.kind` = "devs-benchmark" or "sir"), read with
//! serde (`deny_unknown_fields`) and checked by one `validate()` whose errors name the key
//! and the range.

use super::{CellSpace, Neighbourhood, Rule, SirRates};
use crate::config::{Config, EngineKind, ModelConfig, PresetError, key_err};
use crate::keys::{Key, Valid};
use serde::{Deserialize, Serialize};

/// `model.rows` of a cell space (at least 3 with wrap, checked with it).
pub const ROWS: Key = Key::whole_number("model.rows", 1, MAX_SIDE as u64)
    .noting("at least 3 with model.wrap = true; rows × cols at most 16,000,000");
/// `model.cols` of a cell space.
pub const COLS: Key = Key::whole_number("model.cols", 1, MAX_SIDE as u64)
    .noting("at least 3 with model.wrap = true; rows × cols at most 16,000,000");
/// `model.neighbourhood`: which cells are coupled to a cell.
pub const NEIGHBOURHOOD: Key = Key::one_of("model.neighbourhood", &["moore", "von-neumann"]);
/// `model.wrap`: whether the grid wraps around its edges.
pub const WRAP: Key = Key::taking("model.wrap", Valid::Flag);
/// `model.work`: extra arithmetic rounds per benchmark transition.
pub const WORK: Key = Key::whole_number("model.work", 0, MAX_WORK as u64);
/// An SIR rate, kept in exact thousandths.
const RATE: Valid = Valid::Words(
    "a number from 0 to 1 with at most three decimals (the state is kept in exact thousandths)",
);
/// `model.infection_rate`.
pub const INFECTION_RATE: Key = Key::taking("model.infection_rate", RATE);
/// `model.contact_rate`.
pub const CONTACT_RATE: Key = Key::taking("model.contact_rate", RATE);
/// `model.recovery_rate`.
pub const RECOVERY_RATE: Key = Key::taking("model.recovery_rate", RATE);
/// `model.neighbour_weight`.
pub const NEIGHBOUR_WEIGHT: Key = Key::taking("model.neighbour_weight", RATE);
/// `run.algorithm` of the DEVS cell spaces.
pub const ALGORITHM: Key = Key::one_of(
    "run.algorithm",
    &["sequential", "flattened", "flattened-cpu"],
);
/// `run.end_time`: whole steps.
pub const END_TIME: Key = Key::whole_number("run.end_time", 1, MAX_END_TIME as u64);

/// Every key of a benchmark preset and what it takes (the registry's table).
pub const BENCHMARK_KEYS: &[Key] = &[
    crate::keys::KIND,
    ROWS,
    COLS,
    NEIGHBOURHOOD,
    WRAP,
    WORK,
    ALGORITHM,
    END_TIME,
    crate::keys::ENGINE,
];

/// Every key of an SIR preset and what it takes (the registry's table).
pub const SIR_KEYS: &[Key] = &[
    crate::keys::KIND,
    ROWS,
    COLS,
    NEIGHBOURHOOD,
    WRAP,
    INFECTION_RATE,
    CONTACT_RATE,
    RECOVERY_RATE,
    NEIGHBOUR_WEIGHT,
    ALGORITHM,
    END_TIME,
    crate::keys::ENGINE,
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

/// A preset as written.
type Keys = crate::reading::Sections<ModelKeys, RunKeys>;

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
    // the registry chose this parser by model.kind, so it is one of the two (read here,
    // not through `preset`, which sits above the models)
    let kind = table
        .get("model")
        .and_then(|m| m.get("kind"))
        .and_then(toml::Value::as_str)
        .unwrap_or("sir");
    let info = if kind == "sir" {
        &super::SIR_INFO
    } else {
        &super::BENCHMARK_INFO
    };
    let keys: Keys = crate::reading::read_keys(table, info)?;
    Ok(Config::new(DevsConfig::validate(keys)?))
}

/// A rate key in thousandths: a number in [0, 1] with at most three decimals (1e-300 is
/// not 0: a value that three decimals do not write exactly is refused).
fn thousandths(key: &Key, v: Option<f64>, default: u32) -> Result<u32, PresetError> {
    let Some(v) = v else { return Ok(default) };
    let kept = (v * 1000.0).round();
    if !(0.0..=1.0).contains(&v) || (kept / 1000.0 - v).abs() > 1e-12 * v.abs() {
        return Err(key.refuse(v));
    }
    Ok(kept as u32)
}

impl DevsConfig {
    fn validate(k: Keys) -> Result<Self, PresetError> {
        let m = k.model;
        for (key, v) in [(ROWS, m.rows), (COLS, m.cols)] {
            key.whole(v)?;
            if m.wrap && v < 3 {
                return Err(key.refuse_as(
                    v,
                    format!(
                        "a whole number from 3 to {} with model.wrap = true (so that no cell is coupled twice to one neighbour)",
                        crate::keys::grouped(u64::from(MAX_SIDE))
                    ),
                ));
            }
        }
        let cells = u64::from(m.rows) * u64::from(m.cols);
        if cells > u64::from(MAX_CELLS) {
            return Err(COLS.refuse_as(
                m.cols,
                format!(
                    "a whole number with model.rows × model.cols at most {} cells: at most {} with {} rows",
                    crate::keys::grouped(u64::from(MAX_CELLS)),
                    u64::from(MAX_CELLS) / u64::from(m.rows),
                    m.rows
                ),
            ));
        }
        let rule = match m.kind.as_str() {
            "devs-benchmark" => Rule::Benchmark {
                work: WORK.whole(m.work.unwrap_or(0))?,
            },
            _ => {
                let d = SirRates::default();
                Rule::Sir(SirRates {
                    infection: thousandths(&INFECTION_RATE, m.infection_rate, d.infection)?,
                    contact: thousandths(&CONTACT_RATE, m.contact_rate, d.contact)?,
                    recovery: thousandths(&RECOVERY_RATE, m.recovery_rate, d.recovery)?,
                    weight: thousandths(&NEIGHBOUR_WEIGHT, m.neighbour_weight, d.weight)?,
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
            other => return Err(ALGORITHM.refuse(format!("\"{other}\""))),
        };
        END_TIME.whole(r.end_time)?;
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
        crate::reading::with_comment(comment, toml::to_string(&keys))
    }
    crate::config::model_config_boilerplate!();
}
