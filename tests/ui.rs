//! The app driven through egui_kittest with its wgpu renderer (Mesa lavapipe in CI): the
//! real `PdesApp`, its real engines on the shared device, clicks on its real widgets.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pdes_lab::app::PdesApp;
use pdes_lab::panels::torus::form::TorusForm;
use pdes_lab::preset::Config;

fn gpu_available() -> bool {
    match pdes_lab::gpu::Gpu::shared() {
        Ok(_) => true,
        Err(e) if std::env::var("PDES_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("PDES_REQUIRE_GPU=1 but no GPU adapter: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED: no GPU adapter ({e})");
            false
        }
    }
}

fn preset(name: &str) -> Config {
    let (origin, text) = pdes_lab::preset::load_text(name).unwrap();
    Config::from_toml(&text, &origin).unwrap()
}

/// The app on `preset`, paused (so that every test is deterministic).
fn harness(preset_name: &str) -> Harness<'static, PdesApp> {
    let cfg = preset(preset_name);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 820.0))
        .wgpu_setup(pdes_lab::app::wgpu_setup())
        .build_eframe(move |cc| PdesApp::with_check(cc, cfg, false).unwrap());
    // the app starts running; Reset pauses it at time 0 so every test is deterministic
    h.state_mut().reset();
    h.run_steps(2);
    assert_eq!(h.state().a.steps(), 0);
    h
}

#[test]
fn moving_the_d_slider_changes_the_engines_d() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    assert_eq!(
        h.state()
            .a
            .config
            .get::<pdes_lab::models::torus::config::TorusConfig>()
            .unwrap()
            .run
            .d,
        1.0
    );
    h.get_by_role_and_label(Role::Slider, "d (log)")
        .set_value_accesskit(0.5);
    h.run_steps(2);
    assert_eq!(h.state_mut().form.model_mut::<TorusForm>().unwrap().d, 0.5);
    assert_eq!(
        h.state()
            .a
            .config
            .get::<pdes_lab::models::torus::config::TorusConfig>()
            .unwrap()
            .run
            .d,
        0.5,
        "the session was rebuilt with the new d"
    );
    assert!(h.state().form_error.is_none());
}

#[test]
fn run_pause_and_step_buttons_drive_the_simulation() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    let t0 = h.state().a.steps();
    h.get_by_role_and_label(Role::Button, "Step").click();
    h.run_steps(1);
    assert_eq!(h.state().a.steps(), t0 + 1, "Step runs exactly one window");
    h.get_by_role_and_label(Role::Button, "Run").click();
    h.run_steps(6);
    assert!(h.state().running);
    let moving = h.state().a.steps();
    assert!(moving > t0 + 1, "running advances every frame");
    h.get_by_role_and_label(Role::Button, "Pause").click();
    h.run_steps(1);
    let paused = h.state().a.steps();
    h.run_steps(4);
    assert!(!h.state().running);
    assert_eq!(h.state().a.steps(), paused, "paused: no progress");
    h.get_by_role_and_label(Role::Button, "Reset").click();
    h.run_steps(1);
    assert_eq!(h.state().a.steps(), 0);
}

#[test]
fn keyboard_space_runs_and_arrow_steps() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(1);
    assert_eq!(h.state().a.steps(), 1);
    h.key_press(egui::Key::Space);
    h.run_steps(1);
    assert!(h.state().running);
}

#[test]
fn a_bad_value_is_refused_with_its_reason() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    // exponential service cannot run the window algorithm: refused, explained, old run kept
    h.get_by_label("exponential").click();
    h.run_steps(2);
    let err = h.state().form_error.clone().expect("refused");
    assert!(err.contains("shifted"), "{err}");
    assert_eq!(
        h.state()
            .a
            .config
            .get::<pdes_lab::models::torus::config::TorusConfig>()
            .unwrap()
            .model
            .service,
        pdes_lab::models::torus::ServiceKind::Shifted
    );
    h.get_by_label(err.as_str()); // the reason is on screen
    // choosing an algorithm that allows it clears the error
    h.get_by_label("interval / original").click();
    h.run_steps(2);
    assert!(h.state().form_error.is_none());
    assert_eq!(
        h.state()
            .a
            .config
            .get::<pdes_lab::models::torus::config::TorusConfig>()
            .unwrap()
            .run
            .algorithm,
        pdes_lab::models::queueing::Algorithm::Interval
    );
}

