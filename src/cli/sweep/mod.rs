//! `pdes-lab sweep` and `pdes-lab sweep-merge`: a preset run over a grid of key values and
//! seeds, for every model of the registry.
//!
//! One row per run (point × seed) with the run's whole summary; one aggregate per point
//! (mean and 95% confidence interval over seeds of every numeric field); a figure with
//! `--plot`. Runs go to a pool of worker threads (CPU engines: one per core; GPU engines:
//! several in flight on the shared device). With `--format csv --out FILE` the rows are
//! appended to FILE as they finish, each line whole, so an interrupted sweep leaves a valid
//! partial CSV that `--resume` completes (the file is rewritten in (point, seed) order when
//! the sweep is complete). `--shard I/N` runs the points p with p mod N = I, and
//! `sweep-merge` joins the shards' CSVs into the unsharded file, checking that every run of
//! the grid is there exactly once.

use super::{CliError, EngineArg, Format, RunArgs, output, run::config_from_args};
use pdes_models::config::echo;
use pdes_runs::sweep::spec::{Vary, cell, grid, parse_shard, parse_vary, set_value};
use pdes_runs::sweep::{plot, stats};
use serde_json::{Map, Value, json};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Arguments of `pdes-lab sweep`.
#[derive(clap::Args, Debug, Default)]
pub struct SweepArgs {
    /// Preset: a built-in name or a TOML file (its `[sweep]` table, if any, gives the
    /// default --vary, --seeds and --y).
    pub preset: Option<String>,
    /// KEY=V1,V2,… or KEY=START:STOP:N[:log]; repeat for a grid (the product, first key
    /// outermost).
    #[arg(long, value_name = "SPEC")]
    pub vary: Vec<String>,
    /// Seeds per point: run.seed, run.seed + 1, … (models with a seed).
    #[arg(long, value_name = "N")]
    pub seeds: Option<u32>,
    /// Override a preset key for every run.
    #[arg(long, value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Algorithm for every run (the preset model's names).
    #[arg(long)]
    pub algorithm: Option<String>,
    /// Engine for every run.
    #[arg(long, value_enum)]
    pub engine: Option<EngineArg>,
    /// Output format: table (one line per point), json (runs and points), csv (one row per
    /// run).
    #[arg(long, default_value = "table", value_parser = super::format_parser())]
    pub format: Format,
    /// Write the output here (csv: row by row as runs finish).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Draw the figure (the statistic of --y against the first swept key) as PNG or SVG.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// The statistic the table leads with and the figure shows (a summary field).
    #[arg(long, value_name = "FIELD")]
    pub y: Option<String>,
    /// Run only the points p with p mod N = I.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Complete the CSV of --out: keep its finished runs, run the rest.
    #[arg(long)]
    pub resume: bool,
    /// Runs in flight at once (default: CPU cores for CPU engines, 4 on the GPU).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
}

/// Arguments of `pdes-lab sweep-merge`.
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The shards' CSV files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Write the merged CSV here instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// The `[sweep]` table of a sweep preset.
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SweepTable {
    #[serde(default)]
    vary: Vec<String>,
    seeds: Option<u32>,
    y: Option<String>,
}

/// Columns every run row starts with (then the swept keys, the summary, `error`); `sweep`
/// is the sweep's identity ([`pdes_runs::sweep::identity`]).
const LEAD: [&str; 5] = ["sweep", "point", "points", "seed", "seeds"];

/// One finished run.
struct RunRow {
    point: usize,
    seed_index: u32,
    seed: Option<i64>,
    result: Result<Map<String, Value>, String>,
}

/// A sweep, resolved: the grid, the seeds, what to run.
struct Plan {
    base: RunArgs,
    varies: Vec<Vary>,
    points: Vec<Vec<toml::Value>>,
    seeds: Vec<Option<i64>>,
    y: Option<String>,
    statistics: Vec<&'static str>,
    /// The sweep's identity: what every row's `sweep` cell holds.
    identity: String,
}

fn input(e: impl std::fmt::Display) -> CliError {
    CliError::Input(e.to_string())
}

