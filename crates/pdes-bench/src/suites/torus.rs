//! The torus's `pdes-lab bench` suites: a fixed set of runs, timed, with speedups over
//! CPU `sequential` measured in the same invocation (never extrapolated).

use crate::{BenchOptions, verification_gate, write_report};
use pdes_core::Error as CliError;
use pdes_core::sim::Budget;
use pdes_models::preset::EngineKind;
use pdes_models::queueing::{Algorithm, Timestamps};
use pdes_models::torus::blocked::{DEFAULT_HALO, GpuTorusBlocked, MAX_HALO};
use pdes_models::torus::config::TorusConfig;
use pdes_models::torus::cpu::{CpuEngine, CpuTorus, TorusEngine};
use pdes_models::torus::gpu::GpuTorus;
use serde::Serialize;
use std::time::Instant;

/// One configuration of a suite.
#[derive(Clone, Debug)]
pub struct Case {
    /// Torus side (rows = cols).
    pub side: u32,
    /// Interval d.
    pub d: f64,
    /// Algorithm and timestamps.
    pub algorithm: Algorithm,
    /// Timestamps (interval only).
    pub timestamps: Timestamps,
    /// Engine.
    pub engine: EngineKind,
    /// End time.
    pub end_time: f64,
    /// GPU window only: temporal blocking with this halo (windows per block), else the
    /// stepped engine.
    pub blocked: Option<u32>,
}

/// A measured case.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRow {
    /// rows × cols.
    pub size: String,
    /// Interval d.
    pub d: f64,
    /// Algorithm (with timestamps for interval).
    pub algorithm: String,
    /// Engine ("gpu-blocked": the window algorithm with temporal blocking).
    pub engine: &'static str,
    /// The blocked engine's halo (windows per block), region and tile width.
    pub blocked: Option<BlockedShape>,
    /// End time.
    pub end_time: f64,
    /// Events processed.
    pub events: u64,
    /// Steps taken.
    pub steps: u64,
    /// Seconds to build the initial state and upload it.
    pub setup_seconds: f64,
    /// Seconds of simulation (excluding setup and the final statistics): the median of the
    /// timed runs.
    pub wall_seconds: f64,
    /// Every timed run's seconds (GPU cases: after one untimed warm-up run).
    pub wall_seconds_runs: Vec<f64>,
    /// Events per second of simulation.
    pub events_per_second: f64,
    /// Microseconds of wall time per step (GPU engines: all steps are GPU-resident).
    pub us_per_step: f64,
    /// Speedup over CPU sequential on the same size, end time and seed, if it ran.
    pub speedup_vs_sequential: Option<f64>,
    /// Utilization.
    pub utilization: f64,
    /// Mean sojourn time per visit.
    pub mean_sojourn: f64,
    /// Causality errors (0 for sequential and window: anything else is a bug, and the row is
    /// refused).
    pub causality_errors: u64,
    /// The CPU sequential run of the same size, end time and seed, when the suite has one:
    /// (events, utilization, mean sojourn). A window run must reproduce it exactly.
    pub reference: Option<Reference>,
    /// GPU microseconds per step in each dispatch (models::torus::gpu::PASS_NAMES), from timestamp queries
    /// (only with --profile; the timestamps themselves add a little time).
    pub pass_us_per_step: Option<[f64; pdes_models::torus::gpu::PASSES]>,
}

/// The blocked engine's geometry in a row.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct BlockedShape {
    /// Windows per block (the halo's width).
    pub halo: u32,
    /// Region width (tile + two halos).
    pub region: u32,
    /// Tile width.
    pub tile: u32,
}

/// The statistics of a CPU sequential run that other rows are checked against.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reference {
    /// Events processed.
    pub events: u64,
    /// Utilization.
    pub utilization: f64,
    /// Mean sojourn time per visit.
    pub mean_sojourn: f64,
}

