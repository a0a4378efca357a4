//! Presets: TOML files → a validated [`Config`] of any registered model. `model.kind`
//! chooses the model's parser in the registry; each model reads its keys with serde into
//! its own structs and checks them in one `validate()` (`<model>/config.rs`). What is here
//! knows the registry: the built-in preset files, `--set`, `model.kind`. The configuration
//! types themselves are [`crate::config`]'s, re-exported here for the code above.
//!
//! Keys are dotted paths (`model.rows`, `run.d`, …). Every error is one line that names the
//! key (or file) and what it accepts, so the command line and the app can show it as is.

use crate::config::echo;
pub use crate::config::{Config, EngineKind, ModelConfig, PresetError, key_err};
pub use crate::reading::{parse_table, read_keys, with_comment};
use std::path::Path;

impl Config {
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
        // a file of the former open-network model is the tandem network it describes
        let translated;
        let table = if table
            .get("model")
            .and_then(|m| m.get("kind"))
            .and_then(toml::Value::as_str)
            == Some(crate::network::open_file::KIND)
        {
            translated = crate::network::open_file::translate(table)?;
            &translated
        } else {
            table
        };
        let kind = kind_of(table)?;
        let model = crate::registry::by_kind(kind).ok_or_else(|| {
            key_err(
                "model.kind",
                format!(
                    "\"{}\" is not a model (models: {})",
                    echo(&kind),
                    crate::registry::MODELS
                        .iter()
                        .map(|m| format!("\"{}\"", m.kind))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        (model.parse)(table)
    }
}

/// Every built-in preset, (name, text), model by model in registry order (each model
/// lists its presets; the files are in `presets/`, embedded so the binary works anywhere).
pub fn builtin() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    crate::registry::MODELS
        .iter()
        .flat_map(|m| m.presets.iter())
}

/// The preset `cargo run` opens: the first model's teaching preset.
pub fn default_preset() -> &'static str {
    crate::registry::MODELS[0].teaching_preset
}

/// The built-in preset a configuration's link starts from: its model's teaching preset.
pub fn builtin_base(config: &Config) -> &'static str {
    config.model_info().teaching_preset
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
    let refuse = |reason: String| PresetError::File {
        path: name_or_path.to_string(),
        reason,
    };
    // what exists is named for what it is, and its size is checked before it is read (a
    // FIFO would block, /dev/zero would fill the memory)
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.is_dir() {
            return Err(refuse(
                "is a folder, not a preset file (a preset is a TOML file)".into(),
            ));
        }
        if !meta.is_file() {
            return Err(refuse(
                "is not a regular file (a device, FIFO or socket); a preset is a TOML file".into(),
            ));
        }
        if meta.len() > MAX_PRESET_BYTES {
            return Err(refuse(format!(
                "is {} bytes; a preset file is at most {} bytes (64 MiB)",
                meta.len(),
                MAX_PRESET_BYTES
            )));
        }
    }
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| PresetError::File {
            path: name_or_path.to_string(),
            reason: e.to_string(),
        })?;
        return Ok((name_or_path.to_string(), files_beside(text, path)));
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

/// A network file's CSV files (`model.stations_csv`, `model.routes_csv`) are named relative
/// to the file's folder, as a user writes them beside it: the text with those paths made
/// relative to where the program runs (or absolute). Any other text is returned as it is.
fn files_beside(text: String, file: &Path) -> String {
    const KEYS: [&str; 2] = ["stations_csv", "routes_csv"];
    let folder = file.parent().unwrap_or(Path::new(""));
    if !KEYS.iter().any(|k| text.contains(k)) || folder.as_os_str().is_empty() {
        return text;
    }
    let Ok(mut table) = text.parse::<toml::Table>() else {
        return text; // the parse that follows names the error
    };
    let Some(toml::Value::Table(model)) = table.get_mut("model") else {
        return text;
    };
    for key in KEYS {
        if let Some(toml::Value::String(p)) = model.get_mut(key)
            && Path::new(p.as_str()).is_relative()
        {
            *p = folder.join(p.as_str()).to_string_lossy().into_owned();
        }
    }
    toml::to_string(&table).unwrap_or(text)
}

/// The largest preset file read: presets are a few hundred bytes, but a network file lists
/// its stations (about 150 bytes each: 64 MiB holds some 400,000; larger networks are
/// generated shapes).
pub const MAX_PRESET_BYTES: u64 = 64 << 20;

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
    if !crate::registry::MODELS.iter().any(|m| m.has_key(key)) {
        return Err(unknown_key(None, key));
    }
    crate::reading::set_in_table(table, section, name, value)
}

fn unknown_key(kind: Option<&str>, key: &str) -> PresetError {
    let section = key.split('.').next().unwrap_or("");
    let mut valid: Vec<String> = Vec::new();
    for m in crate::registry::MODELS
        .iter()
        .filter(|m| kind.is_none_or(|k| k == m.kind))
    {
        valid.extend(
            m.key_names()
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
        None => Ok(crate::registry::MODELS[0].kind),
        Some(toml::Value::String(s)) if crate::registry::by_kind(s).is_some() => Ok(s.as_str()),
        Some(other) => Err(key_err(
            "model.kind",
            format!(
                "{} is not one of {}",
                echo(other),
                crate::registry::MODELS
                    .iter()
                    .map(|m| format!("\"{}\"", m.kind))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}
