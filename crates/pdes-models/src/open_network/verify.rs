//! The open network's part of `pdes-lab verify`: its configurations, and the checks that
//! its GPU engine reproduces the CPU twin (summary, step log, every facility with the
//! tokens it holds, the arrival stream) and that the window algorithm on the GPU reproduces
//! sequential on the CPU.
//!
//! Token *slots* legitimately differ between the engines (the GPU frees slots in
//! parallel), so states are compared by what the tokens are — arrival number, entry time,
//! arrival time at the facility, visits — in queue order, never by slot. Every GPU run
//! here starts with a pool of [`VERIFY_POOL`] slots, so that growing the pool between
//! batches is exercised on the user's adapter too.

use super::config::OpenConfig;
use super::engine::OpenEngine;
use super::gpu::GpuOpen;
use super::state::{NONE, OpenState, Token};
use crate::config::ModelInfo;
use crate::queueing::{Algorithm, Timestamps};
use crate::twins::Twins;
use crate::verify::{Case, CheckResult, Options, check_case, compare_sample_path, gpu_err};
use pdes_core::sim::waiting::when_back;
use pdes_core::sim::{Budget, Engine};
use pdes_core::time::Ticks;
use pdes_gpu::Gpu;
use pdes_gpu::shaders::Reductions;
use std::sync::Arc;

/// Initial token-pool size of the verification runs: small, so that the pool grows.
pub const VERIFY_POOL: u32 = 16;

/// The window algorithm's promise, once per verification (the registry's `verify_once`):
/// the GPU window run is the sequential run.
pub fn check_once(gpu: &Arc<Gpu>, options: Options, record: &mut dyn FnMut(CheckResult)) {
    let case = &CASES[0];
    record(check_case::<OpenConfig>(
        format!(
            "open-network window on the GPU = sequential on the CPU, {}",
            case.label
        ),
        &[&super::INFO],
        case,
        |cfg| check_window_vs_sequential(gpu, cfg, options),
    ));
}

/// The open-network configurations. 37 × 120 = 4440 facilities: three segments of 2048, the
/// last partial, and 37 line starts receiving from every line and the source; 8 × 12 at
/// ρ = 0.9 builds long queues and several arrivals per step; one line makes every switched
/// token return to the line it left.
const CASES: &[Case] = &[
    Case {
        label: "window 37×120 λ=4.5 seed 1",
        preset: "teaching-open",
        sets: &[
            "model.lines=37",
            "model.servers_per_line=120",
            "model.arrival_rate=4.5",
            "model.service=\"shifted\"",
            "run.algorithm=\"window\"",
            "run.d=0.5",
            "run.end_time=60",
            "run.seed=1",
        ],
        quick: true,
    },
    Case {
        label: "interval/original 8×12 ρ=0.9 seed 3",
        preset: "teaching-open",
        sets: &[
            "model.arrival_rate=3.6",
            "model.mean_service=1",
            "run.algorithm=\"interval\"",
            "run.timestamps=\"original\"",
            "run.d=0.5",
            "run.end_time=300",
            "run.seed=3",
        ],
        quick: true,
    },
    Case {
        label: "window 8×12 ρ=0.9 warm-up 100 seed 17",
        preset: "teaching-open",
        sets: &[
            "model.arrival_rate=3.6",
            "model.mean_service=1",
            "model.service=\"shifted\"",
            "run.algorithm=\"window\"",
            "run.d=0.5",
            "run.end_time=300",
            "run.warmup=100",
            "run.seed=17",
        ],
        quick: true,
    },
    Case {
        label: "interval/boundary 37×120 seed 5",
        preset: "teaching-open",
        sets: &[
            "model.lines=37",
            "model.servers_per_line=120",
            "model.arrival_rate=4.5",
            "run.algorithm=\"interval\"",
            "run.timestamps=\"boundary\"",
            "run.d=1",
            "run.end_time=60",
            "run.seed=5",
        ],
        quick: true,
    },
    Case {
        label: "window 8×12 ρ=0.9 seed 7",
        preset: "teaching-open",
        sets: &[
            "model.arrival_rate=3.6",
            "model.mean_service=1",
            "model.service=\"shifted\"",
            "run.algorithm=\"window\"",
            "run.d=0.25",
            "run.end_time=300",
            "run.seed=7",
        ],
        quick: false,
    },
    Case {
        label: "interval/original 1×5 P_exit=0.1 seed 9",
        preset: "teaching-open",
        sets: &[
            "model.lines=1",
            "model.servers_per_line=5",
            "model.exit_probability=0.1",
            "model.arrival_rate=0.04",
            "run.algorithm=\"interval\"",
            "run.timestamps=\"original\"",
            "run.d=1.5",
            "run.end_time=400",
            "run.seed=9",
        ],
        quick: false,
    },
    Case {
        label: "interval/boundary 61×67 P_exit=1 seed 11",
        preset: "teaching-open",
        sets: &[
            "model.lines=61",
            "model.servers_per_line=67",
            "model.exit_probability=1",
            "model.arrival_rate=20",
            "run.algorithm=\"interval\"",
            "run.timestamps=\"boundary\"",
            "run.d=2",
            "run.end_time=40",
            "run.seed=11",
        ],
        quick: false,
    },
    Case {
        label: "window 1024×2 λ=150 d=4 (~600 arrivals per step) seed 13",
        preset: "teaching-open",
        sets: &[
            "model.lines=1024",
            "model.servers_per_line=2",
            "model.exit_probability=1",
            "model.mean_service=5",
            "model.arrival_rate=150",
            "model.service=\"shifted\"",
            "run.algorithm=\"window\"",
            "run.d=4",
            "run.end_time=100",
            "run.seed=13",
        ],
        quick: false,
    },
];

