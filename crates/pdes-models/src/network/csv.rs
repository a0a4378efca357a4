//! Stations and routes from CSV files (`model.stations_csv`, `model.routes_csv`): a user's
//! own big topology, too large to write as `[[model.station]]` tables. Every refusal names
//! the file, the line and the column, in words; nothing is read past the size limit.
//!
//! `stations.csv`: a header `name,servers,service,mean,shift,value,low,high,k,arrival_rate,population`
//! (columns in any order; the parameters a service needs filled, the others empty) and a
//! row per station. `routes.csv`: a header `from,to,probability` and a row per route (`to`
//! may be `exit`); a station's routes must sum to 1, as in a file's tables.

use super::service::Service;
use super::spec::StationSpec;
use crate::config::{PresetError, key_err};
use std::collections::HashMap;

/// The largest CSV file read (64 MiB: some 2 million routes).
pub const MAX_CSV_BYTES: u64 = 64 << 20;

/// The stations of `stations` with the routes of `routes` (paths as the file gives them,
/// made absolute against the file's folder when it was read from a file).
pub fn read(stations: &str, routes: &str) -> Result<Vec<StationSpec>, PresetError> {
    let mut specs = read_stations(stations)?;
    let index: HashMap<String, usize> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.clone(), i))
        .collect();
    let mut reader = open(routes, "model.routes_csv")?;
    let cols = columns(
        &mut reader,
        routes,
        "model.routes_csv",
        &["from", "to", "probability"],
    )?;
    for (line, record) in reader.records().enumerate() {
        let at = |col: &str| format!("{routes}, line {}, column {col}", line + 2);
        let record = record.map_err(|e| refuse("model.routes_csv", &at("?"), &e.to_string()))?;
        let cell = |c: usize| record.get(cols[c]).unwrap_or("").trim();
        let from = cell(0);
        let Some(&i) = index.get(from) else {
            return Err(refuse(
                "model.routes_csv",
                &at("from"),
                &format!("{} is no station of {stations}", shown(from)),
            ));
        };
        let p: f64 = cell(2).parse().map_err(|_| {
            refuse(
                "model.routes_csv",
                &at("probability"),
                &format!("{} is not a number from 0 to 1", shown(cell(2))),
            )
        })?;
        let to = cell(1);
        if specs[i].routes.iter().any(|r| r.0 == to) {
            return Err(refuse(
                "model.routes_csv",
                &at("to"),
                &format!(
                    "the route from {} to {} is given twice",
                    shown(from),
                    shown(to)
                ),
            ));
        }
        specs[i].routes.push((to.to_string(), p));
    }
    // in the order of a file's tables (by destination name), so that the same network
    // written either way draws the same routes
    for s in &mut specs {
        s.routes.sort_by(|a, b| a.0.cmp(&b.0));
    }
    Ok(specs)
}