#[test]
fn loading_a_preset_replaces_the_model() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.get_by_label("Presets").click();
    h.run_steps(3);
    h.get_by_label("sang2019-causality").click();
    h.run_steps(2);
    let cfg = h
        .state()
        .a
        .config
        .get::<pdes_lab::models::torus::config::TorusConfig>()
        .unwrap();
    assert_eq!((cfg.model.rows, cfg.model.cols, cfg.run.d), (64, 64, 0.5));
    assert_eq!(h.state().form.algorithm.name, "interval-original");
}

#[test]
fn ab_mode_runs_two_algorithms_on_the_same_seed() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("sang2019-causality");
    h.get_by_label("compare with a second algorithm").click();
    h.run_steps(2);
    assert!(h.state().b.is_some());
    h.get_by_label("B: interval / boundary").click();
    h.run_steps(2);
    for _ in 0..40 {
        h.state_mut().step_once();
    }
    h.run_steps(1);
    let app = h.state();
    let b = app.b.as_ref().unwrap();
    assert_eq!(
        b.config
            .get::<pdes_lab::models::torus::config::TorusConfig>()
            .unwrap()
            .run
            .seed,
        app.a
            .config
            .get::<pdes_lab::models::torus::config::TorusConfig>()
            .unwrap()
            .run
            .seed
    );
    assert_eq!(
        b.config
            .get::<pdes_lab::models::torus::config::TorusConfig>()
            .unwrap()
            .run
            .timestamps,
        pdes_lab::models::queueing::Timestamps::Boundary
    );
    assert_eq!(app.a.steps(), 40);
    assert_eq!(b.steps(), 40);
    // both plotted: one sample per step_once plus the initial one
    assert_eq!(app.a.samples.len(), 41);
    assert_eq!(b.samples.len(), 41);
}

#[test]
fn the_gpu_engine_feeds_the_heatmap_without_a_readback_and_matches_the_cpu() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("sang2019-causality");
    h.get_by_label("GPU").click();
    h.run_steps(2);
    assert_eq!(h.state().a.runs_on(), "gpu");
    for _ in 0..30 {
        h.state_mut().step_once();
    }
    let gpu_words = h.state().a.display_words().unwrap();
    h.get_by_label("CPU").click();
    h.run_steps(2);
    assert_eq!(h.state().a.runs_on(), "cpu");
    for _ in 0..30 {
        h.state_mut().step_once();
    }
    assert_eq!(h.state().a.display_words().unwrap(), gpu_words);
}

#[test]
fn whole_window_snapshot() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("sang2019-causality");
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
fn a_click_on_the_heatmap_pins_a_facility_in_the_inspector() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("sang2019-causality");
    h.get_by_label("GPU").click();
    h.run_steps(2);
    for _ in 0..20 {
        h.state_mut().step_once();
    }
    // a click in the middle of the heatmap (the grid is centred in the central panel)
    let centre = egui::pos2(755.0, 300.0);
    h.hover_at(centre);
    h.run_steps(1);
    h.event(egui::Event::PointerButton {
        pos: centre,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: Default::default(),
    });
    h.run_steps(1);
    h.event(egui::Event::PointerButton {
        pos: centre,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: Default::default(),
    });
    h.run_steps(2);
    let heading = h.query_all_by_label_contains("Facility (").count();
    assert_eq!(heading, 1, "the inspector opened");
    h.get_by_label_contains("tokens: ");
    h.get_by_label_contains("the GPU keeps only the step of the latest violation");
}

