//! The open network's GPU engine against its CPU twin and against sequential, on whatever
//! adapter is present (Mesa lavapipe in CI; `pdes-lab verify` repeats the comparisons on
//! the user's GPU). With PDES_REQUIRE_GPU=1 a missing adapter fails.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::common_cfg;
use common_cfg::{gpu, open_config};
use pdes_lab::engines::LiveEngine;
use pdes_lab::gpu::shaders::Reductions;
use pdes_lab::models::open_network::config::OpenConfig;
use pdes_lab::models::open_network::engine::OpenEngine;
use pdes_lab::models::open_network::gpu::GpuOpen;
use pdes_lab::models::open_network::verify::compare_open_states;
use pdes_lab::models::queueing::{Algorithm, Timestamps};
use pdes_lab::sim::{Budget, Engine};
use pdes_lab::verify::compare_reports;

/// 37 lines × 120 servers: three segments of 2048, the last partial; ρ = 0.49.
const WIDE: [&str; 4] = [
    "model.lines=37",
    "model.servers_per_line=120",
    "model.arrival_rate=4.5",
    "run.end_time=60",
];

/// A GPU engine of `cfg` that starts with `pool` token slots.
fn gpu_engine(cfg: &OpenConfig, pool: u32) -> Option<GpuOpen> {
    let g = gpu()?;
    let r = Reductions::for_device(&g.device);
    Some(GpuOpen::with_options(g, cfg, r, pool).unwrap())
}

/// Runs the CPU twin and the GPU engine under the same budgets; after each they must have
/// the same step log, time, and state (by token identity, not slot).
fn assert_same_path(
    cfg: &OpenConfig,
    pool: u32,
    budgets: &[Budget],
) -> Option<(OpenEngine, GpuOpen)> {
    let mut g = gpu_engine(cfg, pool)?;
    let mut cpu = OpenEngine::new(cfg);
    let original = cfg.run.timestamps == Timestamps::Original;
    for (i, b) in budgets.iter().enumerate() {
        cpu.advance(*b).unwrap();
        g.advance(*b).unwrap();
        assert_eq!(g.step_log(), cpu.step_log(), "budget {i}: step log");
        assert_eq!(g.now(), cpu.now(), "budget {i}: now");
        assert_eq!(g.finished(), cpu.finished(), "budget {i}: finished");
        let diffs = compare_open_states(cpu.state(), &g.download_state().unwrap(), original);
        assert!(diffs.is_empty(), "budget {i}: {diffs:?}");
    }
    let diffs = compare_reports(&cpu.report().unwrap(), &g.report().unwrap());
    assert!(diffs.is_empty(), "{diffs:?}");
    Some((cpu, g))
}

fn budgets(cfg: &OpenConfig) -> [Budget; 4] {
    let end = cfg.end_ticks();
    [
        Budget::Steps(3),
        Budget::Until(end / 3),
        Budget::Steps(40),
        Budget::Finish,
    ]
}

#[test]
fn window_on_the_gpu_is_the_cpu_twin_while_the_pool_grows_from_one_slot() {
    let mut sets = WIDE.to_vec();
    sets.extend([
        "model.service=\"shifted\"",
        "run.algorithm=\"window\"",
        "run.d=0.5",
    ]);
    let cfg = open_config(&sets);
    let Some((cpu, g)) = assert_same_path(&cfg, 1, &budgets(&cfg)) else {
        return;
    };
    let tokens = cpu.state().in_system;
    assert!(
        tokens > 100,
        "the run must fill the network: {tokens} tokens"
    );
    assert!(
        g.pool_growths >= 7,
        "1 slot → ≥ 128 takes 7 doublings, saw {}",
        g.pool_growths
    );
    assert!(u64::from(g.pool_capacity()) >= tokens);
}

