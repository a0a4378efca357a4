//! Frame-rate measurement of the real app (not a test of behaviour: it asserts nothing
//! about time). Ignored by default; run it on a real GPU with
//! `cargo test --release --test ui_perf -- --ignored --nocapture` (or the compiled test
//! binary, as bench/device.sh does). Size from PDES_PERF_SIDE (default 1024).
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pdes_lab::app::PdesApp;
use pdes_lab::models::torus::config::TorusConfig;
use std::time::Instant;

#[test]
#[ignore = "a benchmark: run on the GPU machine with --ignored"]
fn frame_rate_while_simulating() {
    let side: u32 = std::env::var("PDES_PERF_SIDE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024);
    let frames: usize = std::env::var("PDES_PERF_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let (_, text) = pdes_lab::preset::load_text("teaching-16x16").unwrap();
    let mut cfg = TorusConfig::from_toml(&text, "perf").unwrap();
    cfg.model.rows = side;
    cfg.model.cols = side;
    cfg.run.engine = pdes_lab::preset::EngineKind::Gpu;
    cfg.run.end_time = 1e9;
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 820.0))
        .wgpu_setup(pdes_lab::app::wgpu_setup())
        .build_eframe(move |cc| PdesApp::new(cc, pdes_lab::preset::Config::new(cfg)).unwrap());
    h.state_mut().running = true;
    h.state_mut().sim_rate = 60.0; // one window of d = 1 per frame at 60 frames/s
    for _ in 0..10 {
        h.step();
        h.render().unwrap();
    }
    let steps0 = h.state().a.steps();
    let t = Instant::now();
    for _ in 0..frames {
        h.step(); // logic (advances the simulation) + ui
        h.render().unwrap(); // draws the whole window with wgpu, heatmap callback included
    }
    let secs = t.elapsed().as_secs_f64();
    let steps = h.state().a.steps() - steps0;
    println!(
        "ui_perf side={side} engine={} frames={frames} wall={secs:.3}s frames_per_s={:.1} ms_per_frame={:.2} sim_steps={steps} steps_per_frame={:.2} adapter={}",
        h.state().a.runs_on(),
        frames as f64 / secs,
        secs * 1000.0 / frames as f64,
        steps as f64 / frames as f64,
        pdes_lab::gpu::Gpu::shared()
            .map(|g| g.describe())
            .unwrap_or_default()
    );
    assert!(
        steps > 0,
        "the simulation advanced while the frames were drawn"
    );
}

/// Issue 56 §5: the Sweep view's frame time with a finished sweep of 24 runs drawn
/// (8 values of d × 3 seeds of the teaching torus), frame by frame as a hovering user
/// makes them. Prints the median and the worst; asserts only that the sweep finished.
#[test]
#[ignore = "a benchmark: run with --ignored --nocapture"]
fn sweep_view_frame_time() {
    let (origin, text) = pdes_lab::preset::load_text("teaching-16x16").unwrap();
    let cfg = pdes_lab::preset::Config::from_toml(&text, &origin).unwrap();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1366.0, 768.0))
        .wgpu_setup(pdes_lab::app::wgpu_setup())
        .build_eframe(move |cc| PdesApp::with_check(cc, cfg, false).unwrap());
    h.get_by_label("Sweep").click();
    {
        let app = h.state_mut();
        app.sweep.from = 0.25;
        app.sweep.to = 4.0;
        app.sweep.points = 8;
        app.sweep.seeds = 3;
        app.sweep.log = true;
    }
    h.run_steps(2);
    h.get_by_label("Run sweep").click();
    h.run_steps(2);
    while h.state().sweep.running() {
        h.run_steps(1);
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.run_steps(2);
    assert_eq!(h.state().sweep.result.as_ref().unwrap().done(), 24);
    let mut ms = Vec::new();
    for i in 0..30 {
        let t = Instant::now();
        h.hover_at(egui::pos2(300.0 + 20.0 * i as f32, 400.0));
        h.step();
        h.render().unwrap();
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    ms.sort_by(f64::total_cmp);
    println!(
        "sweep view, 24 runs: median {:.1} ms, worst {:.1} ms a frame ({})",
        ms[ms.len() / 2],
        ms[ms.len() - 1],
        pdes_lab::gpu::Gpu::shared()
            .map(|g| g.describe())
            .unwrap_or_default()
    );
}
