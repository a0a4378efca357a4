//! Presets: TOML files → a validated [`Config`] of any registered model (`model.kind`
//! chooses the model's parser in the registry). Still here, to move into their folders: the
//! torus's and the diffusion grid's configuration types, their readers and key table.
//!
//! Keys are dotted paths (`model.rows`, `run.d`, …). Every error is one line that names the
//! key (or file) and the valid range, so the command line and the app can show it as is.
//! Validation is done by hand rather than by serde so that each message can say exactly
//! which key is wrong and what it accepts.

use crate::models::diffusion::{DiffusionParams, MAX_STEP_TICKS};
use crate::models::torus::{ServiceKind, ServiceLaw, TorusParams};
use crate::time::{MAX_TIME_UNITS, TICKS_PER_UNIT, Ticks, to_ticks};
use std::path::Path;

/// A preset that could not be read or is invalid.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PresetError {
    /// The preset file could not be read.
    #[error("preset {path}: {reason}")]
    File {
        /// The file or name given.
        path: String,
        /// Why it could not be read.
        reason: String,
    },
    /// A key has a bad value, or is unknown.
    #[error("{key}: {reason}")]
    Key {
        /// Dotted key.
        key: String,
        /// What is wrong and what is valid.
        reason: String,
    },
}

/// A value as an error message shows it: at most 40 characters (a 50 MB value must not be
/// echoed whole), with the cut marked.
fn echo(v: &impl std::fmt::Display) -> String {
    let s = v.to_string();
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}… ({} characters)", &s[..i], s.chars().count()),
        None => s,
    }
}

fn key_err(key: &str, reason: impl Into<String>) -> PresetError {
    PresetError::Key {
        key: key.to_string(),
        reason: reason.into(),
    }
}

/// How the events of a step are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// One event at a time from a future event list (exact).
    Sequential,
    /// Every event in [t_min, t_min + d) (exact with shifted service; Sang et al.).
    Window,
    /// Every event up to the next multiple of d (Park & Fishwick; approximate).
    Interval,
}

impl Algorithm {
    /// Name in presets and output.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sequential => "sequential",
            Self::Window => "window",
            Self::Interval => "interval",
        }
    }
}

/// Which timestamps clustered events of `interval` keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timestamps {
    /// Their own (causality errors happen).
    Original,
    /// The interval boundary (no ordering violation, biased statistics).
    Boundary,
}

impl Timestamps {
    /// Name in presets and output.
    pub fn name(self) -> &'static str {
        match self {
            Self::Original => "original",
            Self::Boundary => "boundary",
        }
    }
}

/// Where the simulation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// On the CPU.
    Cpu,
    /// On the GPU through wgpu.
    Gpu,
}

impl EngineKind {
    /// Name in presets and output.
    pub fn name(self) -> &'static str {
        match self {
            Self::Cpu => "cpu",
            Self::Gpu => "gpu",
        }
    }
}

/// The `[run]` section.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    /// Algorithm.
    pub algorithm: Algorithm,
    /// Timestamps of `interval`.
    pub timestamps: Timestamps,
    /// The interval d (window width, interval length, and shift of shifted service).
    pub d: f64,
    /// Simulated end time T: every event earlier than T is processed.
    pub end_time: f64,
    /// Random seed.
    pub seed: u64,
    /// Engine.
    pub engine: EngineKind,
}

impl RunConfig {
    /// (run.algorithm, run.timestamps for interval): the registry's key of the algorithm.
    pub fn algorithm_keys(&self) -> (&'static str, Option<&'static str>) {
        (
            self.algorithm.name(),
            (self.algorithm == Algorithm::Interval).then(|| self.timestamps.name()),
        )
    }
}

