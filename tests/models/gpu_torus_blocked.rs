//! The blocked window engine (temporal blocking, `models::torus::blocked`) against the
//! sequential ground truth, on whatever adapter is present (lavapipe in CI): the same final
//! state (every facility and token) and the same statistics, whatever the halo, the torus
//! shape (partial edge tiles, tori smaller than a region) and the budgets.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::common_cfg;
use common_cfg::{config, gpu};
use pdes_lab::models::queueing::Algorithm;
use pdes_lab::models::torus::blocked::GpuTorusBlocked;
use pdes_lab::models::torus::config::TorusConfig;
use pdes_lab::models::torus::cpu::{CpuEngine, CpuTorus, TorusEngine};
use pdes_lab::models::torus::verify::{comparable_state, compare_torus_states};
use pdes_lab::sim::{Budget, Engine};
use pdes_lab::time::to_ticks;

/// Runs `cfg` blocked with `halo` under `budgets` and sequentially to the end; asserts the
/// same state and statistics. Returns the blocked engine.
fn assert_blocked_is_sequential(
    cfg: &TorusConfig,
    halo: u32,
    budgets: &[Budget],
) -> GpuTorusBlocked {
    let gpu = gpu().expect("checked by caller");
    let mut g = GpuTorusBlocked::new(gpu, cfg, halo).unwrap();
    for &b in budgets {
        g.advance(b).unwrap();
    }
    g.advance(Budget::Finish).unwrap();
    assert!(g.finished());
    let mut seq_cfg = cfg.clone();
    seq_cfg.run.algorithm = Algorithm::Sequential;
    let mut seq = CpuEngine {
        cpu: CpuTorus::new(&seq_cfg),
        config: seq_cfg,
    };
    seq.advance(Budget::Finish).unwrap();
    let state = g.download_state().unwrap();
    state.check_tokens().unwrap();
    let diffs = compare_torus_states(&comparable_state(seq.cpu.state(), cfg), &state);
    assert!(diffs.is_empty(), "halo {halo}: {diffs:?}");
    let (sg, ss) = (g.summary().unwrap(), seq.summary().unwrap());
    assert_eq!(sg.events, ss.events, "halo {halo}: events");
    assert_eq!(
        sg.utilization.to_bits(),
        ss.utilization.to_bits(),
        "halo {halo}: utilization"
    );
    assert_eq!(
        sg.mean_sojourn.to_bits(),
        ss.mean_sojourn.to_bits(),
        "halo {halo}: sojourn"
    );
    assert_eq!(sg.causality_errors, 0);
    g
}

#[test]
fn blocked_window_is_sequential_for_every_halo() {
    if gpu().is_none() {
        return;
    }
    // 40×56: partial tiles on both edges; two tokens per facility: queues at block start,
    // tokens joining them during a block, the global and the local part of one queue
    let cfg = config(&[
        "model.rows=40",
        "model.cols=56",
        "model.tokens_per_facility=2",
        "model.service=\"shifted\"",
        "run.algorithm=\"window\"",
        "run.d=1",
        "run.end_time=300",
        "run.warmup=40",
    ]);
    for halo in [1, 2, 4] {
        assert_blocked_is_sequential(&cfg, halo, &[]);
    }
}

#[test]
fn blocked_window_is_sequential_under_budgets_and_long_queues() {
    if gpu().is_none() {
        return;
    }
    // five tokens per facility (long queues), d = 0.5, stopped at step budgets and a time
    // limit that cut blocks and windows short
    let cfg = config(&[
        "model.rows=30",
        "model.cols=33",
        "model.tokens_per_facility=5",
        "model.service=\"shifted\"",
        "run.algorithm=\"window\"",
        "run.d=0.5",
        "run.end_time=150",
    ]);
    let g = assert_blocked_is_sequential(
        &cfg,
        3,
        &[
            Budget::Steps(5),
            Budget::Until(to_ticks(37.3)),
            Budget::Steps(1),
        ],
    );
    // every step is one anchored window of width d (or less, at a cut)
    let d = to_ticks(0.5);
    assert!(
        g.step_log()
            .iter()
            .all(|s| s.bound - s.t_min < d && s.events > 0)
    );
}

#[test]
fn blocked_window_is_sequential_on_a_torus_smaller_than_a_region() {
    if gpu().is_none() {
        return;
    }
    // 12×9: the region wraps around the torus (a facility appears in it several times)
    let cfg = config(&[
        "model.rows=12",
        "model.cols=9",
        "model.tokens_per_facility=3",
        "model.service=\"shifted\"",
        "run.algorithm=\"window\"",
        "run.d=2",
        "run.end_time=400",
    ]);
    assert_blocked_is_sequential(&cfg, 4, &[]);
}

#[test]
fn blocked_refuses_what_it_cannot_run_exactly() {
    let Some(gpu) = gpu() else { return };
    // (window with exponential service is refused by the configuration itself)
    let interval = config(&["model.service=\"shifted\"", "run.algorithm=\"interval\""]);
    let e = GpuTorusBlocked::new(gpu.clone(), &interval, 2)
        .err()
        .expect("interval");
    assert!(e.to_string().contains("run.algorithm"), "{e}");
    let shifted = config(&["model.service=\"shifted\"", "run.algorithm=\"window\""]);
    let e = GpuTorusBlocked::new(gpu.clone(), &shifted, 0)
        .err()
        .expect("halo 0");
    assert!(e.to_string().contains("halo 0"), "{e}");
    let wide = config(&[
        "model.service=\"shifted\"",
        "run.algorithm=\"window\"",
        "model.mean_service=1000",
        "run.end_time=5000",
        "run.d=500",
    ]);
    let e = GpuTorusBlocked::new(gpu, &wide, 4)
        .err()
        .expect("d too wide");
    assert!(e.to_string().contains("run.d"), "{e}");
}

#[test]
fn blocked_window_is_sequential_in_dense_windows() {
    if gpu().is_none() {
        return;
    }
    // service 2 + Exp(0.5) with d = 2: most busy facilities depart in every window (many
    // departures per warp, many arrivals at one facility in one window)
    let cfg = config(&[
        "model.rows=30",
        "model.cols=40",
        "model.tokens_per_facility=2",
        "model.mean_service=2.5",
        "model.service=\"shifted\"",
        "run.algorithm=\"window\"",
        "run.d=2",
        "run.end_time=100",
    ]);
    let g = assert_blocked_is_sequential(&cfg, 3, &[]);
    // the premise: windows in which more than a third of the 1200 facilities depart
    let most = g.step_log().iter().map(|s| s.events).max().unwrap_or(0);
    assert!(most > 400, "the busiest window had only {most} events");
}
