//! The GPU engines in the window: the heatmap fed without a readback and equal to the CPU's,
//! the start-up check and its failure, and sizes refused or moved to the CPU.

use super::*;

#[test]
fn the_gpu_engine_feeds_the_heatmap_without_a_readback_and_matches_the_cpu() {
    let Some(mut h) = app_on("sang2019-causality") else {
        return;
    };
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
fn a_torus_too_large_for_the_cpu_is_refused_not_allocated() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    let form = h.state_mut().form.model_mut::<TorusForm>().unwrap();
    form.rows = 16384;
    form.cols = 16384;
    h.state_mut().form.gpu = false;
    assert!(!h.state_mut().apply_form());
    h.run_steps(1);
    let err = h.state().form_error.clone().unwrap();
    assert!(
        err.contains("on the CPU, more than the limit of 8 GiB"),
        "{err}"
    );
    assert_eq!(
        torus(&h.state().a.config).model.rows,
        16,
        "the running session is kept"
    );
}

#[test]
fn diffusion_on_the_gpu_draws_the_same_temperatures_as_the_cpu() {
    let Some(mut h) = app_on("teaching-diffusion") else {
        return;
    };
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
fn the_start_up_check_verifies_the_gpu_in_the_background_through_resizes_and_says_so() {
    if !gpu_available() {
        return;
    }
    let cfg = preset("teaching-16x16");
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 820.0))
        .wgpu_setup(pdes_lab::app::wgpu_setup())
        .build_eframe(move |cc| PdesApp::with_check(cc, cfg, true).unwrap());
    h.run_steps(1);
    assert!(
        h.state().gpu_check.running(),
        "the check runs off the UI thread"
    );
    // while it runs, the window is resized between a laptop's and a lecture hall's sizes
    // and frames go on (the resize that panicked: issue 56 §2), with a Step each frame
    let started = std::time::Instant::now();
    let mut frames = 0u32;
    while h.state().gpu_check.running() && started.elapsed().as_secs() < 300 {
        let size = if frames.is_multiple_of(2) {
            (800.0, 600.0)
        } else {
            (1366.0, 768.0)
        };
        h.set_size(egui::vec2(size.0, size.1));
        h.state_mut().step_once();
        h.run_steps(1);
        frames += 1;
    }
    assert!(frames > 0, "the check was over before the first frame");
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
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
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
        msg.contains("limit") && msg.contains("opened teaching-16x16 at its own values"),
        "{msg}"
    );
    assert_eq!(h.state().a.shape(), (16, 16));
    // the form shows what runs, not the refused 9000 × 9000 (issue 56 §4)
    let torus = h.state_mut().form.model_mut::<TorusForm>().unwrap();
    assert_eq!((torus.rows, torus.cols), (16, 16));
}

#[test]
fn the_devs_benchmark_on_the_gpu_draws_the_same_digits_as_the_cpu() {
    let Some(mut h) = app_on("teaching-devs-benchmark") else {
        return;
    };
    assert_eq!(h.state().mode, pdes_lab::app::heatmap::Mode::Steadied);
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
fn a_check_this_build_passed_before_is_shown_at_once_and_a_failed_one_is_made_again() {
    use pdes_lab::app::gpu_check::GpuCheck;
    use pdes_runs::trust::Memory;
    if !gpu_available() {
        return;
    }
    let gpu = pdes_lab::gpu::Gpu::shared().unwrap();
    let dir = std::env::temp_dir().join(format!("pdes-trust-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let memory = Memory::in_folder(dir);
    assert_eq!(memory.recall(&gpu.info), None);
    // passed before on this adapter, driver and build: trusted at once
    memory.remember(&gpu.info, 57, 0);
    let check = GpuCheck::start(gpu.clone(), None, Some(memory.clone()));
    assert!(!check.running());
    let (text, alarm, _) = check.status().unwrap();
    let today = pdes_runs::trust::today();
    assert_eq!(
        text,
        format!("GPU = CPU: 57 checks passed (checked {today})")
    );
    assert!(!alarm);
    // another driver is another key: not trusted
    let mut other = gpu.info.clone();
    other.driver_info.push_str(" (updated)");
    assert_eq!(memory.recall(&other), None);
    // a failed check is not trusted: it is made again
    memory.remember(&gpu.info, 50, 7);
    assert_eq!(GpuCheck::trusted(Some(&memory), &gpu.info), None);
}