#[test]
fn a_torus_too_large_for_the_cpu_is_refused_not_allocated() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    let torus = h.state_mut().form.model_mut::<TorusForm>().unwrap();
    torus.rows = 16384;
    torus.cols = 16384;
    h.state_mut().form.gpu = false;
    assert!(!h.state_mut().apply_form());
    h.run_steps(1);
    let err = h.state().form_error.clone().unwrap();
    assert!(
        err.contains("on the CPU, more than the limit of 8 GiB"),
        "{err}"
    );
    assert_eq!(
        h.state()
            .a
            .config
            .get::<pdes_lab::models::torus::config::TorusConfig>()
            .unwrap()
            .model
            .rows,
        16,
        "the running session is kept"
    );
}

#[test]
fn the_diffusion_model_runs_in_the_window_with_its_heatmap_and_plots() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.get_by_label("diffusion grid").click();
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
fn diffusion_on_the_gpu_draws_the_same_temperatures_as_the_cpu() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-diffusion");
    h.get_by_label("GPU").click();
    h.run_steps(2);
    assert_eq!(h.state().a.runs_on(), "gpu");
    for _ in 0..20 {
        h.state_mut().step_once();
    }
    let gpu_words = h.state().a.display_words().unwrap();
    h.get_by_label("CPU").click();
    h.run_steps(2);
    assert_eq!(h.state().a.runs_on(), "cpu");
    for _ in 0..20 {
        h.state_mut().step_once();
    }
    let cpu_words = h.state().a.display_words().unwrap();
    let worst = gpu_words
        .iter()
        .zip(&cpu_words)
        .map(|(g, c)| (f32::from_bits(g[0]) - f32::from_bits(c[0])).abs())
        .fold(0.0, f32::max);
    assert!(worst < 1e-3, "GPU and CPU heatmaps differ by {worst}");
}

#[test]
fn an_unstable_dt_is_refused_with_the_stability_bound() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-diffusion");
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

#[test]
fn the_start_up_check_verifies_the_gpu_in_the_background_and_says_so() {
    if !gpu_available() {
        return;
    }
    let cfg = preset("teaching-16x16");
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 820.0))
        .wgpu_setup(pdes_lab::app::wgpu_setup())
        .build_eframe(move |cc| PdesApp::new(cc, cfg).unwrap());
    h.run_steps(1);
    assert!(
        h.state().gpu_check.running(),
        "the check runs off the UI thread"
    );
    let started = std::time::Instant::now();
    while h.state().gpu_check.running() && started.elapsed().as_secs() < 300 {
        std::thread::sleep(std::time::Duration::from_millis(50));
        h.run_steps(1);
    }
    let (text, alarm, hover) = h.state().gpu_check.status().unwrap();
    assert!(text.starts_with("GPU = CPU: "), "{text}");
    assert!(text.ends_with(" checks passed"), "{text}");
    assert!(!alarm);
    assert!(hover.contains("must be identical"));
    h.run_steps(1);
    h.get_by_label_contains("GPU = CPU: ");
}

#[test]
fn a_failed_check_disables_the_gpu_engines_and_moves_the_sessions_to_the_cpu() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.state_mut().form.gpu = true;
    h.state_mut().apply_form();
    h.run_steps(1);
    assert_eq!(h.state().a.runs_on(), "gpu");
    // a verification that failed, as the background thread would deliver it
    let (tx, rx) = std::sync::mpsc::channel();
    tx.send(pdes_lab::verify::Verification {
        adapter: "test adapter".into(),
        reductions: vec!["portable".into()],
        checks: vec![pdes_lab::verify::CheckResult {
            name: "torus window".into(),
            passed: false,
            details: vec!["causality_errors: CPU 0, GPU 111".into()],
            seconds: 0.0,
        }],
        passed: 0,
        failed: 1,
    })
    .unwrap();
    h.state_mut().gpu_check = pdes_lab::app::gpu_check::GpuCheck::Running(rx);
    h.run_steps(2);
    assert_eq!(h.state().a.runs_on(), "cpu");
    assert!(!h.state().gpu_engines_available());
    let (text, alarm, hover) = h.state().gpu_check.status().unwrap();
    assert_eq!(text, "GPU differs from CPU — GPU engines disabled");
    assert!(alarm);
    assert!(
        hover.contains("causality_errors: CPU 0, GPU 111"),
        "{hover}"
    );
    h.get_by_label("GPU differs from CPU — GPU engines disabled");
}

