//! `pdes-lab bench`: runs a suite of the model that owns it ([`SUITES`] lists every model's
//! suites, one line per model), after proving CPU ≡ GPU on this adapter when the suite has
//! GPU rows. The device floors are [`floor`]'s; each model's suites are in [`suites`].

pub mod floor;
pub mod suites;

use pdes_core::Error as CliError;
use pdes_runs::output::Format;
use serde::Serialize;
use std::path::PathBuf;

/// How a suite runs and reports.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Output format (table or json).
    pub format: Format,
    /// Write the report here instead of stdout.
    pub out: Option<PathBuf>,
    /// Time every GPU pass with timestamp queries.
    pub profile: bool,
    /// Timed runs of each GPU case after one untimed warm-up (median reported).
    pub repeat: u32,
}

/// A benchmark suite of a model.
#[derive(Debug)]
pub struct BenchSuite {
    /// `--suite` value.
    pub name: &'static str,
    /// What it measures.
    pub help: &'static str,
}

/// Runs one suite of a model: (suite name, options).
pub type RunSuiteFn = fn(&str, &BenchOptions) -> Result<(), CliError>;

/// Every model's suites, (model.kind, its suites, what runs them), in the registry's order.
pub static SUITES: &[(&str, &[BenchSuite], RunSuiteFn)] = &[
    ("torus", suites::torus::SUITES, suites::torus::run),
    (
        "diffusion",
        suites::diffusion::SUITES,
        suites::diffusion::run,
    ),
    ("mmck", suites::mmck::SUITES, suites::mmck::run),
    ("devs-benchmark", suites::devs::SUITES, suites::devs::run),
    ("phold", suites::phold::SUITES, suites::phold::run),
    ("network", suites::network::SUITES, suites::network::run),
];

/// Every model's suite names (the `--suite` values).
pub fn suite_names() -> Vec<&'static str> {
    SUITES
        .iter()
        .flat_map(|(_, suites, _)| suites.iter().map(|s| s.name))
        .collect()
}

/// Runs the suite `name` with the model that owns it.
pub fn run(name: &str, options: &BenchOptions) -> Result<(), CliError> {
    check_destination(options.out.as_deref())?;
    let (_, _, run_suite) = SUITES
        .iter()
        .find(|(_, suites, _)| suites.iter().any(|s| s.name == name))
        .ok_or_else(|| {
            CliError::Input(format!(
                "--suite: \"{name}\" is not a suite (suites: {})",
                suite_names().join(", ")
            ))
        })?;
    run_suite(name, options)
}

/// The median of a benchmark's timed runs (of an even count, the upper of the middle two):
/// what every suite reports beside the runs themselves.
pub fn median(runs: &[f64]) -> f64 {
    let mut sorted = runs.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// Fails early when `--out` cannot be written (a long suite is not run to be lost).
pub fn check_destination(out: Option<&std::path::Path>) -> Result<(), CliError> {
    match out {
        Some(p) => pdes_runs::output::check_writable(p)
            .map_err(|e| CliError::Input(format!("--out {}: {e}", p.display()))),
        None => Ok(()),
    }
}

/// Runs `pdes-lab verify --quick` on this adapter before any GPU row is measured: a GPU
/// that does not reproduce its CPU twins gets no benchmark. Returns the verdict line that
/// the report carries. An attribution experiment (`PDES_WGSL_DIR` replaces shader files, so
/// the GPU no longer computes the CPU's sample path) is not verified: its verdict line says
/// so, and travels with every row of the report.
pub fn verification_gate() -> Result<String, CliError> {
    if let Some(dir) = std::env::var_os("PDES_WGSL_DIR") {
        let line = format!(
            "EXPERIMENT, NOT A RESULT: PDES_WGSL_DIR={} replaces shader files; verify not run",
            dir.to_string_lossy()
        );
        eprintln!("{line}");
        return Ok(line);
    }
    let gpu = pdes_gpu::Gpu::shared().map_err(CliError::Run)?;
    let options = pdes_runs::verify::Options {
        quick: true,
        perturb_gpu: false,
    };
    let v = pdes_runs::verify::run(&gpu, options, |_| {});
    if !v.ok() {
        return Err(CliError::Run(format!(
            "GPU differs from CPU on {} ({} of {} checks failed; first: {}); no GPU row is reported: run `pdes-lab verify` for the details",
            v.adapter,
            v.failed,
            v.passed + v.failed,
            v.first_failure().unwrap_or_default()
        )));
    }
    Ok(format!(
        "pdes-lab verify --quick: {} passed, 0 failed on {}",
        v.passed, v.adapter
    ))
}

/// Writes a suite's report: JSON (suite, device, time, command, rows) or the table with a
/// heading that names the device.
pub fn write_report<R: Serialize>(
    suite_name: &str,
    options: &BenchOptions,
    rows: &[R],
    table: &str,
    verification: Option<String>,
) -> Result<(), CliError> {
    let (format, out) = (options.format, options.out.as_deref());
    let device = match pdes_gpu::Gpu::shared() {
        Ok(g) => g.describe(),
        Err(e) => format!("no GPU ({e})"),
    };
    let text = match format {
        Format::Json => {
            let report = serde_json::json!({
                "suite": suite_name,
                "device": device,
                "unix_time": std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
                "command": std::env::args().collect::<Vec<_>>().join(" "),
                "git_commit": env!("PDES_GIT_COMMIT"),
                "verification": verification,
                "rows": rows,
            });
            serde_json::to_string_pretty(&report)
                .map_err(|e| CliError::Run(format!("the report as JSON: {e}")))?
                + "\n"
        }
        _ => format!(
            "suite {suite_name} on {device}, code {}\n{}{table}",
            env!("PDES_GIT_COMMIT"),
            verification.map_or_else(String::new, |v| v + "\n")
        ),
    };
    pdes_runs::output::emit(&text, out, "--out")
}

/// One run of a preset-based suite: a built-in preset with `--set` overrides. Runs of one
/// `group` share every model parameter; the group's first run is the reference the others'
/// speedups are measured against, and when both it and a run are of algorithms the
/// registry marks `exact`, the run must reproduce it field for field.
#[derive(Clone, Copy, Debug)]
pub struct PresetCase {
    /// Rows with the same group are compared with each other.
    pub group: &'static str,
    /// The built-in preset.
    pub preset: &'static str,
    /// `--set` overrides.
    pub sets: &'static [&'static str],
}

