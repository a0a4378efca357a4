//! `pdes-lab verify`: proves, on this machine's own adapter, that every GPU engine gives
//! its CPU twin's results. For each reduction variant the adapter supports it runs the
//! reductions' self-check and a set of small configurations (sizes that are not multiples
//! of the workgroup or segment sizes, several tokens per facility, several seeds) on the
//! CPU and on the GPU, and compares every output that must be identical: the summary's
//! fields, the per-step log and the final state (every facility and token, every cell).
//!
//! Nothing is compared "to a tolerance": the torus's statistics are ratios of exact integer
//! sums, and the diffusion engines perform the same correctly rounded f32 operations in the
//! same order on both sides (products are kept out of fused multiply-adds, see
//! `src/models/diffusion/shaders/diffusion.wgsl`), so equal inputs give equal bits. A difference is a bug.

use crate::gpu::Gpu;
use crate::gpu::reduce_check;
use crate::gpu::shaders::Reductions;
use crate::models::diffusion::cpu::{CpuDiffusion, DiffusionEngine};
use crate::models::diffusion::gpu::GpuDiffusion;
use crate::models::torus::cpu::{CpuEngine, CpuTorus};
use crate::models::torus::gpu::GpuTorus;
use crate::models::torus::state::TorusState;
use crate::preset::{self, Algorithm, Config, DiffusionConfig, Timestamps, TorusConfig};
use crate::sim::{Budget, Engine, Report, SimError, StepRecord};
use serde::Serialize;
use std::sync::Arc;
use std::time::Instant;

/// Summary fields that legitimately differ between engines (names and timings).
const NOT_COMPARED: [&str; 4] = [
    "engine",
    "wall_seconds",
    "events_per_second",
    "updates_per_second",
];

/// How much to check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// One configuration per engine instead of several (what the app runs at start).
    pub quick: bool,
    /// Test hook: adds one to every GPU event count before comparing, so that a test can
    /// prove that a wrong GPU result fails the check.
    pub perturb_gpu: bool,
}

/// The outcome of one check.
#[derive(Clone, Debug, Serialize)]
pub struct CheckResult {
    /// What was checked: engine, reductions and configuration.
    pub name: String,
    /// True when the GPU agreed with the CPU in every compared output.
    pub passed: bool,
    /// One line per difference (field, CPU value, GPU value), or the error that stopped it.
    pub details: Vec<String>,
    /// Wall-clock seconds the check took (CPU and GPU runs together).
    pub seconds: f64,
}

/// The outcome of a whole verification.
#[derive(Clone, Debug, Serialize)]
pub struct Verification {
    /// The adapter checked ("name (backend, driver)").
    pub adapter: String,
    /// The reduction variants checked.
    pub reductions: Vec<String>,
    /// Every check, in the order run.
    pub checks: Vec<CheckResult>,
    /// Checks that passed.
    pub passed: usize,
    /// Checks that failed.
    pub failed: usize,
}

impl Verification {
    /// True when every check passed.
    pub fn ok(&self) -> bool {
        self.failed == 0
    }

    /// The first failure's first line, for a status line.
    pub fn first_failure(&self) -> Option<String> {
        self.checks.iter().find(|c| !c.passed).map(|c| {
            format!(
                "{}: {}",
                c.name,
                c.details.first().map_or("failed", String::as_str)
            )
        })
    }
}

/// The reduction variants `gpu` supports, best first.
pub fn variants(gpu: &Gpu) -> Vec<Reductions> {
    let mut v = Vec::new();
    if gpu.device.features().contains(wgpu::Features::SUBGROUP) {
        v.push(Reductions::Subgroup);
    }
    v.push(Reductions::Portable);
    v
}

/// One configuration to run on both sides.
struct Case {
    label: &'static str,
    preset: &'static str,
    sets: &'static [&'static str],
    /// Also part of `--quick`.
    quick: bool,
}