impl Plan {
    fn new(args: &SweepArgs) -> Result<Self, CliError> {
        let base = RunArgs {
            preset: args.preset.clone(),
            set: args.set.clone(),
            algorithm: args.algorithm.clone(),
            engine: args.engine,
            ..Default::default()
        };
        let config = config_from_args(&base)?;
        let info = config.model_info();
        let name = args
            .preset
            .as_deref()
            .unwrap_or(pdes_models::preset::default_preset());
        let (_, text) = pdes_models::preset::load_text(name).map_err(input)?;
        let table: toml::Table = text.parse().map_err(input)?;
        let sweep: SweepTable = match table.get("sweep") {
            Some(v) => v
                .clone()
                .try_into()
                .map_err(|e: toml::de::Error| input(format!("[sweep]: {}", e.message())))?,
            None => SweepTable::default(),
        };
        let specs = if args.vary.is_empty() {
            &sweep.vary
        } else {
            &args.vary
        };
        if specs.is_empty() {
            return Err(input(
                "--vary: nothing to sweep (give --vary KEY=V1,V2,… or KEY=START:STOP:N[:log], or a preset with a [sweep] table)",
            ));
        }
        let varies: Vec<Vary> = specs
            .iter()
            .map(|s| parse_vary(s, info.keys))
            .collect::<Result<_, _>>()?;
        for (i, v) in varies.iter().enumerate() {
            if varies[..i].iter().any(|w| w.key == v.key) {
                return Err(input(format!("--vary {}: swept twice", v.key)));
            }
            // the seeds of a run are --seeds' (run.seed, run.seed + 1, …): a swept seed
            // would be overwritten by them
            if v.key == "run.seed" {
                return Err(input(
                    "--vary run.seed: seeds are not swept as a key; use --seeds N (runs each point with run.seed, run.seed + 1, …, run.seed + N − 1) and --set run.seed=S for the first",
                ));
            }
        }
        let n_seeds = args.seeds.or(sweep.seeds).unwrap_or(1);
        if !(1..=10_000).contains(&n_seeds) {
            return Err(input(format!(
                "--seeds {n_seeds}: expected an integer in 1..=10000"
            )));
        }
        let has_seed = info.keys.contains(&"run.seed");
        if n_seeds > 1 && !has_seed {
            return Err(input(format!(
                "--seeds {n_seeds}: model.kind = \"{}\" has no run.seed (its runs are deterministic)",
                info.kind
            )));
        }
        let base_seed = has_seed.then(|| base_seed(&text, &args.set));
        let seeds: Vec<Option<i64>> = (0..n_seeds)
            .map(|i| match base_seed {
                Some(s) => s.checked_add(i64::from(i)).map(Some).ok_or_else(|| {
                    input(format!(
                        "--seeds {n_seeds}: run.seed {s} + {} is past the largest seed, {}; give a smaller run.seed",
                        n_seeds - 1,
                        i64::MAX
                    ))
                }),
                None => Ok(None),
            })
            .collect::<Result<_, _>>()?;
        let points = grid(&varies);
        // what the results depend on: the engine is not part of it (GPU ≡ CPU, checked by
        // verify), so a CPU shard and a GPU shard of one sweep merge
        let mut resolved = config.clone();
        resolved.set_engine(pdes_models::preset::EngineKind::Cpu);
        let mut spec = resolved.to_toml("sweep");
        for v in &varies {
            let values: Vec<String> = v.values.iter().map(cell).collect();
            spec.push_str(&format!("\nvary {} = {}", v.key, values.join(",")));
        }
        spec.push_str(&format!("\nseeds = {seeds:?}"));
        Ok(Self {
            base,
            varies,
            points,
            seeds,
            y: args.y.clone().or(sweep.y),
            statistics: Vec::new(),
            identity: pdes_runs::sweep::identity(&spec),
        })
    }

    /// The configuration of run (point, seed).
    fn run_args(&self, point: usize, seed: Option<i64>) -> RunArgs {
        let mut a = RunArgs {
            preset: self.base.preset.clone(),
            set: self.base.set.clone(),
            algorithm: self.base.algorithm.clone(),
            engine: self.base.engine,
            ..Default::default()
        };
        for (v, x) in self.varies.iter().zip(&self.points[point]) {
            a.set.push(format!("{}={}", v.key, set_value(x)));
        }
        if let Some(s) = seed {
            a.set.push(format!("run.seed={s}"));
        }
        a
    }