/// A measured [`PresetCase`]: timings plus the run's whole summary.
#[derive(Clone, Debug, Serialize)]
pub struct PresetRow {
    /// The case's group.
    pub group: &'static str,
    /// Algorithm (with timestamps for interval).
    pub algorithm: String,
    /// Whether the algorithm reproduces the sequential sample path (registry).
    pub exact: bool,
    /// "cpu" or "gpu".
    pub engine: &'static str,
    /// Work done (events, or the model's unit).
    pub work: u64,
    /// Steps taken (None for a model without steps, e.g. independent replications).
    pub steps: Option<u64>,
    /// Seconds to build the engine (state, upload, pipelines).
    pub setup_seconds: f64,
    /// Median seconds of simulation over the timed runs.
    pub wall_seconds: f64,
    /// Every timed run's seconds (GPU rows: after one untimed warm-up run).
    pub wall_seconds_runs: Vec<f64>,
    /// The fastest timed run.
    pub wall_seconds_min: f64,
    /// The slowest timed run.
    pub wall_seconds_max: f64,
    /// How the row's results were checked: against the group's exact reference field for
    /// field, and (GPU rows) by the suite's `verify --quick` gate.
    pub check: String,
    /// Work per second of simulation.
    pub work_per_second: f64,
    /// Microseconds of wall time per step (None without steps).
    pub us_per_step: Option<f64>,
    /// The group's reference run ("algorithm engine"), None for the reference itself.
    pub reference: Option<String>,
    /// Speedup over the group's reference run, measured in the same invocation.
    pub speedup_vs_reference: Option<f64>,
    /// The run's summary (the fields `pdes-lab run --format json` prints).
    pub summary: serde_json::Map<String, serde_json::Value>,
}

/// Summary fields that differ between algorithms or engines by design (the rest must be
/// identical between a window run and its group's sequential run), beside every work rate
/// (`…_per_second`: a model's report names its own, e.g. `transitions_per_second`).
const PER_ALGORITHM: [&str; 8] = [
    "algorithm",
    "timestamps",
    "engine",
    "threads",
    "steps",
    "mean_events_per_step",
    "max_events_per_step",
    "wall_seconds",
];

/// Whether summary field `key` differs between algorithms or engines by design.
fn per_algorithm(key: &str) -> bool {
    PER_ALGORITHM.contains(&key) || key.ends_with("_per_second")
}

/// One timed run of `config`: (setup s, run s, report).
fn time_run(
    config: &pdes_models::preset::Config,
) -> Result<(f64, f64, pdes_core::sim::Report), CliError> {
    let run_err = |e: pdes_core::sim::SimError| CliError::Run(e.to_string());
    let t0 = std::time::Instant::now();
    let mut sim = pdes_runs::engines::Simulation::new(config.clone()).map_err(run_err)?;
    let setup = t0.elapsed().as_secs_f64();
    let t1 = std::time::Instant::now();
    sim.engine
        .advance(pdes_core::sim::Budget::Finish)
        .map_err(run_err)?;
    let wall = t1.elapsed().as_secs_f64();
    let report = sim.engine.report().map_err(run_err)?;
    Ok((setup, wall, report))
}

