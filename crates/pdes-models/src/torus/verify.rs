//! The torus's part of `pdes-lab verify`: its configurations, and the checks that its GPU
//! engine reproduces the CPU twin (summary, step log, every facility and token) and that
//! the window algorithm on the GPU reproduces sequential on the CPU.

use super::cpu::{CpuEngine, CpuTorus};
use super::state::TorusState;
use crate::config::ModelInfo;
use crate::queueing::{Algorithm, Timestamps};
use crate::torus::blocked::GpuTorusBlocked;
use crate::torus::config::TorusConfig;
use crate::torus::gpu::{GpuTorus, ReplicaRun};
use crate::twins::Twins;
use crate::verify::{
    Case, CheckResult, Options, check_case, compare_reports, compare_sample_path, config_of,
    gpu_err, timed,
};
use pdes_core::sim::waiting::{advance_in_slices, advance_settled, when_back};
use pdes_core::sim::{Budget, Engine};
use pdes_core::time::Ticks;
use pdes_gpu::Gpu;
use pdes_gpu::shaders::Reductions;
use pdes_gpu::stepped::ScanItems;
use std::sync::Arc;

/// The window algorithm's promise, once per verification (the registry's `verify_once`):
/// the GPU window run is the sequential run.
pub fn check_once(gpu: &Arc<Gpu>, options: Options, record: &mut dyn FnMut(CheckResult)) {
    let case = &CASES[0];
    record(check_case::<crate::torus::config::TorusConfig>(
        format!(
            "torus window on the GPU = sequential on the CPU, {}",
            case.label
        ),
        &[&super::INFO],
        case,
        |cfg| check_window_vs_sequential(gpu, cfg, options),
    ));
    for (case, halo) in &BLOCKED_CASES {
        record(check_case::<TorusConfig>(
            format!(
                "torus window blocked on the GPU (halo {halo}) = sequential on the CPU, {}",
                case.label
            ),
            &[&super::INFO],
            case,
            |cfg| check_blocked_vs_sequential(gpu, cfg, *halo, options),
        ));
    }
    for r in crate::verify::variants(gpu) {
        record(check_case::<TorusConfig>(
            format!(
                "torus live sample on the GPU = the CPU twin's measures mid-run, services in progress summed on the device ({}), {}",
                crate::verify::reductions_name(r),
                LIVE_CASE.label
            ),
            &[&super::INFO],
            &LIVE_CASE,
            |cfg| check_live_sample(gpu, cfg, r, options),
        ));
    }
    for algorithm in ["window", "interval/original"] {
        record(timed(
            format!(
                "torus replicas: 4 seeds × 3 values of d of 64×64 {algorithm} side by side on the GPU = each one's CPU run"
            ),
            || check_replicas(gpu, algorithm, options),
        ));
    }
}

/// The blocked engine's checks (configuration, halo): many tiles with P = 1; queues (P = 3)
/// with partial edge tiles and the widest halo; a warm-up cutting the statistics.
const BLOCKED_CASES: [(Case, u32); 3] = [
    (
        Case {
            label: "blocked 256×256 P=1 d=1",
            quick: true,
            preset: "teaching-16x16",
            sets: &[
                "model.rows=256",
                "model.cols=256",
                "run.d=1",
                "run.end_time=300",
                "run.warmup=50",
                "run.seed=7",
            ],
        },
        4,
    ),
    (
        Case {
            label: "blocked 100×130 P=3 d=0.6",
            quick: true,
            preset: "teaching-16x16",
            sets: &[
                "model.rows=100",
                "model.cols=130",
                "model.tokens_per_facility=3",
                "model.mean_service=7",
                "run.d=0.6",
                "run.end_time=120",
                "run.warmup=0",
                "run.seed=4242",
            ],
        },
        6,
    ),
    (
        Case {
            label: "blocked 70×90 P=2 d=0.25",
            quick: true,
            preset: "teaching-16x16",
            sets: &[
                "model.rows=70",
                "model.cols=90",
                "model.tokens_per_facility=2",
                "run.d=0.25",
                "run.end_time=200",
                "run.warmup=30",
                "run.seed=99",
            ],
        },
        2,
    ),
];