/// The torus configurations. 37×53 = 1961 facilities: one partial segment of 2048;
/// 61×67 = 4087: two segments, the second partial; P = 2 and 3 put queues everywhere.
const TORUS_CASES: &[Case] = &[
    Case {
        label: "window 37×53 P=1 seed 1",
        preset: "teaching-16x16",
        sets: &[
            "model.rows=37",
            "model.cols=53",
            "run.algorithm=\"window\"",
            "run.d=0.5",
            "run.end_time=60",
            "run.seed=1",
        ],
        quick: true,
    },
    Case {
        label: "window 61×67 P=3 seed 4242",
        preset: "teaching-16x16",
        sets: &[
            "model.rows=61",
            "model.cols=67",
            "model.tokens_per_facility=3",
            "model.mean_service=7",
            "run.algorithm=\"window\"",
            "run.d=0.6",
            "run.end_time=40",
            "run.seed=4242",
        ],
        quick: false,
    },
    Case {
        label: "interval/original 37×53 P=2 seed 3",
        preset: "teaching-16x16",
        sets: &[
            "model.rows=37",
            "model.cols=53",
            "model.tokens_per_facility=2",
            "model.service=\"exponential\"",
            "run.algorithm=\"interval\"",
            "run.timestamps=\"original\"",
            "run.d=0.5",
            "run.end_time=60",
            "run.seed=3",
        ],
        quick: true,
    },
    Case {
        label: "interval/original 61×67 P=1 seed 9",
        preset: "teaching-16x16",
        sets: &[
            "model.rows=61",
            "model.cols=67",
            "model.service=\"exponential\"",
            "run.algorithm=\"interval\"",
            "run.timestamps=\"original\"",
            "run.d=1.5",
            "run.end_time=50",
            "run.seed=9",
        ],
        quick: false,
    },
    Case {
        label: "interval/boundary 37×53 P=2 seed 5",
        preset: "teaching-16x16",
        sets: &[
            "model.rows=37",
            "model.cols=53",
            "model.tokens_per_facility=2",
            "model.service=\"exponential\"",
            "run.algorithm=\"interval\"",
            "run.timestamps=\"boundary\"",
            "run.d=0.5",
            "run.end_time=60",
            "run.seed=5",
        ],
        quick: true,
    },
    Case {
        label: "interval/boundary 61×67 P=3 seed 11",
        preset: "teaching-16x16",
        sets: &[
            "model.rows=61",
            "model.cols=67",
            "model.tokens_per_facility=3",
            "model.service=\"exponential\"",
            "run.algorithm=\"interval\"",
            "run.timestamps=\"boundary\"",
            "run.d=1",
            "run.end_time=40",
            "run.seed=11",
        ],
        quick: false,
    },
];

/// The diffusion configurations: grids that are not multiples of the 256 × 10 tile.
const DIFFUSION_CASES: &[Case] = &[
    Case {
        label: "timestepped 37×53",
        preset: "teaching-diffusion",
        sets: &[
            "model.rows=37",
            "model.cols=53",
            "model.beta=0.25",
            "run.algorithm=\"timestepped\"",
            "run.dt=0.05",
            "run.end_time=20.03",
        ],
        quick: true,
    },
    Case {
        label: "hybrid 37×53",
        preset: "teaching-diffusion",
        sets: &[
            "model.rows=37",
            "model.cols=53",
            "run.algorithm=\"hybrid\"",
            "run.end_time=30",
        ],
        quick: true,
    },
    Case {
        // the bench's 100² hybrid row: cells ahead of the front underflow, so products and
        // sums go subnormal (the H100 flushes them; the twins flush them explicitly)
        label: "hybrid 100×100 to T=50 (subnormals)",
        preset: "teaching-diffusion",
        sets: &[
            "model.rows=100",
            "model.cols=100",
            "run.algorithm=\"hybrid\"",
            "run.quantum=0.5",
            "run.end_time=50",
        ],
        quick: true,
    },
    Case {
        label: "hybrid 13×301 anisotropic",
        preset: "teaching-diffusion",
        sets: &[
            "model.rows=13",
            "model.cols=301",
            "model.alpha_x=0.7",
            "model.alpha_y=1.3",
            "model.beta=0.5",
            "run.algorithm=\"hybrid\"",
            "run.quantum=0.25",
            "run.end_time=25",
        ],
        quick: false,
    },
];