/// The open network's engines for the harness (`crate::twins`): the GPU engine (its pool
/// starting at [`VERIFY_POOL`] slots) against its CPU twin, then every facility's tokens.
pub struct OpenTwins;

impl Twins for OpenTwins {
    type Config = OpenConfig;
    type Cpu = OpenEngine;
    type Gpu = GpuOpen;
    const KIND: &'static str = "open-network";
    const CASES: &'static [Case] = CASES;

    const MODELS: &'static [&'static ModelInfo] = &[&super::INFO];

    fn pairs(
        gpu: &Arc<Gpu>,
        cfg: &OpenConfig,
        r: Reductions,
    ) -> Result<Vec<(String, OpenEngine, GpuOpen)>, String> {
        let g = GpuOpen::with_options(gpu.clone(), cfg, r, VERIFY_POOL).map_err(gpu_err)?;
        Ok(vec![(String::new(), OpenEngine::new(cfg), g)])
    }

    fn end(cfg: &OpenConfig) -> Ticks {
        cfg.end_ticks()
    }

    async fn compare_states(
        cfg: &OpenConfig,
        cpu: &OpenEngine,
        g: &mut GpuOpen,
    ) -> Result<Vec<String>, String> {
        Ok(compare_open_states(
            cpu.state(),
            &when_back(|| g.download_state()).await.map_err(gpu_err)?,
            original(cfg),
        ))
    }
}

fn check_window_vs_sequential(
    gpu: &Arc<Gpu>,
    cfg: &OpenConfig,
    options: Options,
) -> Result<Vec<String>, String> {
    let mut seq_cfg = cfg.clone();
    seq_cfg.run.algorithm = Algorithm::Sequential;
    let mut seq = OpenEngine::new(&seq_cfg);
    seq.advance(Budget::Finish).map_err(gpu_err)?;
    let r = crate::verify::variants(gpu)[0];
    let mut g = GpuOpen::with_options(gpu.clone(), cfg, r, VERIFY_POOL).map_err(gpu_err)?;
    g.advance(Budget::Finish).map_err(gpu_err)?;
    let mut diffs = compare_sample_path(
        &seq.report().map_err(gpu_err)?,
        g.report().map_err(gpu_err)?,
        &[
            "events",
            "utilization",
            "mean_sojourn",
            "throughput",
            "arrivals",
            "exits",
            "tokens_in_system",
            "mean_tokens_in_system",
            "mean_system_time",
            "sim_time",
        ],
        options,
    );
    diffs.extend(compare_open_states(
        seq.state(),
        &g.download_state().map_err(gpu_err)?,
        false,
    ));
    Ok(diffs)
}

fn original(cfg: &OpenConfig) -> bool {
    cfg.run.algorithm == Algorithm::Interval && cfg.run.timestamps == Timestamps::Original
}

/// What a token is, independent of its pool slot: (arrival number, entry, arrival at its
/// facility, visits).
type TokenIdentity = (u64, u64, u64, u32);

/// One facility as both engines must hold it: departure, service start, last arrival
/// (interval/original only), the token in service and the queue in order.
#[derive(Debug, PartialEq, Eq)]
struct FacilityView {
    departure: u64,
    service_start: u64,
    last_arrival: u64,
    serving: Option<TokenIdentity>,
    queue: Vec<TokenIdentity>,
}

fn identity(t: &Token) -> TokenIdentity {
    (t.arrival, t.entered, t.arrived, t.visits)
}

fn views(s: &OpenState, original: bool) -> Vec<FacilityView> {
    s.facilities
        .iter()
        .map(|f| {
            let mut queue = Vec::new();
            let mut t = f.head;
            while t != NONE && queue.len() <= s.tokens.len() {
                queue.push(identity(&s.tokens[t as usize]));
                t = s.tokens[t as usize].next;
            }
            FacilityView {
                departure: f.departure,
                service_start: f.service_start,
                last_arrival: if original { f.last_arrival } else { 0 },
                serving: (f.serving != NONE).then(|| identity(&s.tokens[f.serving as usize])),
                queue,
            }
        })
        .collect()
}

/// The first facility that differs (by content, not slots), how many do, and the source.
pub fn compare_open_states(cpu: &OpenState, gpu: &OpenState, original: bool) -> Vec<String> {
    let mut diffs = Vec::new();
    if let Err(e) = gpu.check_tokens() {
        diffs.push(format!("GPU token conservation: {e}"));
        return diffs;
    }
    let (c, g) = (views(cpu, original), views(gpu, original));
    let differ: Vec<usize> = (0..c.len().min(g.len()))
        .filter(|&i| c[i] != g[i])
        .collect();
    if let Some(&i) = differ.first() {
        diffs.push(format!(
            "facilities: {} differ; first {i}: CPU {:?}, GPU {:?}",
            differ.len(),
            c[i],
            g[i]
        ));
    }
    if c.len() != g.len() {
        diffs.push("state: different numbers of facilities".into());
    }
    let source = |s: &OpenState| (s.next_arrival, s.arrivals, s.exits, s.in_system);
    if source(cpu) != source(gpu) {
        diffs.push(format!(
            "(next arrival, arrivals, exits, in system): CPU {:?}, GPU {:?}",
            source(cpu),
            source(gpu)
        ));
    }
    diffs
}