/// The torus's suites (the registry's list).
pub const SUITES: &[crate::BenchSuite] = &[
    crate::BenchSuite {
        name: "torus",
        help: "paper 000's configurations up to the 2048² headline (needs a real GPU)",
    },
    crate::BenchSuite {
        name: "headline-short",
        help: "the headline configuration at a tenth of its horizon, at d = 0.25 to T = 2000 and at d = 1e-6 (the fixed cost; for --profile)",
    },
    crate::BenchSuite {
        name: "blocked",
        help: "the window algorithm with temporal blocking against the stepped GPU engine: 1024² and the headline's four d at T = 5000 (needs a real GPU)",
    },
    crate::BenchSuite {
        name: "blocked-halo",
        help: "the blocked engine with every halo against the stepped GPU engine, headline at T = 5000",
    },
    crate::BenchSuite {
        name: "blocked-h2",
        help: "the blocked engine at h = 2, d = 1 and 0.25, T = 2000 (for attribution experiments)",
    },
    crate::BenchSuite {
        name: "blocked-smoke",
        help: "two tiny blocked runs against sequential (for tests)",
    },
    crate::BenchSuite {
        name: "smoke",
        help: "three tiny torus runs (for tests)",
    },
    crate::BenchSuite {
        name: "sequential-parts",
        help: "the CPU sequential torus at 256² and 1024² taken apart: the whole run, then its queue operations, its state changes (prefetched or not) and its draws, each replayed alone from a recording of the run (one core)",
    },
    crate::BenchSuite {
        name: "sequential-parts-smoke",
        help: "sequential-parts at 24² (for tests)",
    },
    crate::BenchSuite {
        name: "floor",
        help: "the device's floors for a step: µs per empty and per dependent dispatch in one pass, GB/s of a buffer copy and a shader stream, random sectors, chains of dependent copy and read passes at step sizes (no timestamps)",
    },
];

/// The cases of a torus suite.
pub fn suite(name: &str) -> Vec<Case> {
    let case = |side, d, algorithm, timestamps, engine, end_time| Case {
        side,
        d,
        algorithm,
        timestamps,
        engine,
        end_time,
        blocked: None,
    };
    let blocked = |side, d, end_time, halo| Case {
        blocked: Some(halo),
        ..case(side, d, Window, Original, Gpu, end_time)
    };
    use Algorithm::*;
    use EngineKind::*;
    use Timestamps::*;
    match name {
        "torus" => {
            let mut v = vec![
                // 1024×1024: every algorithm, speedup over sequential at the same T.
                case(1024, 1.0, Sequential, Original, Cpu, 1000.0),
                case(1024, 1.0, Window, Original, Gpu, 1000.0),
                case(1024, 1.0, Interval, Original, Gpu, 1000.0),
                case(1024, 1.0, Interval, Boundary, Gpu, 1000.0),
                // 2048×2048 at a short horizon, so that sequential finishes.
                case(2048, 1.0, Sequential, Original, Cpu, 200.0),
                case(2048, 1.0, Window, Original, Gpu, 200.0),
            ];
            // The headline: 2048×2048, P = 1, M = 10, T = 50,000 (Sang et al. Table 2).
            for d in [0.25, 0.5, 1.0, 2.0] {
                v.push(case(2048, d, Window, Original, Gpu, 50_000.0));
            }
            v
        }
        // Temporal blocking: every blocked row is checked against the stepped GPU window
        // row (or sequential) of the same configuration before it.
        "blocked" => {
            let mut v = vec![
                case(1024, 1.0, Sequential, Original, Cpu, 1000.0),
                case(1024, 1.0, Window, Original, Gpu, 1000.0),
                blocked(1024, 1.0, 1000.0, DEFAULT_HALO),
            ];
            // the headline's four d at a tenth of its horizon (the blocked rows are slower
            // than the stepped engine: bench/NOTES.md)
            for d in [0.25, 0.5, 1.0, 2.0] {
                v.push(case(2048, d, Window, Original, Gpu, 5_000.0));
                v.push(blocked(2048, d, 5_000.0, DEFAULT_HALO));
            }
            v
        }
        // The halo's trade-off (redundant work against blocks per window) at a tenth of the
        // headline's horizon.
        "blocked-halo" => {
            let mut v = vec![case(2048, 1.0, Window, Original, Gpu, 5_000.0)];
            v.extend((1..=MAX_HALO).map(|h| blocked(2048, 1.0, 5_000.0, h)));
            // a quarter of the events per window: where the per-window fixed cost dominates
            v.push(case(2048, 0.25, Window, Original, Gpu, 5_000.0));
            v.push(blocked(2048, 0.25, 5_000.0, 2));
            v.push(blocked(2048, 0.25, 5_000.0, DEFAULT_HALO));
            v
        }
        // Attribution experiments (bench/experiments/blocked-attribution/): h = 2 at d = 1 and
        // d = 0.25, a shorter horizon.
        "blocked-h2" => vec![
            case(2048, 1.0, Window, Original, Gpu, 2_000.0),
            blocked(2048, 1.0, 2_000.0, 2),
            case(2048, 0.25, Window, Original, Gpu, 2_000.0),
            blocked(2048, 0.25, 2_000.0, 2),
        ],
        "blocked-smoke" => vec![
            case(40, 1.0, Sequential, Original, Cpu, 100.0),
            blocked(40, 1.0, 100.0, 2),
            blocked(40, 1.0, 100.0, 4),
        ],
        // The headline configuration at a tenth of the horizon, at the small d whose
        // steps are dominated by their fixed cost, and at d = 1e-6 (about one event per
        // step: the fixed cost alone), for per-pass profiles.
        "headline-short" => vec![
            case(2048, 1.0, Window, Original, Gpu, 5_000.0),
            case(2048, 0.25, Window, Original, Gpu, 2_000.0),
            case(2048, 1e-6, Window, Original, Gpu, 0.05),
        ],
        "smoke" => vec![
            case(32, 1.0, Sequential, Original, Cpu, 100.0),
            case(32, 1.0, Window, Original, Cpu, 100.0),
            case(32, 1.0, Window, Original, Gpu, 100.0),
        ],
        _ => Vec::new(),
    }
}