/// A validated configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct TorusConfig {
    /// The torus network.
    pub model: TorusParams,
    /// How it is run.
    pub run: RunConfig,
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
        Self::from_table(&parse_table(text, origin)?)
    }

    /// The configuration as preset TOML (what "Save preset" writes), with `comment` as its
    /// first line. Reading it back gives the same configuration.
    pub fn to_toml(&self, comment: &str) -> String {
        let m = &self.model;
        let r = &self.run;
        format!(
            "# {}\n[model]\nkind = \"torus\"\nrows = {}\ncols = {}\ntokens_per_facility = {}\nmean_service = {:?}\nservice = \"{}\"\n\n[run]\nalgorithm = \"{}\"\ntimestamps = \"{}\"\nd = {:?}\nend_time = {:?}\nseed = {}\nengine = \"{}\"\n",
            comment.replace('\n', " "),
            m.rows,
            m.cols,
            m.tokens_per_facility,
            m.mean_service,
            m.service.name(),
            r.algorithm.name(),
            r.timestamps.name(),
            r.d,
            r.end_time,
            r.seed,
            r.engine.name()
        )
    }

    /// Validates a parsed table.
    pub fn from_table(table: &toml::Table) -> Result<Self, PresetError> {
        Reader::new(table)?.read_torus()
    }
}

/// Parses preset text into a table; `origin` names it in the error.
fn parse_table(text: &str, origin: &str) -> Result<toml::Table, PresetError> {
    text.parse()
        .map_err(|e: toml::de::Error| PresetError::File {
            path: origin.to_string(),
            reason: format!("malformed TOML: {}", e.message().replace('\n', " ")),
        })
}

/// The diffusion algorithms (Perumalla 2006 §3.2–3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// The `[run]` section of a diffusion preset.
#[derive(Clone, Debug, PartialEq)]
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

/// A validated diffusion configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffusionConfig {
    /// The grid.
    pub model: DiffusionParams,
    /// How it is run.
    pub run: DiffusionRun,
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

    /// The configuration as preset TOML, with `comment` as its first line.
    pub fn to_toml(&self, comment: &str) -> String {
        let m = &self.model;
        let r = &self.run;
        format!(
            "# {}\n[model]\nkind = \"diffusion\"\nrows = {}\ncols = {}\nalpha_x = {:?}\nalpha_y = {:?}\nbeta = {:?}\nboundary = {:?}\ninitial = {:?}\ndx = {:?}\n\n[run]\nalgorithm = \"{}\"\nend_time = {:?}\ndt = {:?}\nquantum = {:?}\nengine = \"{}\"\n",
            comment.replace('\n', " "),
            m.rows,
            m.cols,
            m.alpha_x,
            m.alpha_y,
            m.beta,
            m.boundary,
            m.initial,
            m.dx,
            r.algorithm.name(),
            r.end_time,
            r.dt,
            r.quantum,
            r.engine.name()
        )
    }
}

/// What every model's validated configuration offers the generic code (engine factory,
/// command line, app). Each model implements it for its own configuration type; the
/// registry's `parse` builds one from a preset table.
pub trait ModelConfig: std::fmt::Debug + Send + Sync + 'static {
    /// `model.kind`.
    fn kind(&self) -> &'static str;
    /// (run.algorithm, run.timestamps for the algorithms that have it).
    fn algorithm_keys(&self) -> (&'static str, Option<&'static str>);
    /// Where it runs.
    fn engine(&self) -> EngineKind;
    /// Moves the run to `engine`.
    fn set_engine(&mut self, engine: EngineKind);
    /// End time in time units, as written.
    fn end_time(&self) -> f64;
    /// (rows, cols) of the heatmap.
    fn shape(&self) -> (u32, u32);
    /// The configuration as preset TOML.
    fn to_toml(&self, comment: &str) -> String;
    /// A copy.
    fn clone_box(&self) -> Box<dyn ModelConfig>;
    /// Equality with another model's configuration (false across models).
    fn eq_dyn(&self, other: &dyn ModelConfig) -> bool;
    /// The configuration as `Any`, for its model's own code ([`Config::get`]).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A validated configuration of any model: the model's own configuration behind
/// [`ModelConfig`]. Its model's code reaches the typed configuration with [`Config::get`].
#[derive(Debug)]
pub struct Config(Box<dyn ModelConfig>);

impl Clone for Config {
    fn clone(&self) -> Self {
        Self(self.0.clone_box())
    }
}

