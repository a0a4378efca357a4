//! A sweep's CSV rows: the header, one row's cells, and the rows a resumed file already
//! holds.

use super::plan::Plan;
use super::{CliError, LEAD, RunRow, input};
use pdes_runs::sweep::spec::cell;
use serde_json::{Map, Value};
use std::path::Path;

/// The rows of an existing CSV (for --resume): header and records.
pub(super) fn read_csv(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>), CliError> {
    let mut r = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(path)
        .map_err(|e| input(format!("{}: {e}", path.display())))?;
    let header: Vec<String> = r
        .headers()
        .map_err(|e| input(format!("{}: {e}", path.display())))?
        .iter()
        .map(str::to_string)
        .collect();
    let mut rows = Vec::new();
    for rec in r.records() {
        // a line cut by an interruption has too few fields: it is dropped and run again
        match rec {
            Ok(rec) if rec.len() == header.len() => {
                rows.push(rec.iter().map(str::to_string).collect())
            }
            _ => {}
        }
    }
    Ok((header, rows))
}

/// The column that proves a row is the sweep's own, as the sweep wrote it: a digest of the
/// row's every other cell (the sweep's identity, point and seed among them). `sweep-merge`
/// and `--resume` recompute it and refuse a row that was edited (issue 57 §2: a seed changed
/// from 1 to 9 merged "complete" with that run missing). FNV-1a over the row's CSV line, as
/// the identity is: it detects edits, it is not a signature against forgery.
pub(super) const DIGEST: &str = "row_digest";

/// `cells` (under `header`) with the [`DIGEST`] cell set from all the others.
pub(super) fn with_digest(mut cells: Vec<String>, header: &[String]) -> Vec<String> {
    if let Some(i) = header.iter().position(|h| h == DIGEST) {
        cells[i] = digest_of(&cells, i);
    }
    cells
}

/// The digest of `cells` without the one at `skip` (the digest's own).
pub(super) fn digest_of(cells: &[String], skip: usize) -> String {
    let others: Vec<String> = cells
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != skip)
        .map(|(_, c)| c.clone())
        .collect();
    pdes_runs::sweep::identity(&csv_line(&others))
}

/// Whether `row` (under `header`) holds the digest of its other cells.
pub(super) fn digest_holds(header: &[String], row: &[String]) -> bool {
    header
        .iter()
        .position(|h| h == DIGEST)
        .is_some_and(|i| row.get(i).is_some_and(|d| *d == digest_of(row, i)))
}

pub(super) fn csv_line(fields: &[String]) -> String {
    let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
    let _ = w.write_record(fields);
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// The cells of a run row under `header`.
/// What the `error` cell of an empty shard's one row says: `--shard I/N` with more shards
/// than points leaves some with no point, and such a shard still records the sweep's
/// identity so that `sweep-merge` checks it like any other.
pub(super) const EMPTY_SHARD: &str = "this shard holds no points";

/// The one row of an empty shard under `header`: the sweep's identity, its grid's size,
/// and [`EMPTY_SHARD`].
pub(super) fn empty_shard_cells(plan: &Plan, header: &[String]) -> Vec<String> {
    let cells = header
        .iter()
        .map(|h| match h.as_str() {
            "sweep" => plan.identity.clone(),
            "points" => plan.points.len().to_string(),
            "seeds" => plan.seeds.len().to_string(),
            "error" => EMPTY_SHARD.to_string(),
            _ => String::new(),
        })
        .collect();
    with_digest(cells, header)
}

/// The (identity, points, seeds) of a shard that holds no points, if it is one.
pub(super) fn empty_shard(header: &[String], rows: &[Vec<String>]) -> Option<[String; 3]> {
    let [row] = rows else { return None };
    let get = |k: &str| header.iter().position(|c| c == k).map(|i| row[i].clone());
    (get("point")?.is_empty() && get("error")? == EMPTY_SHARD)
        .then(|| Some([get("sweep")?, get("points")?, get("seeds")?]))
        .flatten()
}

/// The cells of run `r` under `header`, its digest last.
pub(super) fn row_cells(plan: &Plan, r: &RunRow, header: &[String]) -> Vec<String> {
    let fields = r.result.as_ref().ok();
    let cells = header
        .iter()
        .map(|h| match h.as_str() {
            "sweep" => plan.identity.clone(),
            "point" => r.point.to_string(),
            "points" => plan.points.len().to_string(),
            "seed" => r.seed.map_or(String::new(), |s| s.to_string()),
            "seeds" => plan.seeds.len().to_string(),
            "error" => r.result.as_ref().err().cloned().unwrap_or_default(),
            k => {
                if let Some(i) = plan.varies.iter().position(|v| v.key == k) {
                    return cell(&plan.points[r.point][i]);
                }
                match fields.and_then(|f| f.get(k)) {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Null) | None => String::new(),
                    Some(v) => v.to_string(),
                }
            }
        })
        .collect();
    with_digest(cells, header)
}

