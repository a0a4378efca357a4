//! The network's part of `pdes-lab verify`: awkward networks (multi-server stations, a
//! self-loop, a station with only exits, probabilities that are not multiples of 1/2ⁿ, five
//! service laws, an Erlang of seven phases, open and closed, several segments, many
//! sources; paper 002's open network, its lines' last stations sharing one list of routes),
//! each run by the GPU engine and its CPU twin and compared — summary, step log,
//! then every station, server and queue — and the window on the GPU against sequential on
//! the CPU.
//!
//! Token *slots* legitimately differ between the engines (the GPU frees and takes slots in
//! parallel), so states are compared by what the tokens are — id, entry, arrival at the
//! station, visits — never by slot. Every GPU run here starts with a pool of
//! [`VERIFY_POOL`] slots (or the population), so that growing the pool is exercised on the
//! user's adapter too.

use super::config::NetworkConfig;
use super::engine::NetEngine;
use super::gpu::GpuNetwork;
use super::state::{NONE, NetState};
use crate::config::ModelInfo;
use crate::queueing::Algorithm;
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

/// An open network with every awkwardness the window allows (d ≤ 0.3): a 3-server desk
/// with uniform service and a self-loop, routes of 0.17/0.33/0.5, a 2-server lab that
/// sends some back, an x-ray with deterministic service and only an exit.
const AWKWARD: &str = r#"model.station=[{ name = "desk", servers = 3, service = { kind = "uniform", low = 0.3, high = 1.7 }, arrival_rate = 1.3, routes = { desk = 0.17, lab = 0.33, xray = 0.5 } }, { name = "lab", servers = 2, service = { kind = "shifted", shift = 0.4, mean = 1.1 }, routes = { exit = 0.7, desk = 0.3 } }, { name = "xray", service = { kind = "deterministic", value = 0.45 }, routes = { exit = 1.0 } }]"#;

/// A closed job shop of 12 tokens: an Erlang of seven phases (its service takes a second
/// Philox call), exponential service at four servers, a self-loop, two populations.
const JOB_SHOP: &str = r#"model.station=[{ name = "lathe", servers = 2, service = { kind = "erlang", k = 7, mean = 1.4 }, population = 9, routes = { mill = 0.55, lathe = 0.15, paint = 0.3 } }, { name = "mill", servers = 4, service = { kind = "exponential", mean = 2.0 }, routes = { lathe = 0.62, paint = 0.38 } }, { name = "paint", service = { kind = "uniform", low = 0.1, high = 0.9 }, population = 3, routes = { lathe = 1.0 } }]"#;

/// The window algorithm's promise, once per verification (the registry's `verify_once`):
/// the GPU window run is the sequential run.
pub fn check_once(gpu: &Arc<Gpu>, options: Options, record: &mut dyn FnMut(CheckResult)) {
    let case = &CASES[1];
    record(check_case::<NetworkConfig>(
        format!(
            "network window on the GPU = sequential on the CPU, {}",
            case.label
        ),
        &[&super::INFO],
        case,
        |cfg| check_window_vs_sequential(gpu, cfg, options),
    ));
}