impl PartialEq for Config {
    fn eq(&self, other: &Self) -> bool {
        self.0.eq_dyn(other.0.as_ref())
    }
}

/// Implements [`ModelConfig`]'s run accessors for a configuration whose `run` is a
/// [`RunConfig`] (the torus's run keys, shared by the queueing models).
macro_rules! queueing_run_accessors {
    () => {
        fn algorithm_keys(&self) -> (&'static str, Option<&'static str>) {
            self.run.algorithm_keys()
        }
        fn engine(&self) -> $crate::preset::EngineKind {
            self.run.engine
        }
        fn set_engine(&mut self, engine: $crate::preset::EngineKind) {
            self.run.engine = engine;
        }
        fn end_time(&self) -> f64 {
            self.run.end_time
        }
    };
}
pub(crate) use queueing_run_accessors;

/// Implements [`ModelConfig`]'s copy, equality and `Any` for a configuration type.
macro_rules! model_config_boilerplate {
    () => {
        fn clone_box(&self) -> Box<dyn $crate::preset::ModelConfig> {
            Box::new(self.clone())
        }
        fn eq_dyn(&self, other: &dyn $crate::preset::ModelConfig) -> bool {
            other.as_any().downcast_ref::<Self>() == Some(self)
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    };
}
pub(crate) use model_config_boilerplate;

impl ModelConfig for TorusConfig {
    fn kind(&self) -> &'static str {
        "torus"
    }
    queueing_run_accessors!();
    fn shape(&self) -> (u32, u32) {
        (self.model.rows, self.model.cols)
    }
    fn to_toml(&self, comment: &str) -> String {
        TorusConfig::to_toml(self, comment)
    }
    model_config_boilerplate!();
}

impl ModelConfig for DiffusionConfig {
    fn kind(&self) -> &'static str {
        "diffusion"
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
    model_config_boilerplate!();
}

/// Reads a torus preset table (the registry's `parse` for the torus).
pub fn parse_torus(table: &toml::Table) -> Result<Config, PresetError> {
    Ok(Config::new(Reader::new(table)?.read_torus()?))
}

/// Reads a diffusion preset table (the registry's `parse` for the diffusion grid).
pub fn parse_diffusion(table: &toml::Table) -> Result<Config, PresetError> {
    Ok(Config::new(Reader::new(table)?.read_diffusion()?))
}

impl Config {
    /// Wraps a model's validated configuration.
    pub fn new(c: impl ModelConfig) -> Self {
        Self(Box::new(c))
    }

    /// The model's own configuration, if it is a `T`.
    pub fn get<T: 'static>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref::<T>()
    }

    /// Parses and validates preset text of any model. `origin` names it in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, PresetError> {
        Self::from_table(&parse_table(text, origin)?)
    }

    /// Validates a parsed table of any model (chosen by `model.kind` through the registry).
    pub fn from_table(table: &toml::Table) -> Result<Self, PresetError> {
        let kind = kind_of(table)?;
        let model = crate::models::by_kind(kind).ok_or_else(|| {
            key_err(
                "model.kind",
                format!(
                    "\"{}\" is not a model (models: {})",
                    echo(&kind),
                    crate::models::MODELS
                        .iter()
                        .map(|m| format!("\"{}\"", m.kind))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        (model.parse)(table)
    }

    /// The configuration as preset TOML.
    pub fn to_toml(&self, comment: &str) -> String {
        self.0.to_toml(comment)
    }

    /// `model.kind`.
    pub fn kind(&self) -> &'static str {
        self.0.kind()
    }

    /// The torus configuration, if this is one (a convenience for the torus's code and tests).
    pub fn torus(&self) -> Option<&TorusConfig> {
        self.get::<TorusConfig>()
    }

    /// The model's entry in the registry.
    pub fn model_info(&self) -> &'static crate::models::ModelInfo {
        crate::models::by_kind(self.kind()).expect("every configuration's kind is registered")
    }

    /// The algorithm's entry in the registry.
    pub fn algorithm_info(&self) -> &'static crate::models::AlgorithmInfo {
        let (algorithm, timestamps) = self.0.algorithm_keys();
        self.model_info()
            .algorithm_of(algorithm, timestamps)
            .expect("every configuration's algorithm is registered")
    }

    /// Where it runs.
    pub fn engine(&self) -> EngineKind {
        self.0.engine()
    }

    /// Moves the run to `engine` (the app falls back to the CPU this way).
    pub fn set_engine(&mut self, engine: EngineKind) {
        self.0.set_engine(engine);
    }

    /// End time in ticks.
    pub fn end_ticks(&self) -> Ticks {
        to_ticks(self.0.end_time())
    }

    /// End time in time units, as written.
    pub fn end_time(&self) -> f64 {
        self.0.end_time()
    }

    /// (rows, cols) of the grid or torus.
    pub fn shape(&self) -> (u32, u32) {
        self.0.shape()
    }
}