/// The configurations of the replica checks: window, interval/original.
const REPLICA_CASES: [Case; 2] = [
    Case {
        label: "replicas window 64×64",
        quick: true,
        preset: "teaching-16x16",
        sets: &[
            "model.rows=64",
            "model.cols=64",
            "run.d=1",
            "run.end_time=200",
            "run.warmup=50",
            "run.algorithm=\"window\"",
            "model.service=\"shifted\"",
        ],
    },
    Case {
        label: "replicas interval/original 64×64",
        quick: true,
        preset: "teaching-16x16",
        sets: &[
            "model.rows=64",
            "model.cols=64",
            "run.d=1",
            "run.end_time=200",
            "run.warmup=0",
            "run.algorithm=\"interval\"",
            "run.timestamps=\"original\"",
            "model.service=\"exponential\"",
        ],
    },
];

/// Replicas (seeds and values of d side by side in one GPU engine, as sweeps run them):
/// each one's summary, step log and state equal its own CPU run. 64×64 is two segments per
/// replica; interval/original makes causality errors in each; four values of d give four
/// step counts and (shifted service) four laws, longest first as a sweep holds them: the
/// later replicas finish first and later steps leave them out (`GpuTorus::live_segments`).
fn check_replicas(
    gpu: &Arc<Gpu>,
    algorithm: &str,
    options: Options,
) -> Result<Vec<String>, String> {
    let case = &REPLICA_CASES[usize::from(algorithm != "window")];
    let config = config_of(&[&super::INFO], case)?;
    let cfg = config
        .get::<TorusConfig>()
        .ok_or("not a torus case")?
        .clone();
    let runs =
        [(14u64, 0.3), (12, 0.5), (11, 1.0), (13, 1.0)].map(|(seed, d)| ReplicaRun { seed, d });
    let mut g = GpuTorus::replica_runs(gpu.clone(), &cfg, &runs).map_err(gpu_err)?;
    g.advance(Budget::Finish).map_err(gpu_err)?;
    let summaries = g.replica_summaries().map_err(gpu_err)?;
    let states = g.download_states().map_err(gpu_err)?;
    let mut diffs = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        let one = run.apply(&cfg);
        let mut cpu = CpuEngine {
            cpu: CpuTorus::new(&one),
            config: one.clone(),
        };
        cpu.advance(Budget::Finish).map_err(gpu_err)?;
        let mut gpu_report = pdes_core::sim::Report::of(&summaries[r]);
        if options.perturb_gpu {
            gpu_report.perturb_work();
        }
        let prefix = |d: String| format!("seed {}, d = {}: {d}", run.seed, run.d);
        diffs.extend(
            compare_reports(&cpu.report().map_err(gpu_err)?, &gpu_report)
                .into_iter()
                .filter(|d| !d.starts_with("engine:"))
                .map(prefix),
        );
        if g.replica_log(r) != cpu.step_log() {
            diffs.push(prefix("step logs differ".into()));
        }
        diffs.extend(
            compare_torus_states(&comparable_state(cpu.cpu.state(), &one), &states[r])
                .into_iter()
                .map(prefix),
        );
    }
    Ok(diffs)
}

/// The torus configurations, each run with both segment lengths (2048 and 4096 facilities).
/// 37×53 = 1961 facilities: one partial segment; 61×71 = 4331: three segments of 2048 or two
/// of 4096, the last partial; P = 2 and 3 put queues everywhere.
const CASES: &[Case] = &[
    Case {
        label: "window 37×53 P=1 seed 1",
        preset: "teaching-16x16",
        sets: &[
            "model.rows=37",
            "model.cols=53",
            "run.algorithm=\"window\"",
            "run.d=0.5",
            "run.end_time=60",
            "run.warmup=15",
            "run.seed=1",
        ],
        quick: true,
    },
    Case {
        label: "window 61×71 P=3 seed 4242",
        preset: "teaching-16x16",
        sets: &[
            "model.rows=61",
            "model.cols=71",
            "model.tokens_per_facility=3",
            "model.mean_service=7",
            "run.algorithm=\"window\"",
            "run.d=0.6",
            "run.end_time=40",
            "run.warmup=0",
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
            "run.warmup=15",
            "run.seed=3",
        ],
        quick: true,
    },
    Case {
        label: "interval/original 61×71 P=1 seed 9",
        preset: "teaching-16x16",
        sets: &[
            "model.rows=61",
            "model.cols=71",
            "model.service=\"exponential\"",
            "run.algorithm=\"interval\"",
            "run.timestamps=\"original\"",
            "run.d=1.5",
            "run.end_time=50",
            "run.warmup=0",
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
            "run.warmup=15",
            "run.seed=5",
        ],
        quick: true,
    },
    Case {
        label: "interval/boundary 61×71 P=3 seed 11",
        preset: "teaching-16x16",
        sets: &[
            "model.rows=61",
            "model.cols=71",
            "model.tokens_per_facility=3",
            "model.service=\"exponential\"",
            "run.algorithm=\"interval\"",
            "run.timestamps=\"boundary\"",
            "run.d=1",
            "run.end_time=40",
            "run.warmup=0",
            "run.seed=11",
        ],
        quick: false,
    },
    Case {
        // gaps between steps of more than 2^32 ticks: the closing's fallback reduction
        label: "window 2×2 mean 4000 (steps beyond the 32-bit offset) seed 7",
        preset: "teaching-16x16",
        sets: &[
            "model.rows=2",
            "model.cols=2",
            "model.mean_service=4000",
            "run.algorithm=\"window\"",
            "run.d=0.5",
            "run.end_time=200000",
            "run.warmup=0",
            "run.seed=7",
        ],
        quick: true,
    },
];