fn config_of(case: &Case) -> Result<Config, String> {
    let (_, text) = preset::load_text(case.preset).map_err(|e| e.to_string())?;
    let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string())?;
    for s in case.sets {
        preset::apply_set(&mut table, s).map_err(|e| e.to_string())?;
    }
    Config::from_table(&table).map_err(|e| e.to_string())
}

/// Runs every check on `gpu`, calling `on_check` after each (for a live listing).
pub fn run(
    gpu: &Arc<Gpu>,
    options: Options,
    mut on_check: impl FnMut(&CheckResult),
) -> Verification {
    let variants = variants(gpu);
    let mut checks = Vec::new();
    let mut record = |c: CheckResult| {
        on_check(&c);
        checks.push(c);
    };
    for &r in &variants {
        let tag = reductions_name(r);
        record(timed(format!("reductions ({tag})"), || {
            let groups = if options.quick { 3 } else { 9 };
            reduce_check::run(gpu, r, 0x5eed ^ groups as u64, groups).map_err(|e| e.to_string())
        }));
        for case in TORUS_CASES.iter().filter(|c| c.quick || !options.quick) {
            record(timed(
                format!("torus {} ({tag})", case.label),
                || match config_of(case)? {
                    Config::Torus(cfg) => check_torus(gpu, &cfg, r, options),
                    Config::Diffusion(_) => Err("not a torus case".into()),
                },
            ));
        }
        for case in DIFFUSION_CASES.iter().filter(|c| c.quick || !options.quick) {
            record(timed(
                format!("diffusion {} ({tag})", case.label),
                || match config_of(case)? {
                    Config::Diffusion(cfg) => check_diffusion(gpu, &cfg, r, options),
                    Config::Torus(_) => Err("not a diffusion case".into()),
                },
            ));
        }
    }
    // the window algorithm's promise: the GPU window run is the sequential run
    let case = &TORUS_CASES[0];
    record(timed(
        format!(
            "torus window on the GPU = sequential on the CPU, {}",
            case.label
        ),
        || match config_of(case)? {
            Config::Torus(cfg) => check_window_vs_sequential(gpu, &cfg, options),
            Config::Diffusion(_) => Err("not a torus case".into()),
        },
    ));
    let passed = checks.iter().filter(|c| c.passed).count();
    Verification {
        adapter: gpu.describe(),
        reductions: variants
            .iter()
            .map(|r| reductions_name(*r).into())
            .collect(),
        failed: checks.len() - passed,
        passed,
        checks,
    }
}

/// "subgroup" or "portable".
pub fn reductions_name(r: Reductions) -> &'static str {
    match r {
        Reductions::Subgroup => "subgroup",
        Reductions::Portable => "portable",
    }
}

fn timed(name: String, f: impl FnOnce() -> Result<Vec<String>, String>) -> CheckResult {
    let started = Instant::now();
    let (passed, details) = match f() {
        Ok(diffs) => (diffs.is_empty(), diffs),
        Err(e) => (false, vec![format!("error: {e}")]),
    };
    CheckResult {
        name,
        passed,
        details,
        seconds: started.elapsed().as_secs_f64(),
    }
}

fn gpu_err(e: SimError) -> String {
    e.to_string()
}

/// Budgets both sides go through: a few single steps (the GPU's hold/resume path), a
/// simulated-time limit mid-run, then the end.
fn budgets(end: u64) -> [Budget; 3] {
    [Budget::Steps(3), Budget::Until(end / 3), Budget::Finish]
}