#[test]
fn shrinking_the_torus_unpins_a_facility_it_no_longer_has() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.state_mut().pin(14 * 16 + 11);
    h.run_steps(1);
    h.get_by_label_contains("Facility (14, 11)");
    h.state_mut().form.model_mut::<TorusForm>().unwrap().rows = 8;
    h.state_mut().apply_form();
    h.run_steps(2); // used to panic: index out of bounds in the inspector
    assert!(h.query_by_label_contains("Facility (14, 11)").is_none());
}

#[test]
fn a_typed_d_that_is_not_valid_is_refused_with_the_reason_not_clamped() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    for (typed, reason) in [
        ("abc", "is not a number"),
        ("-1", "out of range"),
        ("0", "out of range"),
    ] {
        let field = h.get_by_role_and_label(Role::TextInput, "d");
        field.focus();
        field.set_text_value_accesskit(typed);
        h.run_steps(1);
        h.key_press(egui::Key::Enter);
        h.run_steps(2);
        let err = h.state().form_error.clone().unwrap_or_default();
        assert!(
            err.starts_with("run.d") && err.contains(reason),
            "{typed}: {err:?}"
        );
        // the running session keeps its valid d
        assert_eq!(
            h.state()
                .a
                .config
                .get::<pdes_lab::models::torus::config::TorusConfig>()
                .unwrap()
                .run
                .d,
            1.0,
            "{typed}"
        );
    }
    let field = h.get_by_role_and_label(Role::TextInput, "d");
    field.focus();
    field.set_text_value_accesskit("0.5");
    h.run_steps(1);
    h.key_press(egui::Key::Enter);
    h.run_steps(2);
    assert!(h.state().form_error.is_none());
    assert_eq!(
        h.state()
            .a
            .config
            .get::<pdes_lab::models::torus::config::TorusConfig>()
            .unwrap()
            .run
            .d,
        0.5
    );
}

#[test]
fn switching_a_b_on_fits_the_a_heatmap_to_its_new_half_of_the_window() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.run_steps(1);
    let before = h.state().heatmap_view(0).unwrap();
    h.state_mut().set_ab(true);
    h.run_steps(2);
    let after = h.state().heatmap_view(0).unwrap();
    assert!(
        after.size[0] < before.size[0] * 0.6,
        "{before:?} → {after:?}"
    );
    // still the whole 16×16 grid in the (narrower) heatmap, fitted to its width or height
    let visible_rows = after.span * after.size[1] / after.size[0];
    assert!(
        after.fitted
            && after.span >= 15.999
            && visible_rows >= 15.999
            && (after.span < 17.0 || visible_rows < 17.0),
        "{after:?}"
    );
}

#[test]
fn opening_the_window_on_a_torus_too_large_for_the_cpu_falls_back_instead_of_panicking() {
    if !gpu_available() {
        return;
    }
    let (origin, text) = pdes_lab::preset::load_text("teaching-16x16").unwrap();
    let text = text
        .replace("rows = 16", "rows = 9000")
        .replace("cols = 16", "cols = 9000");
    let cfg = Config::from_toml(&text, &origin).unwrap();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 820.0))
        .wgpu_setup(pdes_lab::app::wgpu_setup())
        .build_eframe(move |cc| PdesApp::with_check(cc, cfg, false).unwrap());
    h.run_steps(1);
    let msg = h.state().message.clone().unwrap_or_default();
    assert!(
        msg.contains("limit") && msg.contains("default preset"),
        "{msg}"
    );
    assert_eq!(h.state().a.shape(), (16, 16));
}

#[test]
fn the_open_network_is_a_model_in_the_picker_and_runs_in_the_window() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.get_by_label("open network").click();
    h.run_steps(2);
    assert_eq!(h.state().a.config.kind(), "open-network");
    assert_eq!(h.state().a.shape(), (8, 12));
    h.state_mut().running = true;
    h.run_steps(10);
    assert!(h.state().a.steps() > 0, "the open network advances");
    // the plot's title and the monitor's label
    assert_eq!(h.query_all_by_label("tokens in system").count(), 2);
}

