//! Files of the former open-network model (`model.kind = "open-network"`: paper 002's
//! tandem lines, which had an engine of their own) read as the network they describe — a
//! tandem shape with the same lines, rates and service, and that model's run defaults
//! (interval / boundary, d = 1, T = 10,000) where the file leaves a run key out. Their runs
//! draw the network engine's random numbers (a Poisson stream per line rather than one
//! stream split among the lines): the same model, another sample path. A value out of range
//! is refused by the network's checks, which name `model.shape` or the station.

use crate::config::{PresetError, key_err};

/// The kind such a file names.
pub const KIND: &str = "open-network";

/// The `[model]` keys of such a file, with the values it took when one was left out.
const MODEL_KEYS: [(&str, f64); 5] = [
    ("lines", 16.0),
    ("servers_per_line", 16.0),
    ("arrival_rate", 0.4),
    ("exit_probability", 0.25),
    ("mean_service", 5.0),
];

/// The `[run]` values such a file took when one was left out.
fn run_defaults() -> [(&'static str, toml::Value); 4] {
    [
        ("algorithm", "interval".into()),
        ("timestamps", "boundary".into()),
        ("d", 1.0.into()),
        ("end_time", 10_000.0.into()),
    ]
}

/// The network file that an open-network file `table` describes.
pub fn translate(table: &toml::Table) -> Result<toml::Table, PresetError> {
    let section = |name: &str| -> Result<toml::Table, PresetError> {
        match table.get(name) {
            None => Ok(toml::Table::new()),
            Some(toml::Value::Table(t)) => Ok(t.clone()),
            Some(_) => Err(key_err(name, "expected a [section] table")),
        }
    };
    let (old, mut run) = (section("model")?, section("run")?);
    let valid =
        "kind, lines, servers_per_line, arrival_rate, exit_probability, mean_service, service";
    if let Some(k) = old
        .keys()
        .find(|k| !valid.split(", ").any(|v| v == k.as_str()))
    {
        return Err(key_err(
            &format!("model.{k}"),
            format!("unknown key for model.kind = \"{KIND}\" (valid: {valid})"),
        ));
    }
    for (key, value) in run_defaults() {
        run.entry(key).or_insert(value);
    }
    let mut shape = toml::Table::new();
    shape.insert("kind".into(), "tandem".into());
    for (key, default) in MODEL_KEYS {
        let value = old.get(key).cloned().unwrap_or(match key {
            "lines" | "servers_per_line" => toml::Value::Integer(default as i64),
            _ => toml::Value::Float(default),
        });
        if key != "mean_service" {
            shape.insert(key.into(), value);
        }
    }
    let mean = old
        .get("mean_service")
        .cloned()
        .unwrap_or(toml::Value::Float(5.0));
    let mut service = toml::Table::new();
    match old.get("service").and_then(toml::Value::as_str) {
        None | Some("exponential") => {
            service.insert("kind".into(), "exponential".into());
        }
        // its shifted service was never shorter than the run's d
        Some("shifted") => {
            service.insert("kind".into(), "shifted".into());
            service.insert("shift".into(), run.get("d").cloned().unwrap_or(1.0.into()));
        }
        Some(_) => {
            return Err(key_err(
                "model.service",
                "\"exponential\" or \"shifted\" (an open-network file's service)",
            ));
        }
    }
    service.insert("mean".into(), mean);
    shape.insert("service".into(), service.into());
    let mut model = toml::Table::new();
    model.insert("kind".into(), "network".into());
    model.insert("shape".into(), shape.into());
    let mut out = table.clone();
    out.insert("model".into(), model.into());
    out.insert("run".into(), run.into());
    Ok(out)
}