/// The built-in presets (the files of `presets/`, embedded so the binary works anywhere).
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "teaching-16x16",
        include_str!("../presets/teaching-16x16.toml"),
    ),
    (
        "sang2019-torus",
        include_str!("../presets/sang2019-torus.toml"),
    ),
    (
        "sang2019-causality",
        include_str!("../presets/sang2019-causality.toml"),
    ),
    (
        "park-fishwick-16x16",
        include_str!("../presets/park-fishwick-16x16.toml"),
    ),
    (
        "teaching-diffusion",
        include_str!("../presets/teaching-diffusion.toml"),
    ),
    (
        "perumalla-diffusion-750",
        include_str!("../presets/perumalla-diffusion-750.toml"),
    ),
    (
        "teaching-open",
        include_str!("../presets/teaching-open.toml"),
    ),
    (
        "park-fishwick-open",
        include_str!("../presets/park-fishwick-open.toml"),
    ),
];

/// The preset `cargo run` opens.
pub const DEFAULT_PRESET: &str = "teaching-16x16";

/// The first comment line of a preset: its one-line description.
pub fn description(text: &str) -> &str {
    text.lines()
        .find_map(|l| l.trim().strip_prefix('#'))
        .map(str::trim)
        .unwrap_or("")
}

/// Reads a preset given as a file path or a built-in name; returns (origin, text).
pub fn load_text(name_or_path: &str) -> Result<(String, String), PresetError> {
    let path = Path::new(name_or_path);
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| PresetError::File {
            path: name_or_path.to_string(),
            reason: e.to_string(),
        })?;
        return Ok((name_or_path.to_string(), text));
    }
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(name_or_path);
    let looks_like_path = name_or_path.contains('/') || name_or_path.ends_with(".toml");
    match BUILTIN.iter().find(|(n, _)| *n == stem) {
        Some((n, text)) if !looks_like_path => {
            Ok((format!("{n} (built-in)"), (*text).to_string()))
        }
        _ if looks_like_path => Err(PresetError::File {
            path: name_or_path.to_string(),
            reason: "no such file (a name with a / or ending in .toml is read as a file; built-in presets are named without either)".into(),
        }),
        _ => Err(PresetError::File {
            path: name_or_path.to_string(),
            reason: format!(
                "no such file, and no built-in preset of that name (built-in: {})",
                BUILTIN
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
    }
}

/// The validated configuration of built-in preset (or file) `preset` with `--set`
/// assignments `sets` applied; the error is the message a user would see.
pub fn config_with(preset: &str, sets: &[&str]) -> Result<Config, String> {
    let (_, text) = load_text(preset).map_err(|e| e.to_string())?;
    let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string())?;
    for s in sets {
        apply_set(&mut table, s).map_err(|e| e.to_string())?;
    }
    Config::from_table(&table).map_err(|e| e.to_string())
}

/// Applies a `--set key=value` override to a preset table. The value is read as a TOML
/// value (`16`, `0.5`, `"window"`); a bare word that is not valid TOML is taken as a string.
pub fn apply_set(table: &mut toml::Table, assignment: &str) -> Result<(), PresetError> {
    let (key, value) = assignment
        .split_once('=')
        .ok_or_else(|| key_err(assignment, "--set expects key=value, e.g. --set run.d=0.5"))?;
    let key = key.trim();
    let (section, name) = key
        .split_once('.')
        .ok_or_else(|| key_err(key, "keys are section.name, e.g. model.rows or run.d"))?;
    let registered = crate::models::MODELS.iter().any(|m| m.keys.contains(&key));
    if !in_schema(None, section, name) && !registered {
        return Err(unknown_key(None, key));
    }
    let value = value.trim();
    if value.contains(['\n', '\r']) {
        return Err(key_err(
            key,
            "a --set value must be on one line (it contains a line break)",
        ));
    }
    let parsed = format!("v = {value}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(value.to_string()));
    let sec = table
        .entry(section.to_string())
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    match sec {
        toml::Value::Table(t) => {
            t.insert(name.to_string(), parsed);
            Ok(())
        }
        _ => Err(key_err(section, "must be a table")),
    }
}

/// Every key a preset may hold: (model kind, section, name, what it accepts).
pub const SCHEMA: &[(Kind, &str, &str, &str)] = &[
    (Kind::Any, "model", "kind", "\"torus\" or \"diffusion\""),
    (Kind::Any, "model", "rows", "an integer in 1..=16384"),
    (Kind::Any, "model", "cols", "an integer in 1..=16384"),
    (
        Kind::Torus,
        "model",
        "tokens_per_facility",
        "an integer in 1..=1024",
    ),
    (
        Kind::Torus,
        "model",
        "mean_service",
        "a number in (0, 4096)",
    ),
    (
        Kind::Torus,
        "model",
        "service",
        "\"exponential\" or \"shifted\"",
    ),
    (Kind::Diffusion, "model", "alpha_x", "a number in [0, 1e6]"),
    (Kind::Diffusion, "model", "alpha_y", "a number in [0, 1e6]"),
    (Kind::Diffusion, "model", "beta", "a number in [-1e6, 1e6]"),
    (
        Kind::Diffusion,
        "model",
        "boundary",
        "a number in [-1e6, 1e6]",
    ),
    (
        Kind::Diffusion,
        "model",
        "initial",
        "a number in [-1e6, 1e6]",
    ),
    (Kind::Diffusion, "model", "dx", "a number in (0, 1e6]"),
    (
        Kind::Torus,
        "run",
        "algorithm",
        "\"sequential\", \"window\" or \"interval\"",
    ),
    (
        Kind::Diffusion,
        "run",
        "algorithm",
        "\"timestepped\", \"event\" or \"hybrid\"",
    ),
    (
        Kind::Torus,
        "run",
        "timestamps",
        "\"original\" or \"boundary\"",
    ),
    (
        Kind::Torus,
        "run",
        "d",
        "a number ≥ 2^-20 (0 allowed for sequential)",
    ),
    (
        Kind::Diffusion,
        "run",
        "dt",
        "a number in [2^-20, 16), at most the stability bound",
    ),
    (Kind::Diffusion, "run", "quantum", "a number in (0, 1e6]"),
    (Kind::Any, "run", "end_time", "a number in [2^-20, 2^40]"),
    (
        Kind::Torus,
        "run",
        "seed",
        "an integer in 0..=9223372036854775807",
    ),
    (Kind::Any, "run", "engine", "\"cpu\" or \"gpu\""),
];

/// Which model kinds a key of [`SCHEMA`] belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Every model.
    Any,
    /// The torus network.
    Torus,
    /// The diffusion grid.
    Diffusion,
}

impl Kind {
    fn admits(self, kind: &str) -> bool {
        match self {
            Self::Any => true,
            Self::Torus => kind == "torus",
            Self::Diffusion => kind == "diffusion",
        }
    }
}

fn in_schema(kind: Option<&str>, section: &str, name: &str) -> bool {
    SCHEMA
        .iter()
        .any(|(k, s, n, _)| kind.is_none_or(|kind| k.admits(kind)) && *s == section && *n == name)
}

fn unknown_key(kind: Option<&str>, key: &str) -> PresetError {
    let section = key.split('.').next().unwrap_or("");
    let mut valid: Vec<String> = SCHEMA
        .iter()
        .filter(|(k, s, _, _)| kind.is_none_or(|kind| k.admits(kind)) && *s == section)
        .map(|(_, s, n, _)| format!("{s}.{n}"))
        .collect();
    // and the keys of the models whose configuration is read with serde
    for m in crate::models::MODELS
        .iter()
        .filter(|m| kind.is_none_or(|k| k == m.kind))
    {
        valid.extend(
            m.keys
                .iter()
                .filter(|k| k.starts_with(&format!("{section}.")))
                .map(|k| k.to_string()),
        );
    }
    valid.dedup();
    let model = kind
        .map(|k| format!(" for model.kind = \"{k}\""))
        .unwrap_or_default();
    if valid.is_empty() {
        key_err(key, "unknown key (sections are [model] and [run])")
    } else {
        key_err(
            key,
            format!("unknown key{model} (valid: {})", valid.join(", ")),
        )
    }
}

struct Reader<'a> {
    model: Option<&'a toml::Table>,
    run: Option<&'a toml::Table>,
}

