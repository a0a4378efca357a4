//! PHOLD on the CPU: the window reproduces sequential; the model's laws.

use super::config::{PholdAlgorithm, PholdConfig};
use super::cpu::CpuPhold;
use pdes_core::sim::Budget;

fn config(sets: &[&str]) -> PholdConfig {
    crate::preset::config_with("teaching-phold", sets)
        .unwrap()
        .get::<PholdConfig>()
        .unwrap()
        .clone()
}

fn run(cfg: &PholdConfig, algorithm: PholdAlgorithm) -> CpuPhold {
    let mut c = cfg.clone();
    c.algorithm = algorithm;
    let mut e = CpuPhold::new(&c);
    e.advance(Budget::Finish);
    e
}

#[test]
fn the_window_reproduces_the_sequential_run_event_for_event() {
    for sets in [
        &["model.lps=777", "model.population=3", "run.end_time=40"][..],
        &[
            "model.lps=100",
            "model.remote=0.2",
            "model.lookahead=0.5",
            "model.mean=0.3",
            "run.end_time=60",
            "run.seed=9",
        ][..],
        &["model.lps=50", "model.remote=0", "run.end_time=30"][..],
    ] {
        let cfg = config(sets);
        let (seq, win) = (
            run(&cfg, PholdAlgorithm::Sequential),
            run(&cfg, PholdAlgorithm::Window),
        );
        assert_eq!(seq.state, win.state, "{sets:?}");
        assert_eq!(seq.totals().events, win.totals().events);
        assert!(
            win.totals().events > 1000,
            "{sets:?}: {}",
            win.totals().events
        );
        assert!(
            win.totals().steps < seq.totals().steps,
            "the window batches events"
        );
        // every step's events lie in its window: the log's bounds are t_min + lookahead − 1
        let la = cfg.lookahead_ticks();
        for r in win.log() {
            assert!(r.bound < r.t_min + la);
        }
    }
}

#[test]
fn every_event_is_a_hop_and_none_is_lost() {
    let cfg = config(&["model.lps=300", "model.population=4", "run.end_time=50"]);
    let e = run(&cfg, PholdAlgorithm::Window);
    let (_, hops) = e.state.checksums();
    let tokens = u64::from(cfg.events_in_flight());
    // each token starts at hop 1 (its first draw placed it): hops = events + tokens
    assert_eq!(hops, e.totals().events + tokens);
    assert_eq!(e.state.events.len() as u64, tokens);
    let counted: u64 = e.state.counts.iter().map(|&c| u64::from(c)).sum();
    assert_eq!(counted, e.totals().events);
    // every pending event is at or past the end
    assert!(e.state.events.iter().all(|x| x.time >= cfg.end_ticks()));
}

#[test]
fn the_event_rate_approaches_its_long_run_value_and_remote_zero_stays_home() {
    let cfg = config(&["model.lps=2000", "run.end_time=400"]);
    let e = run(&cfg, PholdAlgorithm::Window);
    let rate = e.totals().events as f64 / (2000.0 * 400.0);
    let want = cfg.event_rate_per_lp();
    assert!((rate / want - 1.0).abs() < 0.01, "{rate} against {want}");
    let home = config(&[
        "model.lps=64",
        "model.population=2",
        "model.remote=0",
        "run.end_time=50",
    ]);
    let e = run(&home, PholdAlgorithm::Window);
    for (j, x) in e.state.events.iter().enumerate() {
        assert_eq!(x.lp, j as u32 / 2, "token {j} left its LP");
    }
}

#[test]
fn bad_values_are_refused_with_the_key_and_the_range() {
    for (set, key) in [
        ("model.lps=0", "model.lps"),
        ("model.remote=1.5", "model.remote"),
        ("model.lookahead=0", "model.lookahead"),
        ("model.population=2000", "model.population"),
        ("run.algorithm=\"interval\"", "run.algorithm"),
    ] {
        let err = crate::preset::config_with("teaching-phold", &[set]).unwrap_err();
        assert!(
            err.starts_with(&format!("{key} must be ")) && err.contains("; got "),
            "{set}: {err}"
        );
    }
}

#[test]
fn the_heatmap_counts_pending_events_and_outlines_the_next_windows_lps() {
    let mut e = CpuPhold::new(&config(&["model.lps=200", "run.end_time=50"]));
    e.advance(Budget::Steps(3));
    let w = super::live::words(&e);
    let mark = pdes_gpu::NEXT_STEP_BIT;
    // every pending event counted once, at its LP; the second word its processed events
    let pending: u32 = w.iter().map(|c| c[0] & !mark).sum();
    assert_eq!(pending as usize, e.state.events.len());
    assert!((0..200).all(|i| w[i][1] == e.state.counts[i]));
    // outlined: exactly the LPs with an event before the next step's bound
    let bound = e.next_bound();
    let due: Vec<_> = e
        .state
        .events
        .iter()
        .filter(|x| x.time < bound)
        .copied()
        .collect();
    let mut due_lps: Vec<u32> = due.iter().map(|x| x.lp).collect();
    due_lps.sort_unstable();
    due_lps.dedup();
    let outlined: Vec<u32> = (0..w.len() as u32)
        .filter(|&i| w[i as usize][0] & mark != 0)
        .collect();
    assert_eq!(outlined, due_lps);
    assert!(!outlined.is_empty() && outlined.len() < 200);
    // and the next step processes exactly those events
    let before = e.totals().events;
    e.advance(Budget::Steps(1));
    assert_eq!(e.totals().events - before, due.len() as u64);
}

#[test]
fn a_steps_remote_messages_follow_the_remote_probability() {
    // remote = 0: every successor stays at its LP
    let mut local = CpuPhold::new(&config(&["model.remote=0", "run.end_time=50"]));
    local.advance(Budget::Steps(5));
    assert_eq!(local.last_step_remote(), 0);
    // remote = 1 over 4096 LPs: all but the few that draw their own LP (1 in 4096)
    let mut remote = CpuPhold::new(&config(&["run.end_time=50"]));
    remote.advance(Budget::Steps(5));
    let events = remote.log().last().map(|r| r.events).unwrap();
    assert!(events > 100);
    let moved = remote.last_step_remote();
    assert!(
        moved <= events && moved + 3 >= events,
        "{moved} of {events}"
    );
}
