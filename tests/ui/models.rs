//! Every model in the window: diffusion, the open network (a network preset), M/M/c/k's fit view, SIR, the
//! Info tabs, and whole-window snapshots.

use super::*;
use pdes_lab::app::heatmap::Mode;

#[test]
fn whole_window_snapshot() {
    let Some(mut h) = app_on("sang2019-causality") else {
        return;
    };
    for _ in 0..60 {
        h.state_mut().step_once();
    }
    h.run_steps(3);
    // the status bar shows wall-clock figures (frame time, events/s): not comparable
    let size = h.ctx.content_rect().size();
    h.mask(egui::Rect::from_min_max(
        egui::pos2(0.0, size.y - 26.0),
        egui::pos2(size.x, size.y),
    ));
    h.snapshot("whole_window");
}

#[test]
fn the_diffusion_model_runs_in_the_window_with_its_heatmap_and_plots() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    pick_model(&mut h, "diffusion grid");
    h.run_steps(2);
    h.state_mut().reset();
    h.run_steps(2);
    assert_eq!(h.state().a.config.kind(), "diffusion");
    assert_eq!(h.state().mode, pdes_lab::app::heatmap::Mode::Temperature);
    assert_eq!(h.state().form.algorithm.name, "hybrid");
    for _ in 0..5 {
        h.state_mut().step_once();
    }
    h.run_steps(1);
    assert_eq!(h.state().a.steps(), 5);
    for label in [
        "step size (log10)",
        "cells updated per step",
        "mean temperature",
    ] {
        // a plot's title (and, for some, a monitor's label too)
        assert!(h.query_all_by_label(label).next().is_some(), "{label}");
    }
    // the heatmap words are the temperatures: the edges have warmed, the centre not yet
    let words = h.state().a.display_words().unwrap();
    let t = |i: usize| f32::from_bits(words[i][0]);
    let (rows, cols) = h.state().a.shape();
    assert!(t(0) > 0.0, "corner cell {}", t(0));
    assert_eq!(t((rows / 2 * cols + cols / 2) as usize), 0.0);
}

#[test]
fn an_unstable_dt_is_refused_with_the_stability_bound() {
    let Some(mut h) = app_on("teaching-diffusion") else {
        return;
    };
    h.get_by_label("timestepped").click();
    h.run_steps(2);
    assert!(h.state().form_error.is_none());
    h.get_by_role_and_label(Role::Slider, "dt (log)")
        .set_value_accesskit(0.5);
    h.run_steps(2);
    let err = h.state().form_error.clone().expect("refused");
    assert!(err.starts_with("run.dt") && err.contains("= 0.25"), "{err}");
    h.get_by_label(err.as_str());
}

/// Paper 002's open network is a network preset: its tandem lines are the heatmap's rows,
/// it runs, and its plots and monitors are the network's.
#[test]
fn the_open_network_runs_in_the_window_as_its_lines() {
    let Some(mut h) = app_on("teaching-open") else {
        return;
    };
    h.run_steps(2);
    assert_eq!(h.state().a.config.kind(), "network");
    assert_eq!(h.state().a.shape(), (8, 12));
    h.state_mut().running = true;
    h.run_steps(10);
    assert!(h.state().a.steps() > 0, "the open network advances");
    // the plot's title (tokens now) and the monitor's label (their time average, run's
    // mean_tokens_in_system)
    assert_eq!(h.query_all_by_label("tokens in the network").count(), 1);
    h.get_by_label("mean tokens in the network");
    // the form shows the shape's own keys (it showed "tandem (a table)")
    for key in [
        "lines",
        "servers_per_line",
        "exit_probability",
        "arrival_rate",
        "mean",
    ] {
        assert!(
            h.query_all_by_label(key).count() > 0,
            "no control for {key}"
        );
    }
}

#[test]
fn a_b_mode_works_for_the_open_network() {
    let Some(mut h) = app_on("teaching-open") else {
        return;
    };
    h.state_mut().set_ab(true);
    h.run_steps(1);
    let b = h.state().b.as_ref().expect("a B session");
    assert_eq!(b.config.kind(), "network");
    assert_ne!(b.algorithm_label(), h.state().a.algorithm_label());
    h.state_mut().running = true;
    h.run_steps(8);
    assert!(h.state().b.as_ref().unwrap().steps() > 0);
    assert!(h.state().a.steps() > 0);
}

