//! A validated configuration of any model ([`Config`], behind the [`ModelConfig`] trait each
//! model implements), the one-line error of a preset ([`PresetError`]), and the checks every
//! model's parser shares (unknown keys, named with the model's valid keys; values of the
//! wrong type, named with what the key takes). Nothing here knows which models exist: the
//! registry-aware part (built-in presets, `--set`, `model.kind`) is [`crate::preset`].
//!
//! Keys are dotted paths (`model.rows`, `run.d`, …). Every error is one line that names the
//! key (or file) and what it accepts, so the command line and the app can show it as is.

use pdes_core::time::{Ticks, to_ticks};
use serde::{Deserialize, Serialize};

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
pub fn echo(v: &impl std::fmt::Display) -> String {
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
    info: &crate::model::ModelInfo,
) -> Result<T, PresetError> {
    for (section, value) in table {
        let t = value
            .as_table()
            .ok_or_else(|| key_err(section, "expected a [section] table"))?;
        if section != "model" && section != "run" {
            return Err(key_err(
                section,
                "unknown key (sections are [model] and [run])",
            ));
        }
        for name in t.keys() {
            let key = format!("{section}.{name}");
            if !info.keys.contains(&key.as_str()) {
                return Err(unknown_model_key(info, &key));
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
    /// Its model's entry in the registry (its `model.kind`, algorithms, …).
    fn info(&self) -> &'static crate::model::ModelInfo;
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
        fn clone_box(&self) -> Box<dyn $crate::config::ModelConfig> {
            Box::new(self.clone())
        }
        fn eq_dyn(&self, other: &dyn $crate::config::ModelConfig) -> bool {
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

    /// The configuration as preset TOML.
    pub fn to_toml(&self, comment: &str) -> String {
        self.0.to_toml(comment)
    }

    /// `model.kind`.
    pub fn kind(&self) -> &'static str {
        self.0.info().kind
    }

    /// The model's entry in the registry.
    pub fn model_info(&self) -> &'static crate::model::ModelInfo {
        self.0.info()
    }

    /// The algorithm's entry in the registry.
    pub fn algorithm_info(&self) -> &'static crate::model::AlgorithmInfo {
        let (algorithm, timestamps) = self.0.algorithm_keys();
        // The one invariant left as a panic: a model's parser accepts only the algorithms
        // its entry lists (the registry's test finds every listed one again from its keys).
        #[allow(clippy::expect_used)]
        self.model_info()
            .algorithm_of(algorithm, timestamps)
            .expect("every configuration's algorithm is registered")
    }

    /// What will surprise about this valid configuration, if anything.
    pub fn warning(&self) -> Option<String> {
        self.0.warning()
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

/// Puts `section.name = value` into a preset table: the value is read as a TOML value (`16`,
/// `0.5`, `"window"`); a bare word that is not valid TOML is taken as a string. The key is
/// the caller's to check.
pub fn set_in_table(
    table: &mut toml::Table,
    section: &str,
    name: &str,
    value: &str,
) -> Result<(), PresetError> {
    let key = format!("{section}.{name}");
    let value = value.trim();
    if value.contains(['\n', '\r']) {
        return Err(key_err(
            &key,
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

/// The error of a key model `info` does not have, with the keys of its section it does.
fn unknown_model_key(info: &crate::model::ModelInfo, key: &str) -> PresetError {
    let section = key.split('.').next().unwrap_or("");
    let valid: Vec<&str> = info
        .keys
        .iter()
        .copied()
        .filter(|k| k.starts_with(&format!("{section}.")))
        .collect();
    if valid.is_empty() {
        key_err(key, "unknown key (sections are [model] and [run])")
    } else {
        key_err(
            key,
            format!(
                "unknown key for model.kind = \"{}\" (valid: {})",
                info.kind,
                valid.join(", ")
            ),
        )
    }
}
