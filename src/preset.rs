//! Presets: TOML files → a validated [`Config`] of any registered model. `model.kind`
//! chooses the model's parser in the registry; each model reads its keys with serde into
//! its own structs and checks them in one `validate()` (`src/models/<model>/config.rs`).
//! What is here is model-agnostic: the built-in preset files, `--set`, the checks every
//! model shares (unknown keys, named with the model's valid keys; values of the wrong type,
//! named with what the key takes), and the `[run]` words of the queueing models.
//!
//! Keys are dotted paths (`model.rows`, `run.d`, …). Every error is one line that names the
//! key (or file) and what it accepts, so the command line and the app can show it as is.

use crate::time::{Ticks, to_ticks};
use serde::{Deserialize, Serialize};
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
    clip(v, 40)
}

/// `v` as text, cut after `n` characters with the cut marked.
fn clip(v: &impl std::fmt::Display, n: usize) -> String {
    let s = v.to_string();
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}… ({} characters)", &s[..i], s.chars().count()),
        None => s,
    }
}

/// The error of key `key` (dotted) with what is wrong and what is valid.
pub fn key_err(key: &str, reason: impl Into<String>) -> PresetError {
    PresetError::Key {
        key: key.to_string(),
        reason: reason.into(),
    }
}

/// Where the simulation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
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

/// Parses preset text into a table; `origin` names it in the error.
pub fn parse_table(text: &str, origin: &str) -> Result<toml::Table, PresetError> {
    text.parse()
        .map_err(|e: toml::de::Error| PresetError::File {
            path: origin.to_string(),
            reason: format!("malformed TOML: {}", e.message().replace('\n', " ")),
        })
}

/// Reads the preset table of model `info` with serde into its key structs `T`
/// (`deny_unknown_fields`). A key the model does not have is named with the model's valid
/// keys (`info.keys`); a value of the wrong type is named with what serde says the key
/// takes (the ranges are the model's `validate()`'s).
pub fn read_keys<T: serde::de::DeserializeOwned>(
    table: &toml::Table,
    info: &crate::models::ModelInfo,
) -> Result<T, PresetError> {
    for (section, value) in table {
        let t = value
            .as_table()
            .ok_or_else(|| key_err(section, "expected a [section] table"))?;
        if section != "model" && section != "run" {
            return Err(unknown_key(None, section));
        }
        for name in t.keys() {
            let key = format!("{section}.{name}");
            if !info.keys.contains(&key.as_str()) {
                return Err(unknown_key(Some(info.kind), &key));
            }
        }
    }
    table.clone().try_into().map_err(|e: toml::de::Error| {
        // serde names the key last: "invalid type: string \"x\", expected u32 in `model.rows`"
        let text = e.to_string().replace('\n', " ");
        let text = text.trim();
        match text.rfind(" in `") {
            Some(i) if text.ends_with('`') => {
                // the message quotes the value: a huge one is cut, what is expected is kept
                let msg = text[..i].trim();
                // the value is between the first quote and the next one of the same kind
                let open = msg.find(['`', '"']);
                let close = open.and_then(|a| {
                    let q = &msg[a..=a];
                    msg[a + 1..].find(q).map(|b| a + 1 + b)
                });
                let reason = match (open, close) {
                    (Some(a), Some(b)) => {
                        format!("{}{}{}", &msg[..=a], echo(&&msg[a + 1..b]), &msg[b..])
                    }
                    _ => clip(&msg, 160),
                };
                key_err(&text[i + 5..text.len() - 1], reason)
            }
            _ => key_err(info.kind, clip(&text, 160)),
        }
    })
}

/// A preset's text: `# comment` on the first line, then the serialized keys (a model's
/// `to_toml`). Serialization of plain numbers and words cannot fail; if it did, the comment
/// says so instead of writing half a preset.
pub fn with_comment(comment: &str, body: Result<String, toml::ser::Error>) -> String {
    match body {
        Ok(b) => format!("# {}\n{b}", comment.replace('\n', " ")),
        Err(e) => format!("# {} (not written: {e})\n", comment.replace('\n', " ")),
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
    /// A valid combination that will surprise (shown, never refused), e.g. one that cannot
    /// show what its algorithm is known for.
    fn warning(&self) -> Option<String> {
        None
    }
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
    /// A `[sweep]` table (a sweep preset's grid, read by `pdes-lab sweep`) is not part of
    /// the run's configuration and is set aside.
    pub fn from_table(table: &toml::Table) -> Result<Self, PresetError> {
        let mut run_table;
        let table = if table.contains_key("sweep") {
            run_table = table.clone();
            run_table.remove("sweep");
            &run_table
        } else {
            table
        };
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

    /// What will surprise about this valid configuration, if anything.
    pub fn warning(&self) -> Option<String> {
        self.0.warning()
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

/// Every built-in preset, (name, text), model by model in registry order (each model
/// lists its presets; the files are in `presets/`, embedded so the binary works anywhere).
pub fn builtin() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    crate::models::MODELS.iter().flat_map(|m| m.presets.iter())
}

/// The preset `cargo run` opens: the first model's teaching preset.
pub fn default_preset() -> &'static str {
    crate::models::MODELS[0].teaching_preset
}

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
    match builtin().find(|(n, _)| *n == stem) {
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
                builtin()
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
    let _ = name;
    if !crate::models::MODELS.iter().any(|m| m.keys.contains(&key)) {
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

fn unknown_key(kind: Option<&str>, key: &str) -> PresetError {
    let section = key.split('.').next().unwrap_or("");
    let mut valid: Vec<String> = Vec::new();
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
    let mut seen = std::collections::HashSet::new();
    valid.retain(|k| seen.insert(k.clone()));
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

/// The model kind a preset table names (`model.kind`; when absent, the first registered
/// model's, so that presets written before there were several models still load).
pub fn kind_of(table: &toml::Table) -> Result<&str, PresetError> {
    match table
        .get("model")
        .and_then(|m| m.as_table())
        .and_then(|m| m.get("kind"))
    {
        None => Ok(crate::models::MODELS[0].kind),
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