#[test]
fn a_b_mode_works_for_the_open_network() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-open");
    h.state_mut().set_ab(true);
    h.run_steps(1);
    let b = h.state().b.as_ref().expect("a B session");
    assert_eq!(b.config.kind(), "open-network");
    assert_ne!(b.algorithm_label(), h.state().a.algorithm_label());
    h.state_mut().running = true;
    h.run_steps(8);
    assert!(h.state().b.as_ref().unwrap().steps() > 0);
    assert!(h.state().a.steps() > 0);
}

#[test]
fn a_sweep_of_a_tiny_grid_completes_plots_its_points_and_a_pick_sets_d() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.get_by_label("Sweep").click();
    {
        let app = h.state_mut();
        app.sweep.from = 0.5;
        app.sweep.to = 2.0;
        app.sweep.points = 3;
        app.sweep.seeds = 2;
        app.sweep.log = true;
    }
    h.run_steps(2);
    h.get_by_label("Run sweep").click();
    let started = std::time::Instant::now();
    loop {
        h.run_steps(3);
        if !h.state().sweep.running() {
            break;
        }
        assert!(
            started.elapsed().as_secs() < 120,
            "the sweep did not finish"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.run_steps(2);
    let res = h.state().sweep.result.as_ref().unwrap();
    assert_eq!(res.xs, vec![0.5, 1.0, 2.0]);
    assert_eq!(
        (res.done(), res.failures.len()),
        (6, 0),
        "{:?}",
        res.failures
    );
    for p in 0..3 {
        let e = res.estimate(p, "utilization").unwrap();
        assert!(e.mean > 0.3 && e.mean < 0.7 && e.ci95.is_some(), "{e:?}");
    }
    // what "Export CSV…" and "Export figure…" write
    let csv_text = res.csv();
    assert_eq!(csv_text.lines().count(), 7, "header + 6 runs");
    assert!(
        csv_text.starts_with("point,seed_index,run.d,model,"),
        "{csv_text}"
    );
    let png = std::env::temp_dir().join(format!("pdes-sweep-view-{}.png", std::process::id()));
    res.figure("utilization", true, &png).unwrap();
    assert_eq!(&std::fs::read(&png).unwrap()[..4], b"\x89PNG");
    // the tuning view: one point per d, and the front's buttons set d in the live run
    assert_eq!(res.tuning("utilization").len(), 3);
    let front = pdes_lab::app::sweep_view::pareto_front(&res.tuning("utilization"));
    let pick = res.xs[front[0].0];
    let label = pdes_lab::app::sweep_view::value_label(pick);
    h.get_by_label(&format!("use run.d = {label}")).click();
    h.run_steps(2);
    assert_eq!(
        h.state().tab,
        pdes_lab::app::Tab::Live,
        "the pick goes back to the live run"
    );
    let d = h
        .state()
        .a
        .config
        .get::<pdes_lab::models::torus::config::TorusConfig>()
        .unwrap()
        .run
        .d;
    assert_eq!(d, pick);
}

/// Not a check: renders the sweep view after a d sweep of the teaching torus into
/// `assets/screenshot-sweep.png` for the README (`cargo test --release --test ui
/// screenshot_of_the_sweep_view -- --ignored`).
#[test]
#[ignore]
fn screenshot_of_the_sweep_view() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.get_by_label("Sweep").click();
    {
        let app = h.state_mut();
        app.sweep.from = 0.25;
        app.sweep.to = 8.0;
        app.sweep.points = 10;
        app.sweep.seeds = 4;
    }
    h.run_steps(2);
    h.get_by_label("Run sweep").click();
    h.run_steps(2);
    while h.state().sweep.running() {
        h.run_steps(3);
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.run_steps(4);
    save_screenshot(&mut h, "screenshot-sweep.png");
}

/// Renders the harness's window into `assets/NAME` (the README's screenshots).
fn save_screenshot(h: &mut Harness<'static, PdesApp>, name: &str) {
    h.render()
        .unwrap()
        .save(format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR")))
        .unwrap();
}

/// Not a check: renders tour stop 1 six steps in and tour stop 3 run to its end into
/// `assets/screenshot-tour.png` and `assets/screenshot-bias.png` for the README (`cargo
/// test --release --test ui screenshots_of_the_tour -- --ignored`).
#[test]
#[ignore]
fn screenshots_of_the_tour() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.state_mut().start_tour();
    h.run_steps(2);
    for _ in 0..6 {
        h.state_mut().step_once();
        h.run_steps(1);
    }
    h.run_steps(2);
    save_screenshot(&mut h, "screenshot-tour.png");
    h.state_mut().go_to_stop(2);
    h.state_mut().running = false;
    // run to the end as the window would, a plot sample every ~16 time units
    let end = pdes_lab::time::to_ticks(2000.0);
    while h.state().a.now() < end {
        let next = h.state().a.now() + pdes_lab::time::to_ticks(8.0);
        h.state_mut()
            .advance(pdes_lab::sim::Budget::Until(next.min(end)));
        h.state_mut().step_once();
    }
    h.run_steps(3);
    save_screenshot(&mut h, "screenshot-bias.png");
}

#[test]
fn interval_original_with_shifted_service_is_warned_about_not_refused() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    assert!(
        h.query_by_label_contains("makes no causality errors")
            .is_none()
    );
    h.get_by_label("interval / original").click();
    h.run_steps(2);
    // accepted (the run is rebuilt with it) and explained
    let cfg = h.state().a.config.clone();
    assert_eq!(cfg.algorithm_info().name, "interval-original");
    assert!(h.state().form_error.is_none());
    assert!(
        h.query_by_label_contains("makes no causality errors")
            .is_some()
    );
    h.get_by_label("exponential").click();
    h.run_steps(2);
    assert!(
        h.query_by_label_contains("makes no causality errors")
            .is_none()
    );
}

