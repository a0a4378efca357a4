//! The diffusion grid's preset keys, read with serde (`deny_unknown_fields`; unknown keys
//! are named with the valid ones by `preset::read_keys`) and checked by one
//! [`DiffusionConfig::validate`] whose errors name the key and the range. Written back with
//! `toml::to_string`.

use super::{DiffusionParams, MAX_STEP_TICKS};
use crate::preset::{Config, EngineKind, ModelConfig, PresetError, key_err};
use pdes_core::time::{MAX_TIME_UNITS, TICKS_PER_UNIT, Ticks, to_ticks};
use serde::{Deserialize, Serialize};

/// Every key of a diffusion preset (the registry's list: `--set` and unknown-key messages).
pub const KEYS: &[&str] = &[
    "model.kind",
    "model.rows",
    "model.cols",
    "model.alpha_x",
    "model.alpha_y",
    "model.beta",
    "model.boundary",
    "model.initial",
    "model.dx",
    "run.algorithm",
    "run.end_time",
    "run.dt",
    "run.quantum",
    "run.engine",
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

/// A diffusion preset as written.
#[derive(Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields, default)]
struct Keys {
    model: ModelKeys,
    run: DiffusionRun,
}

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
    Ok(Config::new(DiffusionConfig::from_table(table)?))
}

/// A number in [lo, hi] (or (lo, hi] when `open_lo`), naming the key and range on error.
fn check_range(key: &str, v: f64, (lo, hi): (f64, f64), open_lo: bool) -> Result<f64, PresetError> {
    let ok = if open_lo { v > lo } else { v >= lo } && v <= hi;
    if !ok {
        let open = if open_lo { "(" } else { "[" };
        return Err(key_err(
            key,
            format!("{v} is out of range: expected a number in {open}{lo}, {hi}]"),
        ));
    }
    Ok(v)
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
        Self::validate(crate::config::read_keys(table, &super::INFO)?)
    }

    /// Every range of a diffusion preset, written once; the error names the key and the
    /// range.
    fn validate(k: Keys) -> Result<Self, PresetError> {
        const BIG: f64 = 1e6;
        let m = k.model;
        for (key, v) in [("model.rows", m.rows), ("model.cols", m.cols)] {
            if !(1..=16384).contains(&v) {
                return Err(key_err(
                    key,
                    format!("{v} is out of range: expected an integer in 1..=16384"),
                ));
            }
        }
        let model = DiffusionParams {
            rows: m.rows,
            cols: m.cols,
            alpha_x: check_range("model.alpha_x", m.alpha_x, (0.0, BIG), false)?,
            alpha_y: check_range("model.alpha_y", m.alpha_y, (0.0, BIG), false)?,
            beta: check_range("model.beta", m.beta, (-BIG, BIG), false)?,
            boundary: check_range("model.boundary", m.boundary, (-BIG, BIG), false)?,
            initial: check_range("model.initial", m.initial, (-BIG, BIG), false)?,
            dx: check_range("model.dx", m.dx, (0.0, BIG), true)?,
        };
        let run = k.run;
        let end_time = run.end_time;
        if !(end_time > 0.0 && end_time <= MAX_TIME_UNITS) || to_ticks(end_time) == 0 {
            return Err(key_err(
                "run.end_time",
                format!(
                    "{end_time} is out of range: expected a number in [2^-20, 2^40] (at least one tick, 2^-20 ≈ 9.54e-7)"
                ),
            ));
        }
        let max_dt = f64::from(MAX_STEP_TICKS) / TICKS_PER_UNIT;
        let dt = run.dt;
        if !(1.0 / TICKS_PER_UNIT..=max_dt).contains(&dt) {
            return Err(key_err(
                "run.dt",
                format!(
                    "{dt} is out of range: expected a number in [2^-20, 16) (one tick to 2^24 − 1 ticks)"
                ),
            ));
        }
        // the subnormal-free arithmetic (Stencil::zero_below_for) needs β to be 0 or not tiny,
        // and coefficients large enough that the zero threshold stays invisible
        if model.beta != 0.0 && model.beta.abs() < 2f64.powi(-83) {
            return Err(key_err(
                "model.beta",
                format!(
                    "{} is out of range: expected 0 or a magnitude of at least 2^-83 (≈ 1.03e-25)",
                    model.beta
                ),
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
            return Err(key_err(
                "run.dt",
                format!(
                    "{dt} is unstable: the explicit scheme needs dt ≤ dx²/(2(αx+αy)) = {bound}"
                ),
            ));
        }
        check_range("run.quantum", run.quantum, (0.0, BIG), true)?;
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
        crate::config::with_comment(comment, toml::to_string(&keys))
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