/// The fit view on the live M/M/c/k run: its per-replication L̂ become the data, a fit of
/// k = 1..2 runs in the background and fills the BIC table without stalling frames.
#[test]
fn the_fit_view_fits_the_live_replications_l_hats() {
    let mut h = harness("teaching-mmck");
    // the replications run 20 time units
    h.state_mut().advance(pdes_lab::sim::Budget::Until(
        20 << pdes_lab::time::TICK_BITS,
    ));
    h.run_steps(2);
    h.get_by_label("Fit").click();
    h.run_steps(2);
    h.get_by_label("Live run: L per replication").click();
    h.state_mut().fit.max_components = 2;
    h.run_steps(2);
    h.get_by_label("Fit mixtures").click();
    let started = std::time::Instant::now();
    loop {
        h.run_steps(3);
        if !h.state().fit.running() {
            break;
        }
        assert!(started.elapsed().as_secs() < 120, "the fit did not finish");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let fits = h.state().fit.fits().to_vec();
    assert_eq!(fits.len(), 2, "{:?}", h.state().fit.error);
    assert!(
        fits[1].loglik >= fits[0].loglik - 1e-9,
        "two components fit at least as well"
    );
    // L̂ of a replication lies within [0, k]
    assert!(
        fits[0].means[0] > 0.0 && fits[0].means[0] < 5.0,
        "{:?}",
        fits[0]
    );
    // what BIC chose is said in words, with each k's starts that agree
    h.run_steps(2);
    h.get_by_label("What BIC chose, and how sure it is");
    h.get_by_label("starts agreeing");
    let agreeing = format!("{} of {}", fits[1].starts_agreeing, fits[1].starts);
    assert_eq!(fits[1].starts, 4, "{:?}", fits[1]);
    assert!(h.query_all_by_label(&agreeing).count() >= 1, "{agreeing}");
}

#[test]
fn the_sir_epidemic_runs_in_the_window_and_ab_compares_sequential_with_flattened() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    pick_model(&mut h, "SIR epidemic (DEVS)");
    h.run_steps(2);
    h.state_mut().reset();
    h.run_steps(2);
    assert_eq!(h.state().a.config.kind(), "sir");
    assert_eq!(h.state().mode, pdes_lab::app::heatmap::Mode::Compartments);
    for label in ["imminent cells per step", "messages per step"] {
        h.get_by_label(label);
    }
    h.state_mut().set_ab(true);
    h.run_steps(1);
    for _ in 0..12 {
        h.state_mut().step_once();
    }
    h.run_steps(1);
    let b = h.state().b.as_ref().expect("a B session");
    assert_ne!(b.algorithm_label(), h.state().a.algorithm_label());
    // sequential and flattened: the same cells after the same steps
    assert_eq!(h.state().a.steps(), 12);
    assert_eq!(b.steps(), 12);
    assert_eq!(
        h.state().a.display_words().unwrap(),
        b.display_words().unwrap()
    );
    // the heatmap words are the packed compartments: the seed at the centre has infected
    let words = h.state().a.display_words().unwrap();
    let (rows, cols) = h.state().a.shape();
    let (_, i, _) =
        pdes_lab::models::devs::sir_unpack(words[(rows / 2 * cols + cols / 2) as usize][0]);
    assert!(i > 0);
}

#[test]
fn every_models_info_tab_renders() {
    if !gpu_available() {
        return;
    }
    for m in pdes_lab::models::MODELS {
        let mut h = harness(m.teaching_preset);
        h.get_by_label("Info").click();
        h.run_steps(2);
        h.get_by_label("Open the teaching preset");
        // the first heading of its text
        let first = m.info.lines().next().unwrap().trim_start_matches("# ");
        h.get_by_label(first);
    }
}

/// A whole-window snapshot of every model on its teaching preset after a few steps (the
/// torus has its own above, on the causality preset).
#[test]
fn whole_window_snapshot_of_every_model() {
    if !gpu_available() {
        return;
    }
    let mut results = egui_kittest::SnapshotResults::new();
    for m in pdes_lab::models::MODELS
        .iter()
        .filter(|m| m.kind != "torus")
    {
        let mut h = harness(m.teaching_preset);
        for _ in 0..12 {
            h.state_mut().step_once();
        }
        h.run_steps(3);
        let size = h.ctx.content_rect().size();
        h.mask(egui::Rect::from_min_max(
            egui::pos2(0.0, size.y - 26.0),
            egui::pos2(size.x, size.y),
        ));
        h.snapshot(format!("whole_window_{}", m.kind));
        results.extend(h.take_snapshot_results());
    }
}