pub(super) fn header_of(plan: &Plan, fields: Option<&Map<String, Value>>) -> Vec<String> {
    let mut h: Vec<String> = LEAD.iter().map(|s| s.to_string()).collect();
    h.extend(plan.varies.iter().map(|v| v.key.clone()));
    if let Some(f) = fields {
        // the summary's own "seed" is the lead column's
        let fresh: Vec<String> = f.keys().filter(|k| !h.contains(k)).cloned().collect();
        h.extend(fresh);
    }
    h.push("error".into());
    h.push(DIGEST.into());
    h
}

/// The finished runs of a resumed CSV at `path` and its header; a file of another sweep
/// (other columns, or a row whose identity is not this sweep's) is refused.
pub(super) fn resumed(plan: &Plan, path: &Path) -> Result<(Vec<RunRow>, Vec<String>), CliError> {
    let mut done: Vec<RunRow> = Vec::new();
    let (h, rows) = read_csv(path)?;
    let expected = header_of(plan, None);
    let lead = &expected[..expected.len() - 2]; // without "error" and the digest
    if h.len() < expected.len() || h[..lead.len()] != *lead || !h.iter().any(|c| c == DIGEST) {
        return Err(input(format!(
            "--resume {}: its columns do not start with {} and end with {DIGEST} (another sweep's file, or one of an older version?)",
            path.display(),
            lead.join(",")
        )));
    }
    for (line, row) in rows.into_iter().enumerate() {
        // a row edited after the sweep wrote it is never adopted: it runs again
        if !digest_holds(&h, &row) {
            continue;
        }
        let get = |k: &str| h.iter().position(|c| c == k).map(|i| row[i].clone());
        if get("sweep").as_deref() != Some(plan.identity.as_str()) {
            return Err(input(format!(
                "--resume {}: row {} belongs to another sweep (its identity {} is not this sweep's {}: other --vary values, --seeds, --set or preset); give another --out, or leave out --resume to replace the file",
                path.display(),
                line + 2,
                get("sweep").unwrap_or_default(),
                plan.identity
            )));
        }
        let (Some(p), Some(e)) = (get("point"), get("error")) else {
            continue;
        };
        let Ok(point) = p.parse::<usize>() else {
            continue;
        };
        if !e.is_empty() || point >= plan.points.len() {
            continue; // failed runs are run again
        }
        let seed = get("seed").and_then(|s| s.parse::<i64>().ok());
        let Some(seed_index) = plan.seeds.iter().position(|s| *s == seed) else {
            continue;
        };
        let mut fields = Map::new();
        for (i, c) in h.iter().enumerate() {
            if LEAD.contains(&c.as_str())
                || c == "error"
                || c == DIGEST
                || plan.varies.iter().any(|v| &v.key == c)
            {
                continue;
            }
            // as the summary wrote it: integers stay integers ("8", not "8.0")
            let text = &row[i];
            let v = if text.is_empty() {
                Value::Null
            } else if let Ok(n) = text.parse::<i64>() {
                Value::from(n)
            } else if let Some(x) = text
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
            {
                Value::Number(x)
            } else {
                Value::String(text.clone())
            };
            fields.insert(c.clone(), v);
        }
        done.push(RunRow {
            point,
            seed_index: seed_index as u32,
            seed,
            result: Ok(fields),
        });
    }
    Ok((done, h))
}