#[test]
fn each_ab_side_can_have_its_own_service_for_the_papers_comparison() {
    if !gpu_available() {
        return;
    }
    use pdes_lab::models::torus::ServiceKind;
    use pdes_lab::models::torus::config::TorusConfig;
    let mut h = harness("teaching-16x16");
    h.get_by_label("compare with a second algorithm").click();
    h.run_steps(2);
    h.get_by_label("paper 000's comparison").click();
    h.run_steps(2);
    let app = h.state();
    let a = app.a.config.get::<TorusConfig>().unwrap().clone();
    let b = app
        .b
        .as_ref()
        .unwrap()
        .config
        .get::<TorusConfig>()
        .unwrap()
        .clone();
    assert_eq!(
        (a.run.algorithm.name(), a.model.service),
        ("window", ServiceKind::Shifted)
    );
    assert_eq!(
        (b.run.algorithm.name(), b.model.service),
        ("sequential", ServiceKind::Exponential)
    );
    assert_eq!((a.run.seed, a.model.rows), (b.run.seed, b.model.rows));
    // a bad override is refused with the key, and B keeps running as it was
    h.state_mut().b_sets = "model.colour=3".into();
    h.state_mut().set_ab(true);
    h.run_steps(1);
    assert!(
        h.state()
            .message
            .as_deref()
            .unwrap_or("")
            .contains("model.colour")
    );
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
    let fits = h.state().fit.fits();
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
}

#[test]
fn the_sir_epidemic_runs_in_the_window_and_ab_compares_sequential_with_flattened() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.get_by_label("SIR epidemic (DEVS)").click();
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
fn the_devs_benchmark_on_the_gpu_draws_the_same_digits_as_the_cpu() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-devs-benchmark");
    assert_eq!(h.state().mode, pdes_lab::app::heatmap::Mode::Digit);
    h.get_by_label("GPU").click();
    h.run_steps(2);
    assert_eq!(h.state().a.runs_on(), "gpu");
    for _ in 0..7 {
        h.state_mut().step_once();
    }
    let words = h.state().a.display_words().unwrap();
    assert!(words.iter().all(|w| w[0] == 1), "7 steps: every digit is 1");
}