/// The torus's engines for the harness (`crate::twins`): the GPU engine with both segment
/// lengths of its scan (the engine picks one by size: these small tori would otherwise
/// never run the one the largest runs use) against its CPU twin, then every facility and
/// token; and the display pass mid-run.
pub struct TorusTwins;

impl Twins for TorusTwins {
    type Config = TorusConfig;
    type Cpu = CpuEngine;
    type Gpu = GpuTorus;
    const KIND: &'static str = "torus";
    const CASES: &'static [Case] = CASES;

    const MODELS: &'static [&'static ModelInfo] = &[&super::INFO];

    fn pairs(
        gpu: &Arc<Gpu>,
        cfg: &TorusConfig,
        r: Reductions,
    ) -> Result<Vec<(String, CpuEngine, GpuTorus)>, String> {
        [ScanItems::EIGHT, ScanItems::SIXTEEN]
            .into_iter()
            .map(|items| {
                let cpu = CpuEngine {
                    cpu: CpuTorus::new(cfg),
                    config: cfg.clone(),
                };
                let g = GpuTorus::with_scan_items(gpu.clone(), cfg, r, items).map_err(gpu_err)?;
                Ok((format!("segments of {}: ", items.segment()), cpu, g))
            })
            .collect()
    }

    fn end(cfg: &TorusConfig) -> Ticks {
        cfg.end_ticks()
    }

    async fn compare_states(
        cfg: &TorusConfig,
        cpu: &CpuEngine,
        g: &mut GpuTorus,
    ) -> Result<Vec<String>, String> {
        Ok(compare_torus_states(
            &comparable_state(cpu.cpu.state(), cfg),
            &when_back(|| g.download_state()).await.map_err(gpu_err)?,
        ))
    }

    async fn more(gpu: &Arc<Gpu>, cfg: &TorusConfig, r: Reductions) -> Result<Vec<String>, String> {
        check_display_async(gpu, cfg, r).await
    }
}

/// The heatmap's words from the GPU's display pass (tokens, next-step outline, error step)
/// against the CPU engine's, mid-run: where the run stood before its last budget.
async fn check_display_async(
    gpu: &Arc<Gpu>,
    cfg: &TorusConfig,
    r: Reductions,
) -> Result<Vec<String>, String> {
    let mut diffs = Vec::new();
    // the heatmap's words from the GPU's display pass (tokens, next-step outline, error
    // step) against the CPU engine's, mid-run: where the run stood before its last budget
    let mut cpu = CpuEngine {
        cpu: CpuTorus::new(cfg),
        config: cfg.clone(),
    };
    let mut g = GpuTorus::with_reductions(gpu.clone(), cfg, r).map_err(gpu_err)?;
    let mid = Budget::Until(cfg.end_ticks() / 2);
    advance_in_slices(&mut cpu, mid, cfg.end_ticks())
        .await
        .map_err(gpu_err)?;
    advance_settled(&mut g, mid).await.map_err(gpu_err)?;
    let want = pdes_gpu::LiveEngine::display_words(&cpu).map_err(gpu_err)?;
    let buf = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("verify display"),
        size: 8 * want.len() as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    g.write_display(&buf);
    let bytes = when_back(|| pdes_gpu::kit::read_buffers_since(gpu, &[&buf], g.work()))
        .await
        .map_err(gpu_err)?;
    let got: &[[u32; 2]] = bytemuck::cast_slice(&bytes[0]);
    if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
        diffs.push(format!(
            "display words: facility {i}: CPU {:?}, GPU display pass {:?}",
            want[i], got[i]
        ));
    }
    Ok(diffs)
}

