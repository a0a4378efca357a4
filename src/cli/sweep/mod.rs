//! `pdes-lab sweep` and `pdes-lab sweep-merge`: a preset run over a grid of key values and
//! seeds, for every model of the registry.
//!
//! One row per run (point × seed) with the run's whole summary; one aggregate per point
//! (mean and 95% confidence interval over seeds of every numeric field); a figure with
//! `--plot`. Runs go to a pool of worker threads (CPU engines: one per core; GPU engines:
//! several in flight on each device, `--devices` spreading them over several GPUs). With `--format csv --out FILE` the rows are
//! appended to FILE as they finish, each line whole, so an interrupted sweep leaves a valid
//! partial CSV that `--resume` completes (the file is rewritten in (point, seed) order when
//! the sweep is complete). `--shard I/N` runs the points p with p mod N = I, and
//! `sweep-merge` joins the shards' CSVs into the unsharded file, checking that every run of
//! the grid is there exactly once.

mod execute;
mod jobs;
mod merge;
mod plan;
mod report;
mod rows;

pub use merge::merge;

use super::{CliError, EngineArg, Format, RunArgs, output, run::config_from_args};
use pdes_runs::sweep::spec::parse_shard;
use serde_json::{Map, Value};
use std::path::PathBuf;

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
    /// Runs in flight at once (default: CPU cores for CPU engines, 4 per GPU).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// The GPUs the runs spread over: `all`, or device numbers such as 0,1 (`pdes-lab
    /// devices` lists them); each passes `verify --quick` before it takes a run. Default:
    /// the best one, unverified.
    #[arg(long, value_name = "all|0,1")]
    pub devices: Option<pdes_runs::devices::Devices>,
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

fn input(e: impl std::fmt::Display) -> CliError {
    CliError::Input(e.to_string())
}

/// Runs `pdes-lab sweep`: checks the destinations, reads what a resumed file holds, runs
/// the rest of this shard on the pool, then writes the outputs.
pub fn run(args: &SweepArgs) -> Result<(), CliError> {
    let mut plan = plan::Plan::new(args)?;
    let shard = args.shard.as_deref().map(parse_shard).transpose()?;
    plan::check_runs(&plan, shard)?;
    check_destinations(args)?;
    let (done, header) = match (args.resume, args.out.as_ref()) {
        (true, Some(path)) if path.exists() => {
            let (done, header) = rows::resumed(&plan, path)?;
            (done, Some(header))
        }
        _ => (Vec::new(), None),
    };
    let gpu = execute::on_gpu(&plan)?;
    let devices = match (&args.devices, gpu) {
        (None, _) => Vec::new(),
        (Some(_), false) => {
            return Err(input(
                "--devices: these runs are on the CPU (run.engine = \"cpu\"); add --engine gpu",
            ));
        }
        (Some(d), true) => {
            pdes_runs::devices::check(d).map_err(CliError::Input)?;
            pdes_runs::devices::open_verified(d, &mut |line| output::to_stderr(&line))
                .map_err(CliError::Run)?
        }
    };
    let jobs = jobs::jobs(&plan, shard, &done, devices.len())?;
    let executed = execute::execute(args, &plan, &jobs, gpu, &devices, header)?;
    report::write(args, &mut plan, done, executed)
}

/// Refuses, before any run, what the outputs cannot be: `--resume` without a CSV to
/// complete, two outputs on one path, an unwritable destination, a figure that is neither
/// PNG nor SVG.
fn check_destinations(args: &SweepArgs) -> Result<(), CliError> {
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
    Ok(())
}