/// The network configurations.
const CASES: &[Case] = &[
    Case {
        label: "clinic window as written, T=3000 warm-up 300",
        preset: "clinic",
        sets: &["run.end_time=3000", "run.warmup=300"],
        quick: true,
    },
    Case {
        label: "awkward open network window d=0.3 warm-up 20 seed 5",
        preset: "clinic",
        sets: &[
            AWKWARD,
            "run.algorithm=\"window\"",
            "run.d=0.3",
            "run.end_time=400",
            "run.warmup=20",
            "run.seed=5",
        ],
        quick: true,
    },
    Case {
        label: "awkward open network interval/original d=0.8 seed 3",
        preset: "clinic",
        sets: &[
            AWKWARD,
            "run.algorithm=\"interval\"",
            "run.timestamps=\"original\"",
            "run.d=0.8",
            "run.end_time=400",
            "run.warmup=0",
            "run.seed=3",
        ],
        quick: true,
    },
    Case {
        label: "closed job shop (Erlang 7) interval/original d=0.5 seed 11",
        preset: "clinic",
        sets: &[
            JOB_SHOP,
            "run.algorithm=\"interval\"",
            "run.timestamps=\"original\"",
            "run.d=0.5",
            "run.end_time=500",
            "run.warmup=0",
            "run.seed=11",
        ],
        quick: true,
    },
    Case {
        label: "awkward open network interval/boundary d=1 seed 7",
        preset: "clinic",
        sets: &[
            AWKWARD,
            "run.algorithm=\"interval\"",
            "run.timestamps=\"boundary\"",
            "run.d=1",
            "run.end_time=400",
            "run.warmup=0",
            "run.seed=7",
        ],
        quick: false,
    },
    Case {
        label: "closed job shop interval/boundary d=0.7 warm-up 50 seed 2",
        preset: "clinic",
        sets: &[
            JOB_SHOP,
            "run.algorithm=\"interval\"",
            "run.timestamps=\"boundary\"",
            "run.d=0.7",
            "run.end_time=500",
            "run.warmup=50",
            "run.seed=2",
        ],
        quick: false,
    },
    Case {
        label: "tandem 6×40 (six sources) window d=0.5 seed 13",
        preset: "clinic",
        sets: &[
            "model.station=[]",
            "model.shape={ kind = \"tandem\", lines = 6, servers_per_line = 40, exit_probability = 0.7, arrival_rate = 2.5 }",
            "run.algorithm=\"window\"",
            "run.d=0.5",
            "run.end_time=200",
            "run.warmup=0",
            "run.seed=13",
        ],
        quick: false,
    },
    Case {
        label: "park-fishwick-open interval/boundary d=1 T=1500 warm-up 300",
        preset: "park-fishwick-open",
        sets: &["run.end_time=1500", "run.warmup=300"],
        quick: true,
    },
    Case {
        label: "open network 300 lines × 5 (one list of 301 routes) interval/original d=0.8 seed 23",
        preset: "park-fishwick-open",
        sets: &[
            "model.shape={ kind = \"tandem\", lines = 300, servers_per_line = 5, exit_probability = 0.25, arrival_rate = 12.0, service = { kind = \"exponential\", mean = 5.0 } }",
            "run.timestamps=\"original\"",
            "run.d=0.8",
            "run.end_time=300",
            "run.seed=23",
        ],
        quick: false,
    },
    Case {
        label: "random 5000 stations degree 3 (three segments) window d=0.5 seed 17",
        preset: "random-network",
        sets: &[
            "model.shape={ kind = \"random\", stations = 5000, degree = 3, tokens_per_station = 2 }",
            "run.d=0.5",
            "run.end_time=60",
            "run.seed=17",
        ],
        quick: false,
    },
    Case {
        label: "torus 40×40 interval/original d=0.7 seed 19",
        preset: "random-network",
        sets: &[
            "model.shape={ kind = \"torus\", rows = 40, cols = 40, tokens_per_station = 1 }",
            "run.algorithm=\"interval\"",
            "run.timestamps=\"original\"",
            "run.d=0.7",
            "run.end_time=60",
            "run.seed=19",
        ],
        quick: false,
    },
];

/// The network's engines for the harness (`crate::twins`).
pub struct NetworkTwins;

impl Twins for NetworkTwins {
    type Config = NetworkConfig;
    type Cpu = NetEngine;
    type Gpu = GpuNetwork;
    const KIND: &'static str = "network";
    const CASES: &'static [Case] = CASES;

    const MODELS: &'static [&'static ModelInfo] = &[&super::INFO];

    fn pairs(
        gpu: &Arc<Gpu>,
        cfg: &NetworkConfig,
        r: Reductions,
    ) -> Result<Vec<(String, NetEngine, GpuNetwork)>, String> {
        let g = GpuNetwork::with_options(gpu.clone(), cfg, r, VERIFY_POOL).map_err(gpu_err)?;
        Ok(vec![(String::new(), NetEngine::new(cfg), g)])
    }

    fn end(cfg: &NetworkConfig) -> Ticks {
        cfg.end_ticks()
    }

    async fn compare_states(
        _cfg: &NetworkConfig,
        cpu: &NetEngine,
        g: &mut GpuNetwork,
    ) -> Result<Vec<String>, String> {
        let (state, _) = when_back(|| g.download_state()).await.map_err(gpu_err)?;
        Ok(compare_network_states(cpu.state(), &state))
    }
}