/// The live sample's case: a warm-up the run is past at its middle, several tokens a
/// facility, a grid that is not a multiple of a workgroup.
const LIVE_CASE: Case = Case {
    label: "20×13, 2 tokens, warm-up 40, T = 300, at t = 150",
    preset: "teaching-16x16",
    sets: &[
        "model.rows=20",
        "model.cols=13",
        "model.tokens_per_facility=2",
        "run.warmup=40",
        "run.end_time=300",
    ],
    quick: true,
};

/// A plot sample's measures on the GPU (completed services' sums plus the in-service
/// pass's, issue 56 §1) against the CPU twin's `measure` at the same time, mid-run: busy
/// time with the services in progress, sojourns, completions.
fn check_live_sample(
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
    let mid = Budget::Until(cfg.end_ticks() / 2);
    cpu.advance(mid).map_err(gpu_err)?;
    g.advance(mid).map_err(gpu_err)?;
    let want =
        super::stats::measure(cpu.cpu.state(), cpu.now().min(cfg.end_ticks())).map_err(gpu_err)?;
    let mut got = g.live_measures().map_err(gpu_err)?;
    if options.perturb_gpu {
        got.busy += 1;
    }
    let pairs = [
        (
            "time reached",
            u128::from(want.horizon),
            u128::from(got.horizon),
        ),
        ("busy ticks", want.busy, got.busy),
        ("sojourn ticks", want.sojourn, got.sojourn),
        (
            "completions",
            u128::from(want.completions),
            u128::from(got.completions),
        ),
    ];
    Ok(pairs
        .iter()
        .filter(|(_, c, g)| c != g)
        .map(|(what, c, g)| format!("live {what}: CPU {c}, GPU {g}"))
        .collect())
}

fn check_window_vs_sequential(
    gpu: &Arc<Gpu>,
    cfg: &TorusConfig,
    options: Options,
) -> Result<Vec<String>, String> {
    let r = crate::verify::variants(gpu)[0];
    let mut g = GpuTorus::with_reductions(gpu.clone(), cfg, r).map_err(gpu_err)?;
    g.advance(Budget::Finish).map_err(gpu_err)?;
    let state = g.download_state().map_err(gpu_err)?;
    compare_with_sequential(cfg, g.report().map_err(gpu_err)?, &state, options)
}

/// The blocked window engine (temporal blocking, `halo` windows per block) = sequential.
fn check_blocked_vs_sequential(
    gpu: &Arc<Gpu>,
    cfg: &TorusConfig,
    halo: u32,
    options: Options,
) -> Result<Vec<String>, String> {
    let mut g = GpuTorusBlocked::new(gpu.clone(), cfg, halo).map_err(gpu_err)?;
    g.advance(Budget::Finish).map_err(gpu_err)?;
    let state = g.download_state().map_err(gpu_err)?;
    let mut diffs = compare_with_sequential(cfg, g.report().map_err(gpu_err)?, &state, options)?;
    if let Err(e) = state.check_tokens() {
        diffs.push(e);
    }
    Ok(diffs)
}

/// Differences between a GPU run of the window algorithm (its report and final state) and
/// the sequential run of `cfg` on the CPU.
fn compare_with_sequential(
    cfg: &TorusConfig,
    gpu_report: pdes_core::sim::Report,
    gpu_state: &TorusState,
    options: Options,
) -> Result<Vec<String>, String> {
    let mut seq_cfg = cfg.clone();
    seq_cfg.run.algorithm = Algorithm::Sequential;
    let mut seq = CpuEngine {
        cpu: CpuTorus::new(&seq_cfg),
        config: seq_cfg,
    };
    seq.advance(Budget::Finish).map_err(gpu_err)?;
    let mut diffs = compare_sample_path(
        &seq.report().map_err(gpu_err)?,
        gpu_report,
        &[
            "events",
            "utilization",
            "mean_sojourn",
            "throughput",
            "causality_errors",
            "tokens_in_system",
            "sim_time",
        ],
        options,
    );
    diffs.extend(compare_torus_states(
        &comparable_state(seq.cpu.state(), cfg),
        gpu_state,
    ));
    Ok(diffs)
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
        f.completions = 0;
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
