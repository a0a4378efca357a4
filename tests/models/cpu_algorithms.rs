//! The CPU algorithms against each other and against queueing theory.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::common_cfg;
use common_cfg::{config, run_cpu};
use pdes_lab::models::torus::cpu::TorusEngine;
use pdes_lab::sim::Engine;

/// `window` reproduces the sequential sample path exactly: the same final state of every
/// facility and token (so the same events, visit counts and statistics).
#[test]
fn window_reproduces_the_sequential_sample_path() {
    for (rows, cols, p, d) in [
        (24, 20, 1, 1.0),
        (16, 16, 3, 2.5),
        (1, 7, 2, 0.5),
        (2, 3, 1, 4.0),
    ] {
        let sets = [
            format!("model.rows={rows}"),
            format!("model.cols={cols}"),
            format!("model.tokens_per_facility={p}"),
            format!("run.d={d}"),
            "run.end_time=1500".to_string(),
            "run.seed=42".to_string(),
        ];
        let mut sets: Vec<&str> = sets.iter().map(String::as_str).collect();
        let mut window = run_cpu(&config(&sets));
        sets.push("run.algorithm=\"sequential\"");
        let mut seq = run_cpu(&config(&sets));
        assert_eq!(
            window.cpu.state(),
            seq.cpu.state(),
            "{rows}x{cols} P={p} d={d}"
        );
        let (sw, ss) = (window.summary().unwrap(), seq.summary().unwrap());
        assert_eq!(sw.events, ss.events);
        assert!(sw.events > 500, "{} events", sw.events);
        assert_eq!(sw.utilization.to_bits(), ss.utilization.to_bits());
        assert_eq!(sw.mean_sojourn.to_bits(), ss.mean_sojourn.to_bits());
        assert_eq!(sw.causality_errors, 0);
        assert!(sw.steps < ss.steps, "window must batch events");
    }
}

/// A different seed gives a different path (the equivalence above is not vacuous).
#[test]
fn seeds_change_the_sample_path() {
    let a = run_cpu(&config(&["run.seed=1", "run.end_time=200"]));
    let b = run_cpu(&config(&["run.seed=2", "run.end_time=200"]));
    assert_ne!(a.cpu.state(), b.cpu.state());
}

/// Sequential with exponential service matches the exact closed-network values within 2%.
#[test]
fn sequential_matches_the_analytic_closed_network() {
    let cfg = config(&[
        "model.rows=32",
        "model.cols=32",
        "model.service=\"exponential\"",
        "model.mean_service=1",
        "run.algorithm=\"sequential\"",
        "run.end_time=4000",
    ]);
    let s = run_cpu(&cfg).summary().unwrap();
    let (u, w) = (s.analytic_utilization.unwrap(), s.analytic_sojourn.unwrap());
    assert!(
        (s.utilization / u - 1.0).abs() < 0.02,
        "utilization {} vs {u}",
        s.utilization
    );
    assert!(
        (s.mean_sojourn / w - 1.0).abs() < 0.02,
        "sojourn {} vs {w}",
        s.mean_sojourn
    );
    assert_eq!(s.tokens_in_system, 1024);
}

/// The old interval algorithm (original timestamps) makes causality errors on 64×64 at
/// d = 0.5; the exact window algorithm on the same network makes none.
#[test]
fn interval_original_has_causality_errors_window_has_none() {
    let base = [
        "model.rows=64",
        "model.cols=64",
        "run.d=0.5",
        "run.end_time=200",
    ];
    let mut sets = base.to_vec();
    sets.extend([
        "model.service=\"exponential\"",
        "run.algorithm=\"interval\"",
        "run.timestamps=\"original\"",
    ]);
    let interval = run_cpu(&config(&sets)).summary().unwrap();
    assert!(interval.causality_errors > 0);
    let mut sets = base.to_vec();
    sets.push("run.algorithm=\"window\"");
    let window = run_cpu(&config(&sets)).summary().unwrap();
    assert_eq!(window.causality_errors, 0);
}

/// Park & Fishwick's correction brings the boundary algorithm's utilization back to the
/// d → 0 value (the exact one) within 3% on 16×16, M = 5, TI = 1.
#[test]
fn boundary_corrected_utilization_matches_d_to_zero() {
    let cfg = config(&[
        "model.service=\"exponential\"",
        "model.mean_service=5",
        "run.algorithm=\"interval\"",
        "run.timestamps=\"boundary\"",
        "run.d=1",
        "run.end_time=40000",
    ]);
    let s = run_cpu(&cfg).summary().unwrap();
    let exact = s.analytic_utilization.unwrap();
    let corrected = s.corrected_utilization.unwrap();
    assert!(
        s.utilization < exact * 0.97,
        "clustering must bias utilization down: {}",
        s.utilization
    );
    assert!(
        (corrected / exact - 1.0).abs() < 0.03,
        "corrected {corrected} vs {exact}"
    );
}

