//! Reading a preset: its text into a table (a malformed line named), a model's keys into
//! its serde structs (an unknown key named with the model's valid ones, a value of the
//! wrong type with what the key takes — inside a table too, the inner key named), a
//! `--set` assignment into the table, and a configuration written back with its comment.
//! Above [`crate::config`] (it names a model's [`ModelInfo`] and builds a [`Config`]), below
//! the models and [`crate::preset`].

use crate::config::{Config, ModelConfig, ModelInfo};
use crate::error::{PresetError, clip, echo, key_err};

/// Parses preset text into a table; `origin` names it in the error.
pub fn parse_table(text: &str, origin: &str) -> Result<toml::Table, PresetError> {
    text.parse().map_err(|e: toml::de::Error| {
        // the message alone ("duplicate key") does not say which: the span does
        let at = e.span().map(|span| {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            let quoted = text.get(span.clone()).unwrap_or("").trim();
            (line, quoted)
        });
        let reason = match at {
            Some((line, quoted)) if !quoted.is_empty() => format!(
                "malformed TOML at line {line}: {} (`{}`)",
                e.message().replace('\n', " "),
                echo(&quoted)
            ),
            Some((line, _)) => format!(
                "malformed TOML at line {line}: {}",
                e.message().replace('\n', " ")
            ),
            None => format!("malformed TOML: {}", e.message().replace('\n', " ")),
        };
        PresetError::File {
            path: origin.to_string(),
            reason,
        }
    })
}

/// A preset as written: its `[model]` and `[run]` sections, each model's own structs read
/// with serde (unknown keys refused, absent ones the struct's defaults).
#[derive(serde::Deserialize, serde::Serialize, Default)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct Sections<M, R> {
    /// `[model]`.
    pub(crate) model: M,
    /// `[run]`.
    pub(crate) run: R,
}

/// The registry's parser of a model whose preset is `Sections<M, R>` and whose
/// configuration `validate` makes of it.
pub(crate) fn parse_sections<M, R, C>(
    table: &toml::Table,
    info: &ModelInfo,
    validate: fn(Sections<M, R>) -> Result<C, PresetError>,
) -> Result<Config, PresetError>
where
    M: serde::de::DeserializeOwned + Default,
    R: serde::de::DeserializeOwned + Default,
    C: ModelConfig,
{
    Ok(Config::new(validate(read_keys(table, info)?)?))
}

/// Reads the preset table of model `info` with serde into its key structs `T`
/// (`deny_unknown_fields`). A key the model does not have is named with the model's valid
/// keys (`info.keys`); a value of the wrong type is named with what serde says the key
/// takes (the ranges are the model's `validate()`'s).
pub fn read_keys<T: serde::de::DeserializeOwned>(
    table: &toml::Table,
    info: &crate::config::ModelInfo,
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
            if !info.has_key(&key) {
                return Err(unknown_model_key(info, &key));
            }
        }
    }
    table.clone().try_into().map_err(|e: toml::de::Error| {
        // serde names the key last: "invalid type: string \"x\", expected u32 in `model.rows`"
        let text = e.to_string().replace('\n', " ");
        let text = text.trim();
        let named = text
            .rfind(" in `")
            .filter(|_| text.ends_with('`'))
            .map(|i| &text[i + 5..text.len() - 1]);
        match named.and_then(|k| info.key(k).map(|key| (k, key))) {
            // a table's (a network's shape, its stations): what serde found wrong inside it
            // names the inner key ("unknown field `law`, expected `kind` or `mean`")
            Some((k, key)) if holds_a_table(table, k) => {
                let inside = in_words(text.rfind(" in `").map_or(text, |i| &text[..i]));
                key.refuse_as(
                    given(table, k),
                    format!("{} — here: {}", key.words(), clip(&inside, 200)),
                )
            }
            // refused by range, whatever serde objected to (sign, size, type, spelling)
            Some((k, key)) => key.refuse(given(table, k)),
            // a key inside a table (a station's servers): serde's reason, in words, under
            // the key's whole name
            None => match named {
                Some(k) => key_err(k, clip(&in_words(&text[..text.len() - k.len() - 6]), 160)),
                None => key_err(info.kind, clip(&in_words(text), 160)),
            },
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

/// serde's reason with its type names in words ("expected u32" is no sentence a student
/// reads).
fn in_words(reason: &str) -> String {
    [
        (
            "expected u32",
            "expected a whole number from 0 to 4,294,967,295",
        ),
        ("expected u64", "expected a whole number of at least 0"),
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
    ]
    .iter()
    .fold(reason.to_string(), |r, (from, to)| r.replace(from, to))
}

/// Whether dotted `key` of `table` holds a table or a list of them.
fn holds_a_table(table: &toml::Table, key: &str) -> bool {
    let (section, name) = key.split_once('.').unwrap_or(("", key));
    matches!(
        table.get(section).and_then(|t| t.get(name)),
        Some(toml::Value::Table(_) | toml::Value::Array(_))
    )
}

/// The value of dotted `key` in `table` as a refusal shows it: as written, except that a
/// number too large for TOML (kept as text by `--set`) is shown as the number it is.
fn given(table: &toml::Table, key: &str) -> String {
    let (section, name) = key.split_once('.').unwrap_or(("", key));
    match table.get(section).and_then(|t| t.get(name)) {
        Some(toml::Value::String(t))
            if !t.is_empty()
                && t.trim_start_matches(['-', '+'])
                    .chars()
                    .all(|c| c.is_ascii_digit()) =>
        {
            t.clone()
        }
        Some(toml::Value::Float(f)) => crate::error::show_number(*f),
        Some(v) => v.to_string(),
        None => "nothing".into(),
    }
}

/// The error of a key model `info` does not have, with the keys of its section it does.
fn unknown_model_key(info: &ModelInfo, key: &str) -> PresetError {
    let section = key.split('.').next().unwrap_or("");
    let valid: Vec<&str> = info
        .key_names()
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