fn check_window_vs_sequential(
    gpu: &Arc<Gpu>,
    cfg: &NetworkConfig,
    options: Options,
) -> Result<Vec<String>, String> {
    let mut seq_cfg = cfg.clone();
    seq_cfg.run.algorithm = Algorithm::Sequential;
    let mut seq = NetEngine::new(&seq_cfg);
    seq.advance(Budget::Finish).map_err(gpu_err)?;
    let r = crate::verify::variants(gpu)[0];
    let mut g = GpuNetwork::with_options(gpu.clone(), cfg, r, VERIFY_POOL).map_err(gpu_err)?;
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
    let (state, _) = g.download_state().map_err(gpu_err)?;
    diffs.extend(compare_network_states(seq.state(), &state));
    Ok(diffs)
}

/// What a token is, independent of its pool slot: (id, entry, arrival at its station,
/// visits).
type TokenIdentity = (u64, u64, u64, u32);

/// One station as both engines must hold it: its sums, its servers (departure, since, the
/// token served) and its queue in order.
#[derive(Debug, PartialEq, Eq)]
struct StationView {
    sums: [u128; 9],
    servers: Vec<(u64, u64, Option<TokenIdentity>)>,
    queue: Vec<TokenIdentity>,
}

fn identity(s: &NetState, slot: u32) -> Option<TokenIdentity> {
    (slot != NONE).then(|| {
        let t = &s.tokens[slot as usize];
        (t.id, t.entered, t.arrived, t.visits)
    })
}

fn views(s: &NetState) -> Vec<StationView> {
    (0..s.stations.len())
        .map(|i| {
            let st = &s.stations[i];
            let (a, b) = (s.first_server[i] as usize, s.first_server[i + 1] as usize);
            let mut queue = Vec::new();
            let mut t = st.head;
            while t != NONE && queue.len() <= s.tokens.len() {
                queue.extend(identity(s, t));
                t = s.tokens[t as usize].next;
            }
            StationView {
                sums: [
                    u128::from(st.queued),
                    u128::from(st.present),
                    u128::from(st.last_arrival),
                    u128::from(st.busy),
                    u128::from(st.completions),
                    u128::from(st.sojourn),
                    st.area_done,
                    st.live_arrived,
                    u128::from(st.causality_errors),
                ],
                servers: s.servers[a..b]
                    .iter()
                    .map(|v| (v.departure, v.since, identity(s, v.token)))
                    .collect(),
                queue,
            }
        })
        .collect()
}

/// The first station that differs (by content, not slots), how many do, the sources and
/// the network's counts.
pub fn compare_network_states(cpu: &NetState, gpu: &NetState) -> Vec<String> {
    let mut diffs = Vec::new();
    if let Err(e) = gpu.check_tokens() {
        diffs.push(format!("GPU token conservation: {e}"));
        return diffs;
    }
    let (c, g) = (views(cpu), views(gpu));
    let differ: Vec<usize> = (0..c.len().min(g.len()))
        .filter(|&i| c[i] != g[i])
        .collect();
    if let Some(&i) = differ.first() {
        diffs.push(format!(
            "stations: {} differ; first {i}: CPU {:?}, GPU {:?}",
            differ.len(),
            c[i],
            g[i]
        ));
    }
    if c.len() != g.len() {
        diffs.push("state: different numbers of stations".into());
    }
    let sources = |s: &NetState| {
        s.sources
            .iter()
            .map(|v| (v.next, v.count))
            .collect::<Vec<_>>()
    };
    if sources(cpu) != sources(gpu) {
        diffs.push(format!(
            "sources (next, count): CPU {:?}, GPU {:?}",
            sources(cpu),
            sources(gpu)
        ));
    }
    let counts = |s: &NetState| {
        (
            s.arrivals,
            s.exits,
            s.in_system,
            s.system_time,
            s.exits_measured,
        )
    };
    if counts(cpu) != counts(gpu) {
        diffs.push(format!(
            "(arrivals, exits, in system, system time, exits measured): CPU {:?}, GPU {:?}",
            counts(cpu),
            counts(gpu)
        ));
    }
    diffs
}