/// Runs `preset` at 1000 simulated time units a second for `seconds` of wall-clock time,
/// its heatmap in `mode` where given; returns (steps taken, seconds it took).
fn steps_at_full_speed(preset: &str, mode: Option<Mode>, seconds: f64) -> (f64, f64) {
    let mut h = harness(preset);
    if let Some(m) = mode {
        h.state_mut().mode = m;
    }
    h.state_mut().sim_rate = 1000.0;
    h.state_mut().running = true;
    let started = std::time::Instant::now();
    while started.elapsed().as_secs_f64() < seconds {
        h.run_steps(1);
    }
    (h.state().a.steps() as f64, started.elapsed().as_secs_f64())
}

#[test]
fn the_devs_benchmark_flashes_only_on_request_and_never_faster_than_its_step_limit() {
    if !gpu_available() {
        return;
    }
    // by default the digits are shown with their flips undone: a still field, run at the
    // speed asked (issue 56 §5: the field alternated yellow and dark twice a second)
    let h = harness("teaching-devs-benchmark");
    assert_eq!(h.state().mode, Mode::Steadied);
    assert_eq!(h.state().step_limit(), None);
    let (steps, seconds) = steps_at_full_speed("teaching-devs-benchmark", None, 0.5);
    assert!(
        steps > 1.0 + seconds * 2.5,
        "the calm view is not slowed: {steps} steps in {seconds:.2} s"
    );
    // the flipping digits on request: every cell flips at every step, so the window shows
    // at most 2.5 steps a second (no full-field flash at 3 Hz or more), whatever the speed
    let (steps, seconds) = steps_at_full_speed("teaching-devs-benchmark", Some(Mode::Digit), 1.0);
    assert!(steps >= 2.0, "it runs: {steps} steps in {seconds:.2} s");
    assert!(
        steps <= 1.0 + seconds * 2.5,
        "{steps} steps in {seconds:.2} s: faster than 2.5 a second"
    );
}

#[test]
fn the_devs_benchmarks_calm_view_stays_still_while_its_digits_flip() {
    if !gpu_available() {
        return;
    }
    // every cell flips at every step; with its flips undone each cell keeps its start
    let mut h = harness("teaching-devs-benchmark");
    let start = h.state().a.display_words().unwrap();
    for k in 1..=3u32 {
        h.state_mut().step_once();
        let now = h.state().a.display_words().unwrap();
        for (w, s) in now.iter().zip(&start) {
            assert_eq!(w[0], s[0] ^ (k & 1), "step {k}: the digit flipped");
            assert_eq!(w[1], s[1], "step {k}: the calm word stayed");
        }
    }
    let range = (0.0, 1.0);
    let calm = pdes_lab::app::heatmap::word_colour(Mode::Steadied, [0, 1], 3, range);
    let digit = pdes_lab::app::heatmap::word_colour(Mode::Digit, [0, 1], 3, range);
    assert_ne!(calm, digit, "the calm view colours the second word");
}

#[test]
fn a_sequential_run_shows_one_event_in_its_last_step() {
    // the sequential simulator logs no steps; its monitor said 0 events per step
    let cfg =
        pdes_lab::preset::config_with("teaching-16x16", &["run.algorithm=sequential"]).unwrap();
    let panel = pdes_lab::panels::of(&cfg);
    let mut s = pdes_lab::kit::session::Session::new(cfg, panel, None).unwrap();
    assert_eq!(
        pdes_lab::kit::monitors::last_step_events(&s),
        0.0,
        "before the first"
    );
    s.engine.advance(pdes_lab::sim::Budget::Steps(25)).unwrap();
    assert_eq!(pdes_lab::kit::monitors::last_step_events(&s), 1.0);
}

/// Issue 33: the DEVS step's four phases above the grid, with what the last step did in
/// each — on the 32×32 benchmark every cell is imminent and routes one message per
/// coupling (8,836 for a Moore neighbourhood without wrapping).
#[test]
fn the_devs_strip_shows_the_last_steps_phases() {
    let Some(mut h) = app_on("teaching-devs-benchmark") else {
        return;
    };
    h.state_mut().step_once();
    h.state_mut().step_once();
    h.run_steps(2);
    h.get_by_label_contains("1024 imminent cells (next = t)");
    h.get_by_label_contains("8836 messages pulled into in-bags");
    h.get_by_label_contains("1024 transitions");
    h.get_by_label_contains("the last step. A phase's cells run in parallel");
    h.get_by_label_contains("phases 1–3 read only the state at t");
}