/// Measures one case `repeat` times and keeps the median: GPU rows after half a second of
/// untimed runs; CPU rows need no warm-up (each run builds its state), so their first run
/// counts. (CPU rows used to run once; the device host's core varies ±10% within a call.)
fn measure_preset_case(c: &PresetCase, repeat: u32) -> Result<PresetRow, CliError> {
    let config = pdes_models::preset::config_with(c.preset, c.sets).map_err(CliError::Input)?;
    let gpu = config.engine() == pdes_models::preset::EngineKind::Gpu;
    let (setup, first, report) = time_run(&config)?;
    let mut walls = vec![first];
    if gpu && repeat > 0 {
        // warm-up: at least half a second of untimed runs, so that a GPU left idle by the
        // CPU rows before it is back at its clocks (one short run was not: on the H100 the
        // first timed runs of a 30 ms case took 2-3× the later ones)
        let mut warm = first;
        while warm < 0.5 {
            warm += time_run(&config)?.1;
        }
        walls.clear();
    }
    while walls.len() < repeat.max(1) as usize {
        walls.push(time_run(&config)?.1);
    }
    let wall = median(&walls);
    // the summary's own wall-clock fields are the row's (the engine's time, its median):
    // left unfilled they read 0 s and 0 events/s in the report
    let report = report.with_wall_time(wall);
    let info = config.algorithm_info();
    let steps = report
        .fields
        .get("steps")
        .and_then(serde_json::Value::as_u64);
    Ok(PresetRow {
        group: c.group,
        algorithm: info.label.to_string(),
        exact: info.exact,
        engine: if gpu { "gpu" } else { "cpu" },
        work: report.work(),
        steps,
        setup_seconds: setup,
        wall_seconds: wall,
        wall_seconds_min: walls.iter().copied().fold(f64::INFINITY, f64::min),
        wall_seconds_max: walls.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        wall_seconds_runs: walls,
        check: String::new(),
        work_per_second: report.work() as f64 / wall,
        us_per_step: steps.filter(|&n| n > 0).map(|n| wall * 1e6 / n as f64),
        reference: None,
        speedup_vs_reference: None,
        summary: report.fields,
    })
}

/// Runs a suite of preset cases (after the verification gate when it has GPU rows), checks
/// every exact row against its group's exact reference, and writes the report.
pub fn run_preset_suite(
    suite_name: &str,
    cases: &[PresetCase],
    options: &BenchOptions,
) -> Result<(), CliError> {
    let has_gpu = cases.iter().any(|c| c.sets.contains(&"run.engine=\"gpu\""));
    let verification = if has_gpu {
        Some(verification_gate()?)
    } else {
        None
    };
    let mut rows: Vec<PresetRow> = Vec::new();
    for c in cases {
        let mut row = measure_preset_case(c, options.repeat)?;
        let gate = if row.engine == "gpu" {
            "; GPU = CPU by the verify gate"
        } else {
            ""
        };
        row.check = format!("the group's reference{gate}");
        if let Some(reference) = rows.iter().find(|r| r.group == row.group) {
            row.reference = Some(format!("{} {}", reference.algorithm, reference.engine));
            row.speedup_vs_reference = Some(reference.wall_seconds / row.wall_seconds);
            if row.exact && reference.exact {
                let differ: Vec<&String> = reference
                    .summary
                    .keys()
                    .filter(|k| !per_algorithm(k))
                    .filter(|k| reference.summary.get(*k) != row.summary.get(*k))
                    .collect();
                if !differ.is_empty() {
                    return Err(CliError::Run(format!(
                        "{} {} {}: {differ:?} differ from the exact reference ({} {}); the row is refused",
                        row.group, row.algorithm, row.engine, reference.algorithm, reference.engine
                    )));
                }
                row.check = format!(
                    "equal field for field to {} {}{gate}",
                    reference.algorithm, reference.engine
                );
            } else {
                row.check = format!("not compared (inexact algorithm){gate}");
            }
        }
        eprintln!(
            "{:<22} {:<20} {:<3} {:>12} work {:>8} steps {:>9.3} s {:>10.3e}/s",
            row.group,
            row.algorithm,
            row.engine,
            row.work,
            row.steps.map_or("—".to_string(), |n| n.to_string()),
            row.wall_seconds,
            row.work_per_second
        );
        rows.push(row);
    }
    let mut table = format!(
        "{:<22} {:<20} {:<4} {:>12} {:>8} {:>9} {:>11} {:>9} {:>9}\n",
        "group", "algorithm", "eng", "work", "steps", "wall s", "work/s", "µs/step", "speedup"
    );
    for r in &rows {
        table.push_str(&format!(
            "{:<22} {:<20} {:<4} {:>12} {:>8} {:>9.3} {:>11.3e} {:>9} {:>9}\n",
            r.group,
            r.algorithm,
            r.engine,
            r.work,
            r.steps.map_or("—".to_string(), |n| n.to_string()),
            r.wall_seconds,
            r.work_per_second,
            r.us_per_step.map_or("—".to_string(), |u| format!("{u:.1}")),
            r.speedup_vs_reference
                .map_or("—".to_string(), |s| format!("{s:.1}×"))
        ));
    }
    write_report(suite_name, options, &rows, &table, verification)
}