/// Per-step records add up to the totals, and every window respects its bound.
#[test]
fn step_log_is_consistent_with_totals() {
    let e = run_cpu(&config(&["run.end_time=300"]));
    let log = e.step_log();
    let t = e.totals();
    assert_eq!(log.len() as u64, t.steps);
    assert_eq!(log.iter().map(|r| r.events).sum::<u64>(), t.events);
    assert_eq!(
        log.iter().map(|r| r.events).max().unwrap(),
        t.max_events_per_step
    );
    let d = pdes_lab::time::to_ticks(1.0);
    assert!(log.iter().all(|r| r.bound < r.t_min + d && r.events > 0));
    assert!(log.windows(2).all(|w| w[1].t_min >= w[0].t_min + d));
}

/// A configuration written as a preset reads back as the same configuration.
#[test]
fn config_round_trips_through_toml() {
    let cfg = config(&[
        "model.rows=7",
        "run.d=0.375",
        "run.algorithm=\"interval\"",
        "run.timestamps=\"boundary\"",
        "run.seed=99",
    ]);
    let text = cfg.to_toml("saved by a test");
    assert!(text.starts_with("# saved by a test"));
    assert_eq!(
        pdes_lab::models::torus::config::TorusConfig::from_toml(&text, "round trip").unwrap(),
        cfg
    );
}

/// `run.warmup` = w cuts every event at w by its own timestamps, which must equal the
/// difference of cumulative counters: a run to T with the cut against a run to T and a run
/// to w without it (busy time, sojourn sum and completed visits over [w, T]). Checked for
/// sequential and window (interval steps capped at w would change interval's path).
#[test]
fn the_warmup_cut_equals_the_difference_of_cumulative_counters() {
    use pdes_lab::models::torus::stats::measure;
    use pdes_lab::time::to_ticks;
    for alg in ["sequential", "window"] {
        let run = |end: f64, warmup: f64| {
            let sets = [
                "model.rows=12".to_string(),
                "model.cols=10".to_string(),
                "model.tokens_per_facility=2".to_string(),
                "run.d=2".to_string(),
                format!("run.algorithm=\"{alg}\""),
                format!("run.end_time={end}"),
                format!("run.warmup={warmup}"),
            ];
            let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
            let e = run_cpu(&config(&sets));
            measure(e.cpu.state(), to_ticks(end)).unwrap()
        };
        let (w, t) = (137.25, 600.0);
        let cut = run(t, w);
        let (whole, early) = (run(t, 0.0), run(w, 0.0));
        assert!(early.completions > 100, "{alg}: {early:?}");
        assert_eq!(cut.busy, whole.busy - early.busy, "{alg}: busy");
        assert_eq!(cut.sojourn, whole.sojourn - early.sojourn, "{alg}: sojourn");
        assert_eq!(
            cut.completions,
            whole.completions - early.completions,
            "{alg}: completions"
        );
        assert_eq!(cut.covered(), to_ticks(t - w));
    }
}

/// Without a warm-up every completed service is counted: completions equal the tokens'
/// visit counters (the counter the random streams are keyed by).
#[test]
fn without_warmup_every_visit_is_a_completion() {
    let e = run_cpu(&config(&["run.end_time=300"]));
    let st = e.cpu.state();
    let visits: u64 = st.tokens.iter().map(|t| u64::from(t.visits)).sum();
    let m = pdes_lab::models::torus::stats::measure(st, pdes_lab::time::to_ticks(300.0)).unwrap();
    assert_eq!(m.completions, visits);
    assert!(visits > 1000);
}

/// A warm-up outside [0, T) is refused, naming the key and the range.
#[test]
fn a_warmup_past_the_end_is_refused() {
    let table: toml::Table = "[model]\nkind = \"torus\"\n[run]\nend_time = 100.0\nwarmup = 100.0\n"
        .parse()
        .unwrap();
    let err = pdes_lab::models::torus::config::TorusConfig::from_table(&table)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "run.warmup must be a number from 0 to below run.end_time = 100 (run.warmup = 0 collects statistics from t = 0); got 100"
    );
}