#[test]
fn interval_original_on_the_gpu_counts_the_same_causality_errors_as_the_cpu() {
    let cfg = open_config(&[
        "model.arrival_rate=3.6",
        "model.mean_service=1",
        "run.algorithm=\"interval\"",
        "run.timestamps=\"original\"",
        "run.d=0.5",
        "run.end_time=300",
        "run.seed=3",
    ]);
    let Some((cpu, g)) = assert_same_path(&cfg, 8, &budgets(&cfg)) else {
        return;
    };
    let errors = cpu.summary().unwrap().causality_errors;
    assert!(
        errors > 0,
        "ρ = 0.9 with d = 0.5 must produce causality errors"
    );
    // the heatmap words (tokens, latest error step) agree too
    assert_eq!(g.display_words().unwrap(), cpu.display_words().unwrap());
}

#[test]
fn interval_boundary_on_the_gpu_is_the_cpu_twin() {
    let mut sets = WIDE.to_vec();
    sets.extend([
        "run.algorithm=\"interval\"",
        "run.timestamps=\"boundary\"",
        "run.d=1",
        "run.seed=5",
    ]);
    let cfg = open_config(&sets);
    assert_same_path(&cfg, 1024, &budgets(&cfg));
}

#[test]
fn a_single_line_recirculates_every_switched_token_correctly() {
    let cfg = open_config(&[
        "model.lines=1",
        "model.servers_per_line=5",
        "model.exit_probability=0.1",
        "model.arrival_rate=0.04",
        "run.algorithm=\"interval\"",
        "run.timestamps=\"original\"",
        "run.d=1.5",
        "run.end_time=400",
        "run.seed=9",
    ]);
    assert_same_path(&cfg, 2, &budgets(&cfg));
}

#[test]
fn window_on_the_gpu_is_sequential_on_the_cpu() {
    let mut sets = WIDE.to_vec();
    sets.extend([
        "model.service=\"shifted\"",
        "run.algorithm=\"window\"",
        "run.d=0.5",
    ]);
    let cfg = open_config(&sets);
    let Some(mut g) = gpu_engine(&cfg, 64) else {
        return;
    };
    let mut seq_cfg = cfg.clone();
    seq_cfg.run.algorithm = Algorithm::Sequential;
    let mut seq = OpenEngine::new(&seq_cfg);
    seq.advance(Budget::Finish).unwrap();
    g.advance(Budget::Finish).unwrap();
    let (a, b) = (seq.summary().unwrap(), g.summary().unwrap());
    assert_eq!(a.events, b.events);
    assert_eq!(a.arrivals, b.arrivals);
    assert_eq!(a.exits, b.exits);
    assert_eq!(a.utilization, b.utilization);
    assert_eq!(a.mean_sojourn, b.mean_sojourn);
    assert_eq!(a.mean_system_time, b.mean_system_time);
    assert_eq!(a.mean_tokens_in_system, b.mean_tokens_in_system);
    assert!(
        b.steps < a.steps / 5,
        "window steps {} vs sequential {}",
        b.steps,
        a.steps
    );
    let diffs = compare_open_states(seq.state(), &g.download_state().unwrap(), false);
    assert!(diffs.is_empty(), "{diffs:?}");
}

#[test]
fn the_gpu_refuses_sequential_with_the_reason() {
    let cfg = open_config(&["run.algorithm=\"sequential\""]);
    let Some(g) = gpu() else {
        return;
    };
    let err = GpuOpen::new(g, &cfg)
        .err()
        .expect("sequential has no GPU engine");
    assert!(err.to_string().contains("--engine cpu"), "{err}");
}

#[test]
fn hundreds_of_arrivals_per_step_are_created_in_parallel_exactly_as_on_the_cpu() {
    // λ = 150, d = 4: ~600 arrivals per step, three 256-arrival chunks of the source's
    // prefix sum; P_exit = 1 after two servers recycles slots through the free stack.
    let cfg = open_config(&[
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
    ]);
    let Some((cpu, _)) = assert_same_path(&cfg, 1, &budgets(&cfg)) else {
        return;
    };
    let most = cpu.step_log().iter().map(|s| s.events).max().unwrap();
    assert!(
        most > 512,
        "a step must hold more than two chunks of arrivals: {most}"
    );
}