/// The model kind a preset table names (`model.kind`, "torus" when absent).
pub fn kind_of(table: &toml::Table) -> Result<&str, PresetError> {
    match table
        .get("model")
        .and_then(|m| m.as_table())
        .and_then(|m| m.get("kind"))
    {
        None => Ok("torus"),
        Some(toml::Value::String(s)) if crate::models::by_kind(s).is_some() => Ok(s.as_str()),
        Some(other) => Err(key_err(
            "model.kind",
            format!(
                "{} is not one of {}",
                echo(other),
                crate::models::MODELS
                    .iter()
                    .map(|m| format!("\"{}\"", m.kind))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

impl<'a> Reader<'a> {
    fn new(table: &'a toml::Table) -> Result<Self, PresetError> {
        let mut r = Self {
            model: None,
            run: None,
        };
        for (section, value) in table {
            let t = value
                .as_table()
                .ok_or_else(|| key_err(section, "expected a [section] table"))?;
            match section.as_str() {
                "model" => r.model = Some(t),
                "run" => r.run = Some(t),
                _ => return Err(unknown_key(None, section)),
            }
            let kind = kind_of(table)?;
            for name in t.keys() {
                if !in_schema(Some(kind), section, name) {
                    return Err(unknown_key(Some(kind), &format!("{section}.{name}")));
                }
            }
        }
        Ok(r)
    }

    fn get(&self, section: &str, name: &str) -> Option<&'a toml::Value> {
        match section {
            "model" => self.model?.get(name),
            _ => self.run?.get(name),
        }
    }

    fn int(
        &self,
        section: &str,
        name: &str,
        default: i64,
        lo: i64,
        hi: i64,
    ) -> Result<i64, PresetError> {
        let key = format!("{section}.{name}");
        let v = match self.get(section, name) {
            None => return Ok(default),
            Some(toml::Value::Integer(i)) => *i,
            Some(other) => {
                return Err(key_err(
                    &key,
                    format!("expected an integer in {lo}..={hi}, got {}", echo(other)),
                ));
            }
        };
        if v < lo || v > hi {
            return Err(key_err(
                &key,
                format!("{v} is out of range: expected an integer in {lo}..={hi}"),
            ));
        }
        Ok(v)
    }

    fn num(&self, section: &str, name: &str, default: f64) -> Result<f64, PresetError> {
        let key = format!("{section}.{name}");
        match self.get(section, name) {
            None => Ok(default),
            Some(toml::Value::Integer(i)) => Ok(*i as f64),
            Some(toml::Value::Float(f)) if f.is_finite() => Ok(*f),
            Some(other) => Err(key_err(
                &key,
                format!("expected a finite number, got {}", echo(other)),
            )),
        }
    }

    fn word(
        &self,
        section: &str,
        name: &str,
        default: &'static str,
        valid: &[&'static str],
    ) -> Result<&'static str, PresetError> {
        let key = format!("{section}.{name}");
        let quoted = || {
            valid
                .iter()
                .map(|v| format!("\"{v}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self.get(section, name) {
            None => Ok(default),
            Some(toml::Value::String(s)) => valid
                .iter()
                .find(|v| **v == s.as_str())
                .copied()
                .ok_or_else(|| {
                    key_err(&key, format!("\"{}\" is not one of {}", echo(s), quoted()))
                }),
            Some(other) => Err(key_err(
                &key,
                format!("expected one of {}, got {}", quoted(), echo(other)),
            )),
        }
    }

    fn read_torus(&self) -> Result<TorusConfig, PresetError> {
        self.word("model", "kind", "torus", &["torus"])?;
        let rows = self.int("model", "rows", 16, 1, 16384)? as u32;
        let cols = self.int("model", "cols", 16, 1, 16384)? as u32;
        let tokens_per_facility = self.int("model", "tokens_per_facility", 1, 1, 1024)? as u32;
        if u64::from(rows) * u64::from(cols) * u64::from(tokens_per_facility) > 1 << 30 {
            return Err(key_err(
                "model.tokens_per_facility",
                format!(
                    "rows × cols × tokens_per_facility = {} exceeds 2^30 tokens",
                    u64::from(rows) * u64::from(cols) * u64::from(tokens_per_facility)
                ),
            ));
        }
        let mean_service = self.num("model", "mean_service", 10.0)?;
        if !(mean_service > 0.0 && mean_service < 4096.0) || to_ticks(mean_service) == 0 {
            return Err(key_err(
                "model.mean_service",
                format!(
                    "{mean_service} is out of range: expected a number in [2^-20, 4096) (at least one tick, 2^-20 ≈ 9.54e-7)"
                ),
            ));
        }
        let service = match self.word("model", "service", "shifted", &["exponential", "shifted"])? {
            "exponential" => ServiceKind::Exponential,
            _ => ServiceKind::Shifted,
        };
        let algorithm = match self.word(
            "run",
            "algorithm",
            "window",
            &["sequential", "window", "interval"],
        )? {
            "sequential" => Algorithm::Sequential,
            "window" => Algorithm::Window,
            _ => Algorithm::Interval,
        };
        let timestamps =
            match self.word("run", "timestamps", "original", &["original", "boundary"])? {
                "original" => Timestamps::Original,
                _ => Timestamps::Boundary,
            };
        let d = self.num("run", "d", 1.0)?;
        let min_d = 1.0 / TICKS_PER_UNIT;
        if algorithm != Algorithm::Sequential && d < min_d {
            return Err(key_err(
                "run.d",
                format!(
                    "{d} is out of range: {} needs d ≥ 2^-20 (≈ 9.5e-7)",
                    algorithm.name()
                ),
            ));
        }
        if !(0.0..=MAX_TIME_UNITS).contains(&d) {
            return Err(key_err(
                "run.d",
                format!("{d} is out of range: expected a number in [0, 2^40]"),
            ));
        }
        if service == ServiceKind::Shifted && d >= mean_service {
            return Err(key_err(
                "run.d",
                format!(
                    "{d} is out of range: shifted service needs 0 ≤ d < model.mean_service = {mean_service}"
                ),
            ));
        }
        if algorithm == Algorithm::Window && service != ServiceKind::Shifted {
            return Err(key_err(
                "model.service",
                "run.algorithm = \"window\" needs \"shifted\" service (every service must last at least d)",
            ));
        }
        let end_time = self.num("run", "end_time", 1000.0)?;
        if !(end_time > 0.0 && end_time <= MAX_TIME_UNITS) || to_ticks(end_time) == 0 {
            return Err(key_err(
                "run.end_time",
                format!(
                    "{end_time} is out of range: expected a number in [2^-20, 2^40] (at least one tick, 2^-20 ≈ 9.54e-7)"
                ),
            ));
        }
        let seed = self.int("run", "seed", 1, 0, i64::MAX)? as u64;
        let engine = match self.word("run", "engine", "cpu", &["cpu", "gpu"])? {
            "cpu" => EngineKind::Cpu,
            _ => EngineKind::Gpu,
        };
        Ok(TorusConfig {
            model: TorusParams {
                rows,
                cols,
                tokens_per_facility,
                mean_service,
                service,
            },
            run: RunConfig {
                algorithm,
                timestamps,
                d,
                end_time,
                seed,
                engine,
            },
        })
    }

    /// A number in [lo, hi] (or (lo, hi] when `open_lo`), naming the range on error.
    fn num_in(
        &self,
        section: &str,
        name: &str,
        default: f64,
        (lo, hi): (f64, f64),
        open_lo: bool,
    ) -> Result<f64, PresetError> {
        let v = self.num(section, name, default)?;
        let ok = if open_lo { v > lo } else { v >= lo } && v <= hi;
        if !ok {
            let open = if open_lo { "(" } else { "[" };
            return Err(key_err(
                &format!("{section}.{name}"),
                format!("{v} is out of range: expected a number in {open}{lo}, {hi}]"),
            ));
        }
        Ok(v)
    }

    fn read_diffusion(&self) -> Result<DiffusionConfig, PresetError> {
        const BIG: f64 = 1e6;
        let rows = self.int("model", "rows", 64, 1, 16384)? as u32;
        let cols = self.int("model", "cols", 64, 1, 16384)? as u32;
        let model = DiffusionParams {
            rows,
            cols,
            alpha_x: self.num_in("model", "alpha_x", 1.0, (0.0, BIG), false)?,
            alpha_y: self.num_in("model", "alpha_y", 1.0, (0.0, BIG), false)?,
            beta: self.num_in("model", "beta", 0.0, (-BIG, BIG), false)?,
            boundary: self.num_in("model", "boundary", 100.0, (-BIG, BIG), false)?,
            initial: self.num_in("model", "initial", 0.0, (-BIG, BIG), false)?,
            dx: self.num_in("model", "dx", 1.0, (0.0, BIG), true)?,
        };
        let algorithm = match self.word(
            "run",
            "algorithm",
            "hybrid",
            &["timestepped", "event", "hybrid"],
        )? {
            "timestepped" => DiffusionAlgorithm::Timestepped,
            "event" => DiffusionAlgorithm::Event,
            _ => DiffusionAlgorithm::Hybrid,
        };
        let end_time = self.num("run", "end_time", 100.0)?;
        if !(end_time > 0.0 && end_time <= MAX_TIME_UNITS) || to_ticks(end_time) == 0 {
            return Err(key_err(
                "run.end_time",
                format!(
                    "{end_time} is out of range: expected a number in [2^-20, 2^40] (at least one tick, 2^-20 ≈ 9.54e-7)"
                ),
            ));
        }
        let max_dt = f64::from(MAX_STEP_TICKS) / TICKS_PER_UNIT;
        let dt = self.num("run", "dt", 0.01)?;
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
        if algorithm == DiffusionAlgorithm::Timestepped && dt > bound {
            // printed in full, so that the number shown is itself accepted
            return Err(key_err(
                "run.dt",
                format!(
                    "{dt} is unstable: the explicit scheme needs dt ≤ dx²/(2(αx+αy)) = {bound}"
                ),
            ));
        }
        let quantum = self.num_in("run", "quantum", 0.1, (0.0, BIG), true)?;
        let engine = match self.word("run", "engine", "cpu", &["cpu", "gpu"])? {
            "cpu" => EngineKind::Cpu,
            _ => EngineKind::Gpu,
        };
        if engine == EngineKind::Gpu && algorithm == DiffusionAlgorithm::Event {
            return Err(key_err(
                "run.engine",
                "\"gpu\" runs \"timestepped\" and \"hybrid\"; \"event\" (one cell at a time from a priority queue) runs on the CPU",
            ));
        }
        Ok(DiffusionConfig {
            model,
            run: DiffusionRun {
                algorithm,
                end_time,
                dt,
                quantum,
                engine,
            },
        })
    }
}