fn read_stations(path: &str) -> Result<Vec<StationSpec>, PresetError> {
    const NAMES: [&str; 11] = [
        "name",
        "servers",
        "service",
        "mean",
        "shift",
        "value",
        "low",
        "high",
        "k",
        "arrival_rate",
        "population",
    ];
    let key = "model.stations_csv";
    let mut reader = open(path, key)?;
    // the three columns every station needs
    columns(&mut reader, path, key, &NAMES[..3])?;
    let optional: Vec<Option<usize>> = {
        let header = reader
            .headers()
            .map_err(|e| refuse(key, path, &e.to_string()))?
            .clone();
        NAMES
            .iter()
            .map(|n| header.iter().position(|h| h.trim() == *n))
            .collect()
    };
    let mut specs = Vec::new();
    for (line, record) in reader.records().enumerate() {
        let record = record
            .map_err(|e| refuse(key, &format!("{path}, line {}", line + 2), &e.to_string()))?;
        let cell = |name: usize| {
            optional[name]
                .and_then(|c| record.get(c))
                .map(str::trim)
                .unwrap_or("")
        };
        let at = |col: &str| format!("{path}, line {}, column {col}", line + 2);
        let number = |name: usize| -> Result<Option<f64>, PresetError> {
            let text = cell(name);
            if text.is_empty() {
                return Ok(None);
            }
            text.parse::<f64>().map(Some).map_err(|_| {
                refuse(
                    key,
                    &at(NAMES[name]),
                    &format!("{} is not a number", shown(text)),
                )
            })
        };
        let need = |name: usize| -> Result<f64, PresetError> {
            number(name)?.ok_or_else(|| {
                refuse(
                    key,
                    &at(NAMES[name]),
                    &format!("the {} service needs its {} here", cell(2), NAMES[name]),
                )
            })
        };
        let whole = |name: usize| -> Result<Option<u32>, PresetError> {
            let text = cell(name);
            if text.is_empty() {
                return Ok(None);
            }
            text.parse::<u32>().map(Some).map_err(|_| {
                refuse(
                    key,
                    &at(NAMES[name]),
                    &format!(
                        "{} is not a whole number from 0 to 4,294,967,295",
                        shown(text)
                    ),
                )
            })
        };
        let service = match cell(2) {
            "exponential" => Service::Exponential { mean: need(3)? },
            "shifted" => Service::Shifted {
                shift: need(4)?,
                mean: need(3)?,
            },
            "deterministic" => Service::Deterministic { value: need(5)? },
            "uniform" => Service::Uniform {
                low: need(6)?,
                high: need(7)?,
            },
            "erlang" => Service::Erlang {
                k: whole(8)?
                    .ok_or_else(|| refuse(key, &at("k"), "the erlang service needs its k here"))?,
                mean: need(3)?,
            },
            other => {
                return Err(refuse(
                    key,
                    &at("service"),
                    &format!(
                        "{} is not a service (exponential, shifted, deterministic, uniform or erlang)",
                        shown(other)
                    ),
                ));
            }
        };
        specs.push(StationSpec {
            name: cell(0).to_string(),
            servers: whole(1)?.ok_or_else(|| {
                refuse(
                    key,
                    &at("servers"),
                    "a station needs its servers here (a whole number from 1)",
                )
            })?,
            service,
            arrival_rate: number(9)?,
            population: whole(10)?,
            routes: Vec::new(),
            resolved: None,
        });
    }
    Ok(specs)
}

/// A reader of `path`, refused when it is missing, not a file or over the size limit.
fn open(path: &str, key: &str) -> Result<csv::Reader<std::fs::File>, PresetError> {
    let meta =
        std::fs::metadata(path).map_err(|e| refuse(key, path, &format!("cannot be read: {e}")))?;
    if !meta.is_file() {
        return Err(refuse(key, path, "is not a regular file (a CSV file is)"));
    }
    if meta.len() > MAX_CSV_BYTES {
        return Err(refuse(
            key,
            path,
            &format!(
                "is {} bytes; a CSV file is at most {MAX_CSV_BYTES} bytes (64 MiB)",
                meta.len()
            ),
        ));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| refuse(key, path, &format!("cannot be read: {e}")))?;
    Ok(csv::ReaderBuilder::new().flexible(true).from_reader(file))
}

/// Where each of `needed` is among the header's columns.
fn columns(
    reader: &mut csv::Reader<std::fs::File>,
    path: &str,
    key: &str,
    needed: &[&str],
) -> Result<Vec<usize>, PresetError> {
    let header = reader
        .headers()
        .map_err(|e| refuse(key, path, &e.to_string()))?
        .clone();
    needed
        .iter()
        .map(|n| {
            header.iter().position(|h| h.trim() == *n).ok_or_else(|| {
                refuse(
                    key,
                    &format!("{path}, line 1"),
                    &format!(
                        "the header has no column {n} (it needs {})",
                        needed.join(", ")
                    ),
                )
            })
        })
        .collect()
}

/// A cell as a message shows it: quoted, on one line, at most 40 characters.
fn shown(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    match one_line.char_indices().nth(40) {
        Some((i, _)) => format!("{:?}…", &one_line[..i]),
        None => format!("{one_line:?}"),
    }
}

fn refuse(key: &str, place: &str, rule: &str) -> PresetError {
    key_err(key, format!("{place}: {rule}"))
}