#[test]
fn the_walkthrough_stops_at_the_first_causality_error_and_selects_it_with_its_source() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.get_by_label("Info").click();
    h.run_steps(2);
    h.get_by_label("Walk through a causality error").click();
    h.run_steps(1);
    assert!(h.state().pause_on_error);
    for _ in 0..400 {
        if !h.state().running {
            break;
        }
        h.run_steps(1);
    }
    let app = h.state();
    assert!(!app.running, "paused");
    let v = app.selected_violation.expect("a selected violation");
    assert_eq!(
        app.a.engine().totals().steps_with_errors,
        1,
        "stopped at the first"
    );
    assert!(v.arrival < v.last_arrival);
    // the source is one of the facility's four neighbours on the 8×8 torus
    let (r, c, sr, sc) = (v.facility / 8, v.facility % 8, v.source / 8, v.source % 8);
    let dr = (sr + 8 - r) % 8;
    let dc = (sc + 8 - c) % 8;
    assert!(
        matches!((dr, dc), (1, 0) | (7, 0) | (0, 1) | (0, 7)),
        "{v:?}"
    );
    h.get_by_label("the selected causality error");
}

#[test]
fn the_monitors_show_the_engines_numbers_and_their_exact_values() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    // past the preset's warm-up (200), where the statistics start
    h.state_mut()
        .advance(pdes_lab::sim::Budget::Until(pdes_lab::time::to_ticks(
            250.0,
        )));
    h.state_mut().step_once();
    h.run_steps(2);
    let x = *h.state().a.samples.last().unwrap();
    assert!(x.utilization > 0.3, "{x:?}");
    let u = pdes_lab::app::monitors::format(x.utilization);
    h.get_by_label(&u);
    let cfg = h
        .state()
        .a
        .config
        .get::<pdes_lab::models::torus::config::TorusConfig>()
        .unwrap()
        .clone();
    h.get_by_label(&format!(
        "exp. exact {}",
        pdes_lab::app::monitors::format(cfg.model.analytic_utilization())
    ));
    let events = h.state().a.engine().step_log().last().unwrap().events as f64;
    assert!(
        !h.query_all_by_label(&pdes_lab::app::monitors::format(events))
            .collect::<Vec<_>>()
            .is_empty()
    );
}

/// Before the warm-up ends the torus's statistics hold nothing: the monitors say "warm-up
/// to t = 200" instead of showing a utilization of 0, and show the numbers once past it.
#[test]
fn before_the_warm_up_the_monitors_say_so_instead_of_showing_zero() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.state_mut().step_once();
    h.run_steps(2);
    assert!(pdes_lab::time::to_units(h.state().a.now()) < 200.0);
    let notes = h.query_all_by_label("warm-up to t = 200").count();
    assert_eq!(notes, 2, "utilization and sojourn");
    h.state_mut()
        .advance(pdes_lab::sim::Budget::Until(pdes_lab::time::to_ticks(
            250.0,
        )));
    h.state_mut().step_once();
    h.run_steps(2);
    assert_eq!(h.query_all_by_label("warm-up to t = 200").count(), 0);
}

#[test]
fn same_sample_path_runs_window_beside_sequential_with_identical_results() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-16x16");
    h.state_mut().form.end_time = 40.0;
    // a warm-up inside the short run, so that the compared statistics are cut at it
    h.state_mut()
        .form
        .model
        .as_any_mut()
        .downcast_mut::<pdes_lab::panels::torus::form::TorusForm>()
        .expect("a torus form")
        .warmup = 10.0;
    h.get_by_label("Info").click();
    h.run_steps(2);
    h.get_by_label("Same sample path: window beside sequential")
        .click();
    h.run_steps(1);
    for _ in 0..600 {
        if !h.state().running {
            break;
        }
        h.run_steps(1);
    }
    let app = h.state_mut();
    assert_eq!(app.a.algorithm_label(), "window");
    let b = app.b.as_mut().expect("a B session");
    assert_eq!(b.algorithm_label(), "sequential");
    let rb = b.engine.report().unwrap();
    let ra = app.a.engine.report().unwrap();
    for k in ["events", "utilization", "mean_sojourn", "causality_errors"] {
        assert_eq!(ra.fields[k], rb.fields[k], "{k}");
    }
    // and the window says so
    h.run_steps(2);
    h.get_by_label_contains("the same statistics, bit for bit — one sample path");
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

