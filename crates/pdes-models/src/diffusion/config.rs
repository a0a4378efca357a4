//! The diffusion grid's preset keys, read with serde (`deny_unknown_fields`; unknown keys
//! are named with the valid ones by `preset::read_keys`) and checked by one
//! [`DiffusionConfig::validate`] whose errors name the key and the range. Written back with
//! `toml::to_string`.

use super::{DiffusionParams, MAX_STEP_TICKS};
use crate::config::{Config, EngineKind, ModelConfig, PresetError, key_err};
use crate::keys::{Bound, COLS, END_TIME, Key, ROWS, Valid};
use pdes_core::time::{TICKS_PER_UNIT, Ticks, to_ticks};
use serde::{Deserialize, Serialize};

/// A coefficient's bound: magnitudes up to a million.
const BIG: f64 = 1e6;
/// A number from `low` up to a million.
const fn up_to_big(low: Bound) -> Valid {
    Valid::Number {
        low,
        high: Bound::Closed(BIG),
    }
}
/// `model.alpha_x`: the diffusivity along x.
pub const ALPHA_X: Key = Key::taking("model.alpha_x", up_to_big(Bound::Closed(0.0)));
/// `model.alpha_y`: the diffusivity along y.
pub const ALPHA_Y: Key = Key::taking("model.alpha_y", up_to_big(Bound::Closed(0.0)));
/// `model.beta`: the source term's coefficient (0, or a magnitude of at least 2^-83,
/// checked with the others).
pub const BETA: Key = Key::taking("model.beta", up_to_big(Bound::Closed(-BIG)))
    .noting("0, or a magnitude of at least 2^-83");
/// `model.boundary`: the edges' fixed temperature.
pub const BOUNDARY: Key = Key::taking("model.boundary", up_to_big(Bound::Closed(-BIG)));
/// `model.initial`: every cell's temperature at t = 0.
pub const INITIAL: Key = Key::taking("model.initial", up_to_big(Bound::Closed(-BIG)));
/// `model.dx`: the grid spacing.
pub const DX: Key = Key::taking("model.dx", up_to_big(Bound::Open(0.0)));
/// `run.algorithm` of diffusion.
pub const ALGORITHM: Key = Key::one_of("run.algorithm", &["timestepped", "event", "hybrid"]);
/// `run.dt`: timestepped's fixed step, one tick to 2^24 − 1 ticks (below the stability
/// bound, checked with the model).
pub const DT: Key = Key::number_between("run.dt", Bound::OneTick, Bound::Open(16.0))
    .noting("at most the stability bound dx²/(2(αx+αy)) for timestepped");
/// `run.quantum`: the quantized state's quantum (event and hybrid).
pub const QUANTUM: Key = Key::taking("run.quantum", up_to_big(Bound::Open(0.0)));

/// Every key of a diffusion preset and what it takes (the registry's table).
pub const KEYS: &[Key] = &[
    crate::keys::KIND,
    ROWS,
    COLS,
    ALPHA_X,
    ALPHA_Y,
    BETA,
    BOUNDARY,
    INITIAL,
    DX,
    ALGORITHM,
    END_TIME,
    DT,
    QUANTUM,
    crate::keys::ENGINE,
];

/// The diffusion algorithms (Perumalla 2006 §3.2–3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DiffusionAlgorithm {
    /// Every cell advances by the fixed step `dt` (Fig. 3).
    Timestepped,
    /// Quantized-state discrete events, one cell at a time from a priority queue (Fig. 6).
    Event,
    /// Every cell proposes the time to move one quantum; all advance by the minimum (Fig. 8).
    Hybrid,
}

impl DiffusionAlgorithm {
    /// Name in presets and output.
    pub fn name(self) -> &'static str {
        match self {
            Self::Timestepped => "timestepped",
            Self::Event => "event",
            Self::Hybrid => "hybrid",
        }
    }
}

/// The `[model]` section as written (defaults: a 64 × 64 plate heated from its edges).
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
struct ModelKeys {
    kind: String,
    rows: u32,
    cols: u32,
    alpha_x: f64,
    alpha_y: f64,
    beta: f64,
    boundary: f64,
    initial: f64,
    dx: f64,
}

impl Default for ModelKeys {
    fn default() -> Self {
        Self {
            kind: "diffusion".into(),
            rows: 64,
            cols: 64,
            alpha_x: 1.0,
            alpha_y: 1.0,
            beta: 0.0,
            boundary: 100.0,
            initial: 0.0,
            dx: 1.0,
        }
    }
}

/// The `[run]` section of a diffusion preset.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct DiffusionRun {
    /// Algorithm.
    pub algorithm: DiffusionAlgorithm,
    /// Simulated end time.
    pub end_time: f64,
    /// Fixed step of `timestepped`.
    pub dt: f64,
    /// Quantum of `event` and `hybrid`: how far a cell may move before it is updated.
    pub quantum: f64,
    /// Engine.
    pub engine: EngineKind,
}

impl Default for DiffusionRun {
    fn default() -> Self {
        Self {
            algorithm: DiffusionAlgorithm::Hybrid,
            end_time: 100.0,
            dt: 0.01,
            quantum: 0.1,
            engine: EngineKind::Cpu,
        }
    }
}

/// A preset as written.
type Keys = crate::reading::Sections<ModelKeys, DiffusionRun>;