/// The configuration of a CPU sequential run of the suites' torus (P = 1, M = 10,
/// shifted service, seed 1) at `side`² to `end_time`.
pub fn sequential_config(side: u32, end_time: f64) -> TorusConfig {
    config_of(&Case {
        side,
        d: 1.0,
        algorithm: Algorithm::Sequential,
        timestamps: Timestamps::Original,
        engine: EngineKind::Cpu,
        end_time,
        blocked: None,
    })
}

fn config_of(c: &Case) -> TorusConfig {
    // the torus's defaults: a test parses them, so they cannot fail at a user's bench
    #[allow(clippy::expect_used)]
    let mut cfg = TorusConfig::from_toml("", "bench").expect("defaults are valid");
    cfg.model.rows = c.side;
    cfg.model.cols = c.side;
    cfg.model.tokens_per_facility = 1;
    cfg.model.mean_service = 10.0;
    cfg.model.service = pdes_models::torus::ServiceKind::Shifted;
    cfg.run.algorithm = c.algorithm;
    cfg.run.timestamps = c.timestamps;
    cfg.run.d = c.d;
    cfg.run.end_time = c.end_time;
    cfg.run.seed = 1;
    cfg.run.engine = c.engine;
    cfg
}

/// Runs one case; with `profile`, GPU passes are timed with timestamp queries.
pub fn measure(c: &Case, profile: bool) -> Result<BenchRow, CliError> {
    let cfg = config_of(c);
    let run_err = |e: pdes_core::sim::SimError| CliError::Run(e.to_string());
    let t0 = Instant::now();
    let mut gpu_engine = None;
    let mut cpu_engine = None;
    let mut blocked_engine = None;
    if let Some(halo) = c.blocked {
        let gpu = pdes_gpu::Gpu::shared().map_err(CliError::Run)?;
        blocked_engine = Some(GpuTorusBlocked::new(gpu, &cfg, halo).map_err(run_err)?);
    } else if c.engine == EngineKind::Gpu {
        let gpu = pdes_gpu::Gpu::shared().map_err(CliError::Run)?;
        let mut g = GpuTorus::new(gpu, &cfg).map_err(run_err)?;
        if profile {
            g.enable_profiling();
        }
        gpu_engine = Some(g);
    } else {
        cpu_engine = Some(CpuEngine {
            cpu: CpuTorus::new(&cfg),
            config: cfg.clone(),
        });
    }
    let engine: &mut dyn TorusEngine = match (&mut gpu_engine, &mut cpu_engine, &mut blocked_engine)
    {
        (Some(g), _, _) => g,
        (None, Some(c), _) => c,
        (None, None, Some(b)) => b,
        (None, None, None) => unreachable!("one engine was built"),
    };
    let setup = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    engine.advance(Budget::Finish).map_err(run_err)?;
    let wall = t1.elapsed().as_secs_f64();
    let s = engine.summary().map_err(run_err)?;
    let pass_us_per_step = gpu_engine
        .as_ref()
        .and_then(|g| g.profile())
        .map(|p| p.us_per_step());
    let algorithm = match c.algorithm {
        Algorithm::Interval => format!("interval/{}", c.timestamps.name()),
        a => a.name().to_string(),
    };
    Ok(BenchRow {
        size: format!("{}x{}", c.side, c.side),
        d: c.d,
        algorithm,
        engine: if c.blocked.is_some() {
            "gpu-blocked"
        } else {
            c.engine.name()
        },
        blocked: blocked_engine.as_ref().map(|b| {
            let t = b.tiling();
            BlockedShape {
                halo: t.halo,
                region: t.region,
                tile: t.tile,
            }
        }),
        end_time: c.end_time,
        events: s.events,
        steps: s.steps,
        setup_seconds: setup,
        wall_seconds: wall,
        wall_seconds_runs: vec![wall],
        events_per_second: s.events as f64 / wall,
        us_per_step: if s.steps > 0 {
            wall * 1e6 / s.steps as f64
        } else {
            0.0
        },
        speedup_vs_sequential: None,
        utilization: s.utilization,
        mean_sojourn: s.mean_sojourn,
        causality_errors: s.causality_errors,
        reference: None,
        pass_us_per_step,
    })
}