#[test]
fn a_click_on_a_listed_causality_error_pauses_pins_and_selects_it() {
    if !gpu_available() {
        return;
    }
    let mut h = harness("sang2019-causality");
    // run (CPU engine, which lists its errors) until a few errors are listed
    h.state_mut().running = true;
    for _ in 0..600 {
        if h.state().violations().len() >= 3 {
            break;
        }
        h.state_mut().step_once();
    }
    let list = h.state().violations();
    assert!(list.len() >= 3, "{} errors", list.len());
    h.run_steps(2);
    // not the newest: the click, not "select the latest", must pick it
    let v = list[list.len() - 3];
    let cols = h.state().a.shape().1;
    let text = format!(
        "step {}: ({}, {}) from ({}, {}) token {}, t {:.3} < {:.3}",
        v.step,
        v.facility / cols,
        v.facility % cols,
        v.source / cols,
        v.source % cols,
        v.token,
        v.arrival,
        v.last_arrival
    );
    assert!(h.state().running);
    h.get_by_label(&text).click();
    h.run_steps(2);
    let app = h.state();
    assert!(!app.running, "selecting pauses");
    assert_eq!(app.selected_violation, Some(v));
    assert_eq!(app.pinned(), Some(v.facility), "and pins its facility");
    h.get_by_label("the selected causality error");
}

#[test]
fn the_guided_tour_walks_through_its_stops_and_sets_each_one_up() {
    use pdes_lab::app::tour::STOPS;
    if !gpu_available() {
        return;
    }
    let mut h = harness("teaching-diffusion");
    h.get_by_label("Info").click();
    h.run_steps(2);
    // the diffusion Info tab has no tour; the torus's has
    assert!(h.query_by_label("Guided tour").is_none());
    h.state_mut().load_preset("teaching-16x16");
    h.run_steps(2);
    h.get_by_label("Guided tour").click();
    h.run_steps(2);
    for (i, stop) in STOPS.iter().enumerate() {
        h.get_by_label_contains(stop.title);
        let app = h.state();
        assert_eq!(app.tour, Some(i));
        assert_eq!(app.tab, pdes_lab::app::Tab::Live, "stop {i}");
        let cfg = app
            .a
            .config
            .get::<pdes_lab::models::torus::config::TorusConfig>()
            .expect("every stop is on a torus")
            .clone();
        match i {
            0 | 5 => assert_eq!(cfg.run.d, 1.0),
            1 => assert_eq!(cfg.run.d, 4.0),
            2 => assert!(cfg.run.d == 8.0 && app.running),
            3 => {
                let b = app.b.as_ref().expect("A/B on");
                assert_eq!(
                    (app.a.algorithm_label(), b.algorithm_label()),
                    ("window".to_string(), "sequential".to_string())
                );
            }
            4 => assert!(app.pause_on_error && cfg.model.rows == 8),
            _ => unreachable!("six stops"),
        }
        if i + 1 < STOPS.len() {
            h.get_by_label("Next").click();
            h.run_steps(2);
        }
    }
    h.get_by_label("Back").click();
    h.run_steps(2);
    assert_eq!(h.state().tour, Some(STOPS.len() - 2));
    // Back from the same-sample-path stop leaves no B side behind
    h.state_mut().go_to_stop(3);
    h.run_steps(2);
    assert!(h.state().b.is_some());
    h.get_by_label("Back").click();
    h.run_steps(2);
    assert_eq!(h.state().tour, Some(2));
    assert!(h.state().b.is_none(), "stop 3 runs without A/B");
    h.get_by_label("Close the tour").click();
    h.run_steps(2);
    assert_eq!(h.state().tour, None);
    assert!(h.query_by_label("Close the tour").is_none());
}