fn check_torus(
    gpu: &Arc<Gpu>,
    cfg: &TorusConfig,
    r: Reductions,
    options: Options,
) -> Result<Vec<String>, String> {
    let mut cpu = CpuEngine {
        cpu: CpuTorus::new(cfg),
        config: cfg.clone(),
    };
    let mut g = GpuTorus::with_reductions(gpu.clone(), cfg, r).map_err(gpu_err)?;
    let mut diffs = Vec::new();
    for b in budgets(cfg.end_ticks()) {
        cpu.advance(b).map_err(gpu_err)?;
        g.advance(b).map_err(gpu_err)?;
        diffs.extend(compare_step_logs(cpu.step_log(), g.step_log()));
        if cpu.now() != g.now() {
            diffs.push(format!(
                "now after {b:?}: CPU {} ticks, GPU {}",
                cpu.now(),
                g.now()
            ));
        }
        if !diffs.is_empty() {
            break;
        }
    }
    let mut gpu_report = g.report().map_err(gpu_err)?;
    if options.perturb_gpu {
        perturb(&mut gpu_report);
    }
    diffs.extend(compare_reports(
        &cpu.report().map_err(gpu_err)?,
        &gpu_report,
    ));
    diffs.extend(compare_torus_states(
        &comparable_state(cpu.cpu.state(), cfg),
        &g.download_state().map_err(gpu_err)?,
    ));
    Ok(diffs)
}

fn check_window_vs_sequential(
    gpu: &Arc<Gpu>,
    cfg: &TorusConfig,
    options: Options,
) -> Result<Vec<String>, String> {
    let mut seq_cfg = cfg.clone();
    seq_cfg.run.algorithm = Algorithm::Sequential;
    let mut seq = CpuEngine {
        cpu: CpuTorus::new(&seq_cfg),
        config: seq_cfg,
    };
    seq.advance(Budget::Finish).map_err(gpu_err)?;
    let r = variants(gpu)[0];
    let mut g = GpuTorus::with_reductions(gpu.clone(), cfg, r).map_err(gpu_err)?;
    g.advance(Budget::Finish).map_err(gpu_err)?;
    let mut gpu_report = g.report().map_err(gpu_err)?;
    if options.perturb_gpu {
        perturb(&mut gpu_report);
    }
    // the statistics of the sample path; steps and per-step figures differ by design
    let same = [
        "events",
        "utilization",
        "mean_sojourn",
        "throughput",
        "causality_errors",
        "tokens_in_system",
        "sim_time",
    ];
    let mut diffs: Vec<String> = compare_reports(&seq.report().map_err(gpu_err)?, &gpu_report)
        .into_iter()
        .filter(|d| same.iter().any(|k| d.starts_with(&format!("{k}:"))))
        .collect();
    diffs.extend(compare_torus_states(
        &comparable_state(seq.cpu.state(), cfg),
        &g.download_state().map_err(gpu_err)?,
    ));
    Ok(diffs)
}

fn check_diffusion(
    gpu: &Arc<Gpu>,
    cfg: &DiffusionConfig,
    r: Reductions,
    options: Options,
) -> Result<Vec<String>, String> {
    let mut cpu = CpuDiffusion::new(cfg);
    let mut g = GpuDiffusion::with_reductions(gpu.clone(), cfg, r).map_err(gpu_err)?;
    let mut diffs = Vec::new();
    for b in budgets(cfg.end_ticks()) {
        cpu.advance(b).map_err(gpu_err)?;
        g.advance(b).map_err(gpu_err)?;
        diffs.extend(compare_step_logs(cpu.step_log(), g.step_log()));
        if !diffs.is_empty() {
            break;
        }
    }
    let mut gpu_report = g.report().map_err(gpu_err)?;
    if options.perturb_gpu {
        perturb(&mut gpu_report);
    }
    diffs.extend(compare_reports(
        &cpu.report().map_err(gpu_err)?,
        &gpu_report,
    ));
    let (cv, gv) = (
        cpu.temperatures().map_err(gpu_err)?,
        g.temperatures().map_err(gpu_err)?,
    );
    let differing: Vec<usize> = (0..cv.len().min(gv.len()))
        .filter(|&i| cv[i].to_bits() != gv[i].to_bits())
        .collect();
    if let Some(&i) = differing.first() {
        let cols = cfg.model.cols as usize;
        diffs.push(format!(
            "cells: {} of {} differ; first ({}, {}): CPU {:e}, GPU {:e}",
            differing.len(),
            cv.len(),
            i / cols,
            i % cols,
            cv[i],
            gv[i]
        ));
    }
    Ok(diffs)
}