/// Runs a case `repeat` times and keeps the median (every run's time in
/// `wall_seconds_runs`). A GPU case first runs untimed for at least half a second (shader
/// compilation, clocks — after a CPU reference of seconds the GPU is idle and clocked down
/// —, first touch of memory); a CPU case needs no warm-up (each run builds its state anew),
/// and its first run counts. CPU references are repeated too: the device host's core varies
/// ±10% between runs of one call (bench/NOTES.md), and they are every speedup's denominator.
pub fn measure_repeated(c: &Case, profile: bool, repeat: u32) -> Result<BenchRow, CliError> {
    let mut row = measure(c, profile)?;
    let cpu = c.engine != EngineKind::Gpu;
    if repeat == 0 || (cpu && repeat == 1) {
        return Ok(row);
    }
    let mut walls = Vec::new();
    if !cpu {
        let mut warm = row.wall_seconds;
        while warm < 0.5 {
            warm += measure(c, profile)?.wall_seconds;
        }
    } else {
        walls.push(row.wall_seconds);
    }
    while walls.len() < repeat as usize {
        row = measure(c, profile)?;
        walls.push(row.wall_seconds);
    }
    let median = crate::median(&walls);
    row.wall_seconds = median;
    row.wall_seconds_runs = walls;
    row.events_per_second = row.events as f64 / median;
    row.us_per_step = if row.steps > 0 {
        median * 1e6 / row.steps as f64
    } else {
        0.0
    };
    Ok(row)
}

