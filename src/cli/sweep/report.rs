//! A finished sweep's outputs: the CSV, JSON or table, the aggregates over seeds, the
//! figure, and the exit status when runs failed.

use super::execute::Executed;
use super::plan::Plan;
use super::rows::{csv_line, empty_shard_cells, header_of, row_cells};
use super::{CliError, Format, RunRow, SweepArgs, input, output};
use pdes_runs::sweep::spec::cell;
use pdes_runs::sweep::{plot, stats};
use serde_json::{Map, Value, json};
use std::path::Path;

/// Writes a sweep's outputs from its resumed runs `done` and the new ones.
pub(super) fn write(
    args: &SweepArgs,
    plan: &mut Plan,
    done: Vec<RunRow>,
    executed: Executed,
) -> Result<(), CliError> {
    let Executed {
        rows: new_rows,
        header,
        statistics,
        wall,
        total,
    } = executed;
    plan.statistics = statistics;
    let mut rows: Vec<RunRow> = done.into_iter().chain(new_rows).collect();
    rows.sort_by_key(|r| (r.point, r.seed_index));
    if plan.statistics.is_empty() {
        // resumed without a new run: the leading statistics are those of the first row
        plan.statistics = rows
            .iter()
            .find_map(|r| r.result.as_ref().ok())
            .map(|f| {
                ["utilization", "mean_sojourn", "mean_temperature"]
                    .into_iter()
                    .filter(|k| f.contains_key(*k))
                    .collect()
            })
            .unwrap_or_default();
    }
    let header =
        header.unwrap_or_else(|| header_of(plan, rows.iter().find_map(|r| r.result.as_ref().ok())));
    let aggregates = aggregate(plan, &rows);
    let failed: Vec<&RunRow> = rows.iter().filter(|r| r.result.is_err()).collect();
    let y = plan
        .y
        .clone()
        .or_else(|| plan.statistics.first().map(|s| s.to_string()));
    // outputs
    let csv_text = || -> String {
        let mut t = csv_line(&header);
        for r in &rows {
            t.push_str(&csv_line(&row_cells(plan, r, &header)));
        }
        if rows.is_empty() && args.shard.is_some() {
            t.push_str(&csv_line(&empty_shard_cells(plan, &header)));
        }
        t
    };
    match args.format {
        Format::Csv => {
            let text = csv_text();
            match &args.out {
                // complete: the progressive file is replaced by the sorted one
                Some(p) => output::write_atomically(p, &text)
                    .map_err(|e| CliError::Run(format!("--out {}: {e}", p.display())))?,
                None => output::write_stdout(&text).map_err(output::stdout_error)?,
            }
        }
        Format::Json => {
            let doc = json_document(args, plan, &header, &rows, &aggregates, wall, total);
            let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
            output::emit(&text, args.out.as_deref(), "--out")?;
        }
        Format::Table => {
            let text = table(plan, &aggregates, y.as_deref(), wall, total);
            output::emit(&text, args.out.as_deref(), "--out")?;
        }
    }
    if let (Some(path), Some(y)) = (&args.plot, &y) {
        figure(plan, &aggregates, y, args.preset.as_deref(), path)?;
    }
    if let Some(first) = failed.first() {
        return Err(CliError::Run(format!(
            "{} of {} runs failed; first: point {} ({}) seed {}: {}",
            failed.len(),
            rows.len(),
            first.point,
            plan.describe(first.point),
            first.seed.map_or("—".into(), |s| s.to_string()),
            first.result.as_ref().err().cloned().unwrap_or_default()
        )));
    }
    Ok(())
}

/// The JSON document of a sweep: its specification, the aggregates per point, every run
/// (a run's own values where it has them, else the cell as the CSV writes it), the failures
/// and the pace.
fn json_document(
    args: &SweepArgs,
    plan: &Plan,
    header: &[String],
    rows: &[RunRow],
    aggregates: &[Aggregate],
    wall: f64,
    total: usize,
) -> Value {
    let failed = rows.iter().filter(|r| r.result.is_err()).count();
    let runs: Vec<Value> = rows
        .iter()
        .map(|r| {
            let mut o = Map::new();
            for (h, c) in header.iter().zip(row_cells(plan, r, header)) {
                if h == super::rows::DIGEST {
                    continue; // the CSV's proof of a row; JSON is one document
                }
                let v = match r.result.as_ref().ok().and_then(|f| f.get(h)) {
                    Some(v) => v.clone(),
                    None => c
                        .parse::<i64>()
                        .map(Value::from)
                        .unwrap_or(Value::String(c)),
                };
                o.insert(h.clone(), v);
            }
            Value::Object(o)
        })
        .collect();
    json!({
        "sweep": {
            "preset": args.preset.clone().unwrap_or_else(|| pdes_models::preset::default_preset().into()),
            "vary": plan.varies.iter().map(|v| json!({"key": v.key, "values": v.values.iter().map(|x| serde_json::to_value(x).unwrap_or(Value::Null)).collect::<Vec<_>>(), "log": v.log})).collect::<Vec<_>>(),
            "seeds": plan.seeds,
            "shard": args.shard,
        },
        "points": aggregates.iter().map(|a| a.to_json(plan)).collect::<Vec<_>>(),
        "runs": runs,
        "failed": failed,
        "wall_seconds": wall,
        "runs_per_second": total as f64 / wall.max(1e-9),
    })
}