/// Adds one to the event (or cell update) count: the `perturb_gpu` test hook.
fn perturb(report: &mut Report) {
    match report {
        Report::Torus(s) => s.events += 1,
        Report::Diffusion(s) => s.cell_updates += 1,
    }
}

/// One line per summary field whose value differs ("field: CPU x, GPU y"), the engines'
/// names and timings aside.
pub fn compare_reports(cpu: &Report, gpu: &Report) -> Vec<String> {
    let (c, g) = (
        crate::cli::output::fields(cpu),
        crate::cli::output::fields(gpu),
    );
    let mut diffs = Vec::new();
    for ((key, cv), (_, gv)) in c.iter().zip(&g) {
        if !NOT_COMPARED.contains(&key.as_str()) && cv != gv {
            diffs.push(format!("{key}: CPU {cv}, GPU {gv}"));
        }
    }
    if c.len() != g.len() {
        diffs.push(format!(
            "summary: CPU has {} fields, GPU {}",
            c.len(),
            g.len()
        ));
    }
    diffs
}

/// The first step whose record differs, and a length difference.
pub fn compare_step_logs(cpu: &[StepRecord], gpu: &[StepRecord]) -> Vec<String> {
    let mut diffs = Vec::new();
    if let Some(i) = (0..cpu.len().min(gpu.len())).find(|&i| cpu[i] != gpu[i]) {
        diffs.push(format!(
            "step log: step {i}: CPU {:?}, GPU {:?}",
            cpu[i], gpu[i]
        ));
    }
    if cpu.len() != gpu.len() {
        diffs.push(format!(
            "step log: CPU {} steps, GPU {}",
            cpu.len(),
            gpu.len()
        ));
    }
    diffs
}

/// The CPU state with what the GPU does not keep per facility cleared: the statistics
/// (kept per workgroup) and the last arrival times (kept only for interval/original).
pub fn comparable_state(s: &TorusState, cfg: &TorusConfig) -> TorusState {
    let original =
        cfg.run.algorithm == Algorithm::Interval && cfg.run.timestamps == Timestamps::Original;
    let mut s = s.clone();
    for f in &mut s.facilities {
        f.busy = 0;
        f.sojourn = 0;
        f.causality_errors = 0;
        if !original {
            f.last_arrival = 0;
        }
    }
    s
}

/// The first facility and the first token that differ, with how many do.
pub fn compare_torus_states(cpu: &TorusState, gpu: &TorusState) -> Vec<String> {
    let mut diffs = Vec::new();
    let fac: Vec<usize> = (0..cpu.facilities.len().min(gpu.facilities.len()))
        .filter(|&i| cpu.facilities[i] != gpu.facilities[i])
        .collect();
    if let Some(&i) = fac.first() {
        diffs.push(format!(
            "facilities: {} differ; first {i}: CPU {:?}, GPU {:?}",
            fac.len(),
            cpu.facilities[i],
            gpu.facilities[i]
        ));
    }
    let tok: Vec<usize> = (0..cpu.tokens.len().min(gpu.tokens.len()))
        .filter(|&i| cpu.tokens[i] != gpu.tokens[i])
        .collect();
    if let Some(&i) = tok.first() {
        diffs.push(format!(
            "tokens: {} differ; first {i}: CPU {:?}, GPU {:?}",
            tok.len(),
            cpu.tokens[i],
            gpu.tokens[i]
        ));
    }
    if cpu.facilities.len() != gpu.facilities.len() || cpu.tokens.len() != gpu.tokens.len() {
        diffs.push("state: different numbers of facilities or tokens".into());
    }
    diffs
}