/// A validated diffusion configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffusionConfig {
    /// The grid.
    pub model: DiffusionParams,
    /// How it is run.
    pub run: DiffusionRun,
}

/// The registry's parser: reads and validates a diffusion preset table.
pub fn parse(table: &toml::Table) -> Result<Config, PresetError> {
    crate::reading::parse_sections(table, &super::INFO, DiffusionConfig::validate)
}

impl DiffusionConfig {
    /// End time in ticks.
    pub fn end_ticks(&self) -> Ticks {
        to_ticks(self.run.end_time)
    }

    /// The fixed step of `timestepped` in ticks (dt rounded to the nearest tick).
    pub fn dt_ticks(&self) -> u32 {
        to_ticks(self.run.dt) as u32
    }

    /// Validates a parsed table.
    pub fn from_table(table: &toml::Table) -> Result<Self, PresetError> {
        Self::validate(crate::reading::read_keys(table, &super::INFO)?)
    }

    /// Every range of a diffusion preset, written once; the error names the key and the
    /// range.
    fn validate(k: Keys) -> Result<Self, PresetError> {
        let m = k.model;
        let model = DiffusionParams {
            rows: ROWS.whole(m.rows)?,
            cols: COLS.whole(m.cols)?,
            alpha_x: ALPHA_X.number(m.alpha_x)?,
            alpha_y: ALPHA_Y.number(m.alpha_y)?,
            beta: BETA.number(m.beta)?,
            boundary: BOUNDARY.number(m.boundary)?,
            initial: INITIAL.number(m.initial)?,
            dx: DX.number(m.dx)?,
        };
        let run = k.run;
        END_TIME.number(run.end_time)?;
        let dt = DT.number(run.dt)?;
        if to_ticks(dt) > u64::from(MAX_STEP_TICKS) {
            return Err(DT.refuse(dt));
        }
        // the subnormal-free arithmetic (Stencil::zero_below_for) needs β to be 0 or not tiny,
        // and coefficients large enough that the zero threshold stays invisible
        if model.beta != 0.0 && model.beta.abs() < 2f64.powi(-83) {
            return Err(BETA.refuse_as(
                model.beta,
                "0, or a number of magnitude from 2^-83 (≈ 1.03e-25) to 1,000,000",
            ));
        }
        let st = model.stencil();
        let scale = model.boundary.abs().max(model.initial.abs()).max(1.0);
        if f64::from(st.zero_below) > 1e-9 * scale {
            return Err(key_err(
                "model.alpha_x",
                format!(
                    "αx/dx² = {:e} and αy/dx² = {:e} are so small that temperatures below {:e} would count as 0 (the limit is 1e-9 of the temperature scale {scale}): raise alpha_x/alpha_y or lower dx",
                    st.ax, st.ay, st.zero_below
                ),
            ));
        }
        let bound = model.stability_bound();
        // a grid that moves faster than one tick cannot be stepped stably by any engine (the
        // clock is integer ticks): refuse it instead of letting it blow up
        if bound * TICKS_PER_UNIT < 1.0 {
            return Err(key_err(
                "model.alpha_x",
                format!(
                    "the stability bound dx²/(2(αx+αy)) = {bound:e} is below one tick (2^-20 ≈ 9.54e-7): lower alpha_x/alpha_y or raise dx"
                ),
            ));
        }
        if run.algorithm == DiffusionAlgorithm::Timestepped && dt > bound {
            // printed in full, so that the number shown is itself accepted
            return Err(DT.refuse_as(
                dt,
                format!(
                    "a number from one tick to dx²/(2(αx+αy)) = {bound} (the explicit scheme is unstable above it)"
                ),
            ));
        }
        QUANTUM.number(run.quantum)?;
        if run.engine == EngineKind::Gpu && run.algorithm == DiffusionAlgorithm::Event {
            return Err(key_err(
                "run.engine",
                "\"gpu\" runs \"timestepped\" and \"hybrid\"; \"event\" (one cell at a time from a priority queue) runs on the CPU",
            ));
        }
        Ok(DiffusionConfig { model, run })
    }

    /// The configuration as preset TOML, with `comment` as its first line.
    pub fn to_toml(&self, comment: &str) -> String {
        let m = &self.model;
        let keys = Keys {
            model: ModelKeys {
                kind: "diffusion".into(),
                rows: m.rows,
                cols: m.cols,
                alpha_x: m.alpha_x,
                alpha_y: m.alpha_y,
                beta: m.beta,
                boundary: m.boundary,
                initial: m.initial,
                dx: m.dx,
            },
            run: self.run.clone(),
        };
        crate::reading::with_comment(comment, toml::to_string(&keys))
    }
}

impl ModelConfig for DiffusionConfig {
    fn info(&self) -> &'static crate::config::ModelInfo {
        &super::INFO
    }
    fn algorithm_keys(&self) -> (&'static str, Option<&'static str>) {
        (self.run.algorithm.name(), None)
    }
    fn engine(&self) -> EngineKind {
        self.run.engine
    }
    fn set_engine(&mut self, engine: EngineKind) {
        self.run.engine = engine;
    }
    fn end_time(&self) -> f64 {
        self.run.end_time
    }
    fn shape(&self) -> (u32, u32) {
        (self.model.rows, self.model.cols)
    }
    fn to_toml(&self, comment: &str) -> String {
        DiffusionConfig::to_toml(self, comment)
    }
    crate::config::model_config_boilerplate!();
}