/// The clinic in the window is a graph: stations as nodes left to right (triage, doctor,
/// lab); hovering the first node shows triage's facts.
#[test]
fn the_clinic_is_drawn_as_a_graph_whose_nodes_say_their_station() {
    let Some(mut h) = app_on("clinic") else {
        return;
    };
    for _ in 0..40 {
        h.state_mut().step_once();
    }
    h.run_steps(2);
    let rect = h.get_by_label("network graph").rect();
    // the layout's triage: first of three layers, the middle of its column (graph.rs)
    let inner = rect.shrink(28.0);
    let triage = egui::pos2(inner.min.x + inner.width() / 6.0, inner.center().y);
    h.hover_at(triage);
    // a tooltip opens after egui's delay (half a second of frames)
    h.run_steps(60);
    h.get_by_label("station triage");
    h.get_by_label_contains("routes: doctor 90%, exit 10%");
}

/// Issue 55 §4: a network's next step is marked in its words (bit 31: the station's next
/// event lies within the next window), so Step leaves the stations it ran as the graph's
/// dots, and the status line says so.
#[test]
fn a_networks_single_step_leaves_the_stations_it_ran_as_dots() {
    use pdes_lab::models::network::config::NetworkConfig;
    use pdes_lab::models::network::engine::{NetEngine, next_bound};
    let Some(mut h) = app_on("clinic") else {
        return;
    };
    for _ in 0..30 {
        h.state_mut().step_once();
    }
    // the marks are the stations whose next event is within the next window
    let app = h.state();
    let words = app.a.display_words().unwrap();
    let engine = app.a.engine.as_any().downcast_ref::<NetEngine>().unwrap();
    let cfg = app.a.config.get::<NetworkConfig>().unwrap();
    let bound = next_bound(cfg, pdes_lab::sim::Engine::now(engine)).unwrap();
    let due: Vec<u32> = (0..3)
        .filter(|&i| engine.state().next_event(i) <= bound)
        .map(|i| i as u32)
        .collect();
    assert!(
        !due.is_empty(),
        "some station has an event in the next window"
    );
    let marked: Vec<u32> = (0..3u32)
        .filter(|&i| words[i as usize][0] & pdes_lab::gpu::NEXT_STEP_BIT != 0)
        .collect();
    assert_eq!(marked, due);
    // a step runs them: they are its dots
    h.state_mut().step_once();
    h.run_steps(2);
    assert_eq!(h.state().just_ran, due);
    h.get_by_label_contains(&format!("dots: the {} cells the last step ran", due.len()));
}

/// Issue 55 §4: the causality walkthrough's parts work on a network — under interval /
/// original, "pause on the first causality error" stops at it and selects it, named by its
/// stations (the late token's station and the station that sent it), and every error the
/// run made is in the list with the summary's count.
#[test]
fn a_networks_causality_error_is_stopped_at_and_named_by_its_stations() {
    use pdes_lab::models::network::engine::NetEngine;
    if !gpu_available() {
        return;
    }
    let sets = [
        "run.algorithm=\"interval\"",
        "run.timestamps=\"original\"",
        "run.d=5",
        "run.end_time=100",
        "run.warmup=0",
    ];
    let cfg = pdes_lab::preset::config_with("clinic", &sets).unwrap();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 820.0))
        .wgpu_setup(pdes_lab::app::wgpu_setup())
        .build_eframe(move |cc| PdesApp::with_check(cc, cfg, false).unwrap());
    // from t = 0 (the window starts running: its first frame ran some steps)
    h.state_mut().reset();
    h.state_mut().pause_on_error = true;
    h.state_mut().running = true;
    for _ in 0..400 {
        h.run_steps(1);
        if !h.state().running {
            break;
        }
    }
    let v = h
        .state()
        .selected_violation
        .expect("stopped at an error, selected");
    assert!(v.arrival < v.last_arrival, "{v:?}");
    // stopped at the step that made the first error: it is the only one so far
    assert_eq!(h.state().violations(), vec![v]);
    assert_eq!(
        h.state().a.steps(),
        v.step + 1,
        "the run stands at the step after it"
    );
    let names = ["triage", "doctor", "lab"];
    assert!(v.facility < 3 && v.source < 3, "{v:?}");
    h.run_steps(2);
    h.get_by_label_contains(&format!(
        "Station {} had already processed an arrival",
        names[v.facility as usize]
    ));
    // to the end: the list holds every error the run counts
    h.state_mut().pause_on_error = false;
    h.state_mut().advance(pdes_lab::sim::Budget::Finish);
    let engine = h
        .state()
        .a
        .engine
        .as_any()
        .downcast_ref::<NetEngine>()
        .unwrap();
    let errors = engine.summary().unwrap().causality_errors;
    assert!(errors > 1);
    assert_eq!(engine.violations().count() as u64, errors);
}