/// One point's aggregate over its seeds.
struct Aggregate {
    point: usize,
    n: usize,
    estimates: Vec<(String, stats::Estimate)>,
}

impl Aggregate {
    fn get(&self, k: &str) -> Option<stats::Estimate> {
        self.estimates.iter().find(|(n, _)| n == k).map(|(_, e)| *e)
    }

    fn to_json(&self, plan: &Plan) -> Value {
        let values: Map<String, Value> = plan
            .varies
            .iter()
            .zip(&plan.points[self.point])
            .map(|(v, x)| {
                (
                    v.key.clone(),
                    serde_json::to_value(x).unwrap_or(Value::Null),
                )
            })
            .collect();
        let est: Map<String, Value> = self
            .estimates
            .iter()
            .map(|(k, e)| (k.clone(), json!({"mean": e.mean, "ci95": e.ci95})))
            .collect();
        json!({"point": self.point, "values": values, "n": self.n, "estimates": est})
    }
}

fn aggregate(plan: &Plan, rows: &[RunRow]) -> Vec<Aggregate> {
    let mut out = Vec::new();
    for p in 0..plan.points.len() {
        let ok: Vec<&Map<String, Value>> = rows
            .iter()
            .filter(|r| r.point == p)
            .filter_map(|r| r.result.as_ref().ok())
            .collect();
        if !ok.is_empty() {
            out.push(Aggregate {
                point: p,
                n: ok.len(),
                estimates: stats::estimates(&ok),
            });
        }
    }
    out
}

fn table(plan: &Plan, aggs: &[Aggregate], y: Option<&str>, wall: f64, runs: usize) -> String {
    let mut stats: Vec<&str> = y.into_iter().collect();
    stats.extend(plan.statistics.iter().copied().filter(|s| Some(*s) != y));
    let mut t = String::new();
    let mut head: Vec<String> = plan.varies.iter().map(|v| v.key.clone()).collect();
    head.push("n".into());
    head.extend(stats.iter().map(|s| format!("{s} (mean ± 95% CI)")));
    t.push_str(&head.join("  "));
    t.push('\n');
    for a in aggs {
        let mut line: Vec<String> = plan.points[a.point].iter().map(cell).collect();
        line.push(a.n.to_string());
        for s in &stats {
            line.push(match a.get(s) {
                Some(e) => match e.ci95 {
                    Some(c) => format!("{:.6} ± {:.6}", e.mean, c),
                    None => format!("{:.6}", e.mean),
                },
                None => "—".into(),
            });
        }
        t.push_str(&line.join("  "));
        t.push('\n');
    }
    t.push_str(&format!(
        "{runs} runs in {wall:.2} s ({:.2} runs/s)\n",
        runs as f64 / wall.max(1e-9)
    ));
    t
}

pub(super) fn as_number(v: &toml::Value) -> Option<f64> {
    v.as_float().or_else(|| v.as_integer().map(|i| i as f64))
}

fn figure(
    plan: &Plan,
    aggs: &[Aggregate],
    y: &str,
    preset: Option<&str>,
    path: &Path,
) -> Result<(), CliError> {
    if plan.points.iter().any(|p| as_number(&p[0]).is_none()) {
        return Err(input(format!(
            "--plot: the first swept key, {}, must be numeric to be an x axis",
            plan.varies[0].key
        )));
    }
    if !aggs.iter().any(|a| a.get(y).is_some()) {
        return Err(input(format!(
            "--y {y}: not a numeric field of the runs' summaries"
        )));
    }
    let label = |point: usize| -> String {
        plan.varies[1..]
            .iter()
            .zip(&plan.points[point][1..])
            .map(|(v, x)| format!("{} = {}", v.key, cell(x)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut series: Vec<plot::Series> = Vec::new();
    for a in aggs {
        let l = label(a.point);
        let Some(e) = a.get(y) else { continue };
        let x = as_number(&plan.points[a.point][0]).unwrap_or(0.0);
        let i = match series.iter().position(|s| s.label == l) {
            Some(i) => i,
            None => {
                series.push(plot::Series {
                    label: l,
                    points: Vec::new(),
                    reference: Vec::new(),
                });
                series.len() - 1
            }
        };
        series[i].points.push((x, e.mean, e.ci95));
        if let Some(r) = pdes_runs::sweep::reference_fields(y)
            .iter()
            .find_map(|k| a.get(k))
        {
            series[i].reference.push((x, r.mean));
        }
    }
    let title = format!(
        "{y} against {} ({})",
        plan.varies[0].key,
        preset.unwrap_or(pdes_models::preset::default_preset())
    );
    let fig = plot::Figure {
        title: &title,
        x_label: &plan.varies[0].key,
        y_label: y,
        log_x: plan.varies[0].log,
        reference_label: "exact (exponential service)",
        series,
    };
    plot::draw(&fig, path).map_err(|e| CliError::Run(format!("--plot {}: {e}", path.display())))
}