    /// "key=value, key=value" of a point.
    fn describe(&self, point: usize) -> String {
        self.varies
            .iter()
            .zip(&self.points[point])
            .map(|(v, x)| format!("{}={}", v.key, cell(x)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// run.seed after the preset and the --set overrides (1 when neither gives one).
fn base_seed(text: &str, sets: &[String]) -> i64 {
    let mut table: toml::Table = text.parse().unwrap_or_default();
    for s in sets {
        let _ = pdes_models::preset::apply_set(&mut table, s);
    }
    pdes_runs::sweep::first_seed(&table)
}

/// Runs seeds `seeds` (indices into the plan's) of one point: each one's summary fields,
/// or the error that stopped it (on the GPU, in one engine where the model can).
fn run_point(
    plan: &Plan,
    point: usize,
    seeds: &[u32],
) -> Vec<Result<pdes_runs::sweep::RunOutput, String>> {
    let config = match config_from_args(&plan.run_args(point, None)) {
        Ok(c) => c,
        Err(e) => return seeds.iter().map(|_| Err(e.to_string())).collect(),
    };
    let gpu = if config.engine() == pdes_models::preset::EngineKind::Gpu {
        match pdes_gpu::Gpu::shared() {
            Ok(g) => Some(g),
            Err(e) => return seeds.iter().map(|_| Err(e.clone())).collect(),
        }
    } else {
        None
    };
    let values: Vec<Option<i64>> = seeds.iter().map(|&s| plan.seeds[s as usize]).collect();
    pdes_runs::sweep::run_seeds(&config, &values, gpu)
}

/// The rows of an existing CSV (for --resume): header and records.
fn read_csv(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>), CliError> {
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

fn csv_line(fields: &[String]) -> String {
    let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
    let _ = w.write_record(fields);
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// The cells of a run row under `header`.
fn row_cells(plan: &Plan, r: &RunRow, header: &[String]) -> Vec<String> {
    let fields = r.result.as_ref().ok();
    header
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
        .collect()
}

fn header_of(plan: &Plan, fields: Option<&Map<String, Value>>) -> Vec<String> {
    let mut h: Vec<String> = LEAD.iter().map(|s| s.to_string()).collect();
    h.extend(plan.varies.iter().map(|v| v.key.clone()));
    if let Some(f) = fields {
        // the summary's own "seed" is the lead column's
        let fresh: Vec<String> = f.keys().filter(|k| !h.contains(k)).cloned().collect();
        h.extend(fresh);
    }
    h.push("error".into());
    h
}

/// Runs `pdes-lab sweep`.
pub fn run(args: &SweepArgs) -> Result<(), CliError> {
    let mut plan = Plan::new(args)?;
    let shard = args.shard.as_deref().map(parse_shard).transpose()?;
    if args.resume && (args.format != Format::Csv || args.out.is_none()) {
        return Err(input(
            "--resume: needs --format csv and --out FILE (the CSV to complete)",
        ));
    }
    output::check_distinct(&[
        ("--out", args.out.as_deref()),
        ("--plot", args.plot.as_deref()),
    ])
    .map_err(CliError::Input)?;
    for (flag, path) in [("--out", &args.out), ("--plot", &args.plot)] {
        if let Some(p) = path
            && !(args.resume && flag == "--out")
        {
            output::check_writable(p).map_err(|e| input(format!("{flag} {}: {e}", p.display())))?;
        }
    }
    if let Some(p) = &args.plot {
        let ok = p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("png") || e.eq_ignore_ascii_case("svg"));
        if !ok {
            return Err(input(format!(
                "--plot {}: the figure is a .png or a .svg file",
                p.display()
            )));
        }
    }
    // The runs of this shard, minus those a resumed CSV already has.
    let mut done: Vec<RunRow> = Vec::new();
    let mut header: Option<Vec<String>> = None;
    if let (true, Some(path)) = (args.resume, args.out.as_ref())
        && path.exists()
    {
        let (h, rows) = read_csv(path)?;
        let expected = header_of(&plan, None);
        if h.len() < expected.len() || h[..expected.len() - 1] != expected[..expected.len() - 1] {
            return Err(input(format!(
                "--resume {}: its columns do not start with {} (another sweep's file?)",
                path.display(),
                expected[..expected.len() - 1].join(",")
            )));
        }
        for (line, row) in rows.into_iter().enumerate() {
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
        header = Some(h);
    }
    let base = config_from_args(&plan.base)?;
    let gpu = base.engine() == pdes_models::preset::EngineKind::Gpu;
    // A job: one point's seeds that run together (all of them in one GPU engine where the
    // model has replicas; else one seed per job, so that workers share the seeds).
    let together = gpu && base.model_info().replicas.is_some();
    let jobs: Vec<(usize, Vec<u32>)> = (0..plan.points.len())
        .filter(|p| shard.is_none_or(|(i, n)| p % n == i))
        .flat_map(|p| {
            let todo: Vec<u32> = (0..plan.seeds.len() as u32)
                .filter(|s| !done.iter().any(|d| d.point == p && d.seed_index == *s))
                .collect();
            if together {
                vec![(p, todo)]
            } else {
                todo.into_iter().map(|s| (p, vec![s])).collect()
            }
        })
        .filter(|(_, seeds)| !seeds.is_empty())
        .collect();
    let workers = args
        .jobs
        .unwrap_or(if gpu {
            4
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        })
        .clamp(1, 256)
        .min(jobs.len().max(1));
    let total: usize = jobs.iter().map(|(_, seeds)| seeds.len()).sum();
    let bar = (std::io::stderr().is_terminal() && total > 1).then(|| {
        let b = indicatif::ProgressBar::new(total as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} runs  {elapsed} elapsed, ETA {eta}  {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    // Progressive CSV: header now if known (resume), else with the first success.
    let progressive = args.format == Format::Csv && args.out.is_some();
    let mut file = if let (true, Some(path)) = (progressive, args.out.as_ref()) {
        // a resumed file is appended to; otherwise the file is replaced whole (appending
        // to another file's rows would leave a second header in the middle)
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(args.resume)
            .write(true)
            .truncate(!args.resume)
            .open(path)
            .map_err(|e| input(format!("--out {}: {e}", path.display())))?;
        Some(f)
    } else {
        None
    };
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel::<(
        usize,
        u32,
        Result<(Map<String, Value>, Vec<&'static str>), String>,
    )>();
    let mut new_rows: Vec<RunRow> = Vec::new();
    let mut pending: Vec<usize> = Vec::new(); // rows waiting for the header
    let mut write_err: Option<String> = None;
    let mut statistics: Vec<&'static str> = Vec::new();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (plan, jobs, next) = (&plan, &jobs, &next);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((p, seeds)) = jobs.get(i) else { break };
                    let results = run_point(plan, *p, seeds);
                    for (&s, r) in seeds.iter().zip(results) {
                        if tx.send((*p, s, r)).is_err() {
                            return;
                        }
                    }
                }
            });
        }
        drop(tx);
        for (p, s, r) in rx {
            let result = r.map(|(fields, stats)| {
                if statistics.is_empty() {
                    statistics = stats;
                }
                fields
            });
            if let Err(e) = &result {
                let msg = format!(
                    "point {p} ({}) seed {}: {e}",
                    plan.describe(p),
                    plan.seeds[s as usize].map_or("—".into(), |x| x.to_string())
                );
                match &bar {
                    Some(b) => b.println(format!("failed: {msg}")),
                    None => eprintln!("failed: {msg}"),
                }
            }
            new_rows.push(RunRow {
                point: p,
                seed_index: s,
                seed: plan.seeds[s as usize],
                result,
            });
            if let Some(b) = &bar {
                b.inc(1);
            }
            let Some(f) = file.as_mut() else { continue };
            pending.push(new_rows.len() - 1);
            if header.is_none() {
                let first_ok = new_rows.iter().find_map(|r| r.result.as_ref().ok());
                if first_ok.is_some() || pending.len() == total {
                    let h = header_of(&plan, first_ok);
                    if let Err(e) = f.write_all(csv_line(&h).as_bytes()) {
                        write_err.get_or_insert(e.to_string());
                    }
                    header = Some(h);
                }
            }
            if let Some(h) = &header {
                for &i in &pending {
                    let line = csv_line(&row_cells(&plan, &new_rows[i], h));
                    // one write per whole line, flushed: an interruption leaves whole lines
                    if let Err(e) = f.write_all(line.as_bytes()).and_then(|_| f.flush()) {
                        write_err.get_or_insert(e.to_string());
                    }
                }
                pending.clear();
            }
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if let Some(e) = write_err {
        return Err(CliError::Run(format!("--out: writing the CSV: {e}")));
    }
    let wall = started.elapsed().as_secs_f64();
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
    let header = header
        .unwrap_or_else(|| header_of(&plan, rows.iter().find_map(|r| r.result.as_ref().ok())));
    let aggregates = aggregate(&plan, &rows);
    let failed: Vec<&RunRow> = rows.iter().filter(|r| r.result.is_err()).collect();
    let y = plan
        .y
        .clone()
        .or_else(|| plan.statistics.first().map(|s| s.to_string()));
    // outputs
    let csv_text = || -> String {
        let mut t = csv_line(&header);
        for r in &rows {
            t.push_str(&csv_line(&row_cells(&plan, r, &header)));
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
            let runs: Vec<Value> = rows
                .iter()
                .map(|r| {
                    let mut o = Map::new();
                    for (h, c) in header.iter().zip(row_cells(&plan, r, &header)) {
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
            let doc = json!({
                "sweep": {
                    "preset": args.preset.clone().unwrap_or_else(|| pdes_models::preset::default_preset().into()),
                    "vary": plan.varies.iter().map(|v| json!({"key": v.key, "values": v.values.iter().map(|x| serde_json::to_value(x).unwrap_or(Value::Null)).collect::<Vec<_>>(), "log": v.log})).collect::<Vec<_>>(),
                    "seeds": plan.seeds,
                    "shard": args.shard,
                },
                "points": aggregates.iter().map(|a| a.to_json(&plan)).collect::<Vec<_>>(),
                "runs": runs,
                "failed": failed.len(),
                "wall_seconds": wall,
                "runs_per_second": total as f64 / wall.max(1e-9),
            });
            let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
            output::emit(&text, args.out.as_deref(), "--out")?;
        }
        Format::Table => {
            let text = table(&plan, &aggregates, y.as_deref(), wall, total);
            output::emit(&text, args.out.as_deref(), "--out")?;
        }
    }
    if let (Some(path), Some(y)) = (&args.plot, &y) {
        figure(&plan, &aggregates, y, args.preset.as_deref(), path)?;
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

fn as_number(v: &toml::Value) -> Option<f64> {
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
        series,
    };
    plot::draw(&fig, path).map_err(|e| CliError::Run(format!("--plot {}: {e}", path.display())))
}

/// One shard of `sweep-merge`, read strictly: its header and rows, every row whole.
fn read_shard(path: &Path) -> Result<(Vec<String>, Vec<Vec<String>>), CliError> {
    let name = path.display();
    let mut r = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(path)
        .map_err(|e| input(format!("{name}: {e}")))?;
    let header: Vec<String> = r
        .headers()
        .map_err(|e| input(format!("{name}: {e}")))?
        .iter()
        .map(str::to_string)
        .collect();
    let mut rows = Vec::new();
    for (i, rec) in r.records().enumerate() {
        let rec = rec.map_err(|e| input(format!("{name}: line {}: {e}", i + 2)))?;
        if rec.len() != header.len() {
            return Err(input(format!(
                "{name}: line {} has {} of its {} columns (a cut line: the shard was interrupted; complete it with sweep … --resume)",
                i + 2,
                rec.len(),
                header.len()
            )));
        }
        rows.push(rec.iter().map(str::to_string).collect());
    }
    Ok((header, rows))
}

/// Runs `pdes-lab sweep-merge`: the shards' rows, in (point, seed) order. Every row is
/// checked (one sweep's identity, a point inside the grid, no run twice) and so is the
/// whole (every point's every seed): a refusal names the shard and the points, and writes
/// nothing.
pub fn merge(args: &MergeArgs) -> Result<(), CliError> {
    if let Some(p) = &args.out {
        output::check_writable(p).map_err(|e| input(format!("--out {}: {e}", p.display())))?;
    }
    let mut header: Option<Vec<String>> = None;
    // (file index, row)
    let mut rows: Vec<(usize, Vec<String>)> = Vec::new();
    for (fi, f) in args.files.iter().enumerate() {
        let (h, r) = read_shard(f)?;
        match &header {
            None => header = Some(h),
            Some(h0) if *h0 != h => {
                return Err(input(format!(
                    "{}: its columns differ from {}'s (shards of different sweeps?)",
                    f.display(),
                    args.files[0].display()
                )));
            }
            _ => {}
        }
        rows.extend(r.into_iter().map(|row| (fi, row)));
    }
    let header = header.unwrap_or_default();
    let col = |k: &str| {
        header.iter().position(|c| c == k).ok_or_else(|| {
            input(format!(
                "{}: no {k} column (not a sweep CSV of this version)",
                args.files[0].display()
            ))
        })
    };
    let (iid, ip, ipts, is, iss) = (
        col("sweep")?,
        col("point")?,
        col("points")?,
        col("seed")?,
        col("seeds")?,
    );
    let Some((_, first)) = rows.first() else {
        return Err(input("sweep-merge: the shards hold no runs"));
    };
    let (identity, points, seeds) = (first[iid].clone(), first[ipts].clone(), first[iss].clone());
    let (Ok(n_points), Ok(n_seeds)) = (points.parse::<usize>(), seeds.parse::<usize>()) else {
        return Err(input(format!(
            "{}: points \"{points}\" and seeds \"{seeds}\" must be whole numbers",
            args.files[0].display()
        )));
    };
    let mut keyed: Vec<((usize, Option<i64>), usize)> = Vec::with_capacity(rows.len());
    for (n, (fi, r)) in rows.iter().enumerate() {
        let file = args.files[*fi].display();
        if r[iid] != identity || r[ipts] != points || r[iss] != seeds {
            return Err(input(format!(
                "{file}: a row of another sweep (identity {}, {} points × {} seeds; {} holds {identity}, {points} × {seeds}): shards of different sweeps are not merged",
                r[iid],
                r[ipts],
                r[iss],
                args.files[0].display()
            )));
        }
        let point = r[ip].parse::<usize>().ok().filter(|p| *p < n_points);
        let seed = match r[is].as_str() {
            "" => Some(None),
            t => t.parse::<i64>().ok().map(Some),
        };
        let (Some(point), Some(seed)) = (point, seed) else {
            return Err(input(format!(
                "{file}: a row with point \"{}\" and seed \"{}\" (a point is a whole number below {n_points}, a seed a whole number)",
                echo(&r[ip]),
                echo(&r[is])
            )));
        };
        keyed.push(((point, seed), n));
    }
    keyed.sort();
    if let Some(w) = keyed.windows(2).find(|w| w[0].0 == w[1].0) {
        let ((p, s), _) = w[0];
        let files: Vec<String> = w
            .iter()
            .map(|(_, n)| args.files[rows[*n].0].display().to_string())
            .collect();
        return Err(input(format!(
            "point {p} seed {} appears twice (overlapping shards? in {} and {})",
            s.map_or("—".into(), |s| s.to_string()),
            files[0],
            files[1]
        )));
    }
    let mut short: Vec<String> = Vec::new();
    for p in 0..n_points {
        let have = keyed.iter().filter(|((q, _), _)| *q == p).count();
        if have != n_seeds {
            short.push(format!("{p} ({have} of {n_seeds} seeds)"));
        }
    }
    if !short.is_empty() {
        let shown = short.len().min(8);
        return Err(CliError::Run(format!(
            "the merged sweep has {} of its {n_points} × {n_seeds} runs: a shard is missing or incomplete; points short: {}{} (nothing written)",
            keyed.len(),
            short[..shown].join(", "),
            if short.len() > shown { ", …" } else { "" }
        )));
    }
    let mut text = csv_line(&header);
    for (_, n) in &keyed {
        text.push_str(&csv_line(&rows[*n].1));
    }
    output::emit(&text, args.out.as_deref(), "--out")
}