/// Runs a suite, printing each row to stderr as it completes, and writes the report.
pub fn run(suite_name: &str, options: &BenchOptions) -> Result<(), CliError> {
    if suite_name == "floor" {
        return super::torus_floor::run(options);
    }
    if let Some(sizes) = crate::suites::torus_parts::suite_sizes(suite_name) {
        return crate::suites::torus_parts::run(suite_name, sizes, options);
    }
    let (profile, repeat) = (options.profile, options.repeat);
    let cases = suite(suite_name);
    let verification = if cases.iter().any(|c| c.engine == EngineKind::Gpu) {
        Some(verification_gate()?)
    } else {
        None
    };
    let mut rows: Vec<BenchRow> = Vec::new();
    for c in &cases {
        let mut row = measure_repeated(c, profile, repeat)?;
        attach_reference(&mut row, &rows)?;
        eprintln!(
            "{:>9} d={:<5} {:<18} {:<14} T={:<7} {:>14} events {:>8} steps {:>9.3} s {:>10.3e} ev/s",
            row.size,
            row.d,
            row.algorithm,
            engine_label(&row),
            row.end_time,
            row.events,
            row.steps,
            row.wall_seconds,
            row.events_per_second
        );
        if let Some(p) = row.pass_us_per_step {
            let parts: Vec<String> = pdes_models::torus::gpu::PASS_NAMES
                .iter()
                .zip(p)
                .map(|(n, us)| format!("{n} {us:.1}"))
                .collect();
            eprintln!("          GPU µs/step: {}", parts.join(", "));
        }
        rows.push(row);
    }
    // Speedups over sequential with the same size and end time (same seed, same model).
    let seq: Vec<(String, f64, f64)> = rows
        .iter()
        .filter(|r| r.algorithm == "sequential")
        .map(|r| (r.size.clone(), r.end_time, r.wall_seconds))
        .collect();
    for r in &mut rows {
        if r.algorithm != "sequential"
            && let Some((_, _, w)) = seq
                .iter()
                .find(|(s, t, _)| *s == r.size && *t == r.end_time)
        {
            r.speedup_vs_sequential = Some(w / r.wall_seconds);
        }
    }
    let table = {
        let mut t = format!(
            "{:<10} {:>5} {:<18} {:<14} {:>8} {:>14} {:>8} {:>9} {:>11} {:>9} {:>9}\n",
            "size",
            "d",
            "algorithm",
            "eng",
            "T",
            "events",
            "steps",
            "wall s",
            "events/s",
            "µs/step",
            "speedup"
        );
        for r in &rows {
            t.push_str(&format!(
                "{:<10} {:>5} {:<18} {:<14} {:>8} {:>14} {:>8} {:>9.3} {:>11.3e} {:>9.1} {:>9}\n",
                r.size,
                r.d,
                r.algorithm,
                engine_label(r),
                r.end_time,
                r.events,
                r.steps,
                r.wall_seconds,
                r.events_per_second,
                r.us_per_step,
                r.speedup_vs_sequential
                    .map_or("—".to_string(), |s| format!("{s:.1}×"))
            ));
        }
        t
    };
    write_report(suite_name, options, &rows, &table, verification)
}

/// The engine column: "gpu-blocked h4" for a blocked row.
fn engine_label(r: &BenchRow) -> String {
    match r.blocked {
        Some(b) => format!("{} h{}", r.engine, b.halo),
        None => r.engine.to_string(),
    }
}

/// Gives `row` the statistics of an earlier sequential row of the same size and end time,
/// and refuses a row that contradicts what its algorithm guarantees: a window or sequential
/// run with causality errors, or a window run that differs from sequential.
fn attach_reference(row: &mut BenchRow, earlier: &[BenchRow]) -> Result<(), CliError> {
    let exact = row.algorithm == "window" || row.algorithm == "sequential";
    if exact && row.causality_errors != 0 {
        return Err(CliError::Run(format!(
            "{} {} {}: {} causality errors in an exact algorithm; the row is refused",
            row.size, row.algorithm, row.engine, row.causality_errors
        )));
    }
    // sequential of the same size and horizon; for a blocked row without one, the stepped
    // GPU window row of the same configuration (itself checked against sequential by
    // `verify` in the same call)
    let same_run = |r: &&BenchRow| r.size == row.size && r.end_time == row.end_time;
    let reference = earlier
        .iter()
        .filter(same_run)
        .find(|r| r.algorithm == "sequential")
        .or_else(|| {
            row.blocked?;
            earlier
                .iter()
                .filter(same_run)
                .find(|r| r.algorithm == "window" && r.engine == "gpu" && r.d == row.d)
        });
    if let Some(seq) = reference {
        let reference = Reference {
            events: seq.events,
            utilization: seq.utilization,
            mean_sojourn: seq.mean_sojourn,
        };
        let got = Reference {
            events: row.events,
            utilization: row.utilization,
            mean_sojourn: row.mean_sojourn,
        };
        if row.algorithm == "window" && got != reference {
            if std::env::var_os("PDES_WGSL_DIR").is_some() {
                // an experiment's replaced kernel (already announced as not a result)
                eprintln!(
                    "warning: {} {}: {got:?} differs from {reference:?} (PDES_WGSL_DIR experiment)",
                    row.size, row.engine
                );
                row.reference = Some(reference);
                return Ok(());
            }
            return Err(CliError::Run(format!(
                "{} window {}: {got:?} differs from {} {reference:?}; the row is refused",
                row.size, row.engine, seq.algorithm
            )));
        }
        row.reference = Some(reference);
    }
    Ok(())
}
