//! The Sweep view, and the README's screenshots (ignored tests, run by hand).

use super::*;

#[test]
fn a_sweep_of_a_tiny_grid_completes_plots_its_points_and_a_pick_sets_d() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
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
    let d = torus(&h.state().a.config).run.d;
    assert_eq!(d, pick);
}

/// Not a check: renders the sweep view after a d sweep of the teaching torus into
/// `assets/screenshot-sweep.png` for the README (`cargo test --release --test ui
/// screenshot_of_the_sweep_view -- --ignored`).
#[test]
#[ignore]
fn screenshot_of_the_sweep_view() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
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

/// Not a check: renders tour stop 1 six steps in and tour stop 3 run to its end into
/// `assets/screenshot-tour.png` and `assets/screenshot-bias.png` for the README (`cargo
/// test --release --test ui screenshots_of_the_tour -- --ignored`).
#[test]
#[ignore]
fn screenshots_of_the_tour() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
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

/// Not a check: renders the Fit view after fitting k = 1..6 to the shipped sample into
/// `assets/screenshot-fit.png` for the README (`cargo test --release --test ui --
/// --ignored screenshot_of_the_fit_view`).
#[test]
#[ignore = "writes the README's screenshot"]
fn screenshot_of_the_fit_view() {
    let mut h = harness("teaching-16x16");
    h.get_by_label("Fit").click();
    h.run_steps(2);
    h.state_mut().fit.max_components = 6;
    h.get_by_label("Fit mixtures").click();
    h.run_steps(2);
    while h.state().fit.running() {
        h.run_steps(3);
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    h.run_steps(4);
    save_screenshot(&mut h, "screenshot-fit.png");
}

/// Not a check: renders the torus's Info page and the causality walkthrough stopped at its
/// first error into `assets/screenshot-info.png` and `assets/screenshot-causality.png` for
/// the README (`cargo test --release --test ui -- --ignored screenshots_of_the_lesson`).
#[test]
#[ignore = "writes the README's screenshots"]
fn screenshots_of_the_lesson() {
    let mut h = harness("teaching-16x16");
    h.get_by_label("Info").click();
    h.run_steps(3);
    save_screenshot(&mut h, "screenshot-info.png");
    h.get_by_label("Walk through a causality error").click();
    h.run_steps(1);
    for _ in 0..400 {
        if !h.state().running {
            break;
        }
        h.run_steps(1);
    }
    h.run_steps(3);
    save_screenshot(&mut h, "screenshot-causality.png");
}

/// Not a check: the teaching torus at d = 1 and then at d = 8, the first run kept as a
/// ghost behind the second, into `assets/screenshot-ghosts.png` for the README
/// (`cargo test --release --test ui -- --ignored screenshot_of_the_ghosts`).
#[test]
#[ignore = "writes the README's screenshots"]
fn screenshot_of_the_ghosts() {
    let mut h = harness("teaching-16x16");
    for _ in 0..300 {
        h.state_mut().step_once();
    }
    h.state_mut().form.model_mut::<TorusForm>().unwrap().run.d = 8.0;
    h.state_mut().apply_form();
    for _ in 0..60 {
        h.state_mut().step_once();
    }
    h.run_steps(4);
    save_screenshot(&mut h, "screenshot-ghosts.png");
}

/// "Recommend d" on the clinic (window, exact up to its shortest service, 0.5): the advice
/// in words on the screen, the largest valid d recommended, and its button sets d in the
/// live run.
#[test]
fn recommend_d_advises_the_clinic_and_its_button_sets_d() {
    let mut h = harness("clinic");
    // short runs: the advisor runs 1 + 2 + 8 × 2 of them
    let live = pdes_lab::preset::config_with(
        "clinic",
        &["run.end_time=300", "run.warmup=30", "run.d=0.1"],
    )
    .unwrap();
    h.state_mut()
        .load_preset_text("clinic, shorter", &live.to_toml(""));
    h.run_steps(2);
    h.get_by_label("Sweep").click();
    h.state_mut().sweep.advisor.seeds = 2;
    h.run_steps(2);
    h.get_by_label("Recommend d").click();
    let started = std::time::Instant::now();
    loop {
        h.run_steps(3);
        if !h.state().sweep.advisor.running() {
            break;
        }
        assert!(
            started.elapsed().as_secs() < 120,
            "the advisor did not finish"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    h.run_steps(2);
    let advice = h.state().sweep.advisor.advice.clone().unwrap().unwrap();
    assert_eq!(advice.recommended_d, Some(0.5), "{}", advice.advice);
    h.get_by_label_contains("d = 0.5: ");
    h.get_by_label("Use d = 0.5").click();
    h.run_steps(2);
    let d = h
        .state()
        .a
        .config
        .get::<pdes_lab::models::network::config::NetworkConfig>()
        .unwrap()
        .run
        .d;
    assert_eq!(d, 0.5);
}

/// Not a check: renders the clinic with exponential service as a graph, run past its
/// warm-up, the pointer on triage, into `assets/screenshot-network.png` for the README
/// (`cargo test --release --test ui screenshot_of_the_network -- --ignored`).
#[test]
#[ignore]
fn screenshot_of_the_network() {
    let Some(mut h) = app_on("clinic-exponential") else {
        return;
    };
    // run in frames, as the window does, so that the monitors and plots take their samples
    h.state_mut().sim_rate = 1000.0;
    h.state_mut().running = true;
    let started = std::time::Instant::now();
    while h.state().a.now() < pdes_lab::time::to_ticks(3000.0) && started.elapsed().as_secs() < 120
    {
        h.run_steps(10);
    }
    h.state_mut().running = false;
    h.run_steps(3);
    let rect = h.get_by_label("network graph").rect();
    let inner = rect.shrink(28.0);
    h.hover_at(egui::pos2(
        inner.min.x + inner.width() / 6.0,
        inner.center().y,
    ));
    h.run_steps(60);
    save_screenshot(&mut h, "screenshot-network.png");
}
