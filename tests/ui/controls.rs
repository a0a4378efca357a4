//! The left panel's controls: d (slider and typed), run, pause, step, keys, presets, A/B,
//! pins, and refusals of bad values.

use super::*;

#[test]
fn moving_the_d_slider_changes_the_engines_d() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    assert_eq!(torus(&h.state().a.config).run.d, 1.0);
    h.get_by_role_and_label(Role::Slider, "d (log)")
        .set_value_accesskit(0.5);
    h.run_steps(2);
    assert_eq!(
        h.state_mut().form.model_mut::<TorusForm>().unwrap().run.d,
        0.5
    );
    assert_eq!(
        torus(&h.state().a.config).run.d,
        0.5,
        "the session was rebuilt with the new d"
    );
    assert!(h.state().form_error.is_none());
}

#[test]
fn run_pause_and_step_buttons_drive_the_simulation() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
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
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(1);
    assert_eq!(h.state().a.steps(), 1);
    h.key_press(egui::Key::Space);
    h.run_steps(1);
    assert!(h.state().running);
}

#[test]
fn a_bad_value_is_refused_with_its_reason() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    // exponential service cannot run the window algorithm: refused, explained, old run kept
    h.get_by_label("exponential").click();
    h.run_steps(2);
    let err = h.state().form_error.clone().expect("refused");
    assert!(err.contains("shifted"), "{err}");
    assert_eq!(
        torus(&h.state().a.config).model.service,
        pdes_lab::models::torus::ServiceKind::Shifted
    );
    h.get_by_label(err.as_str()); // the reason is on screen
    // choosing an algorithm that allows it clears the error
    h.get_by_label("interval / original").click();
    h.run_steps(2);
    assert!(h.state().form_error.is_none());
    assert_eq!(
        torus(&h.state().a.config).run.algorithm,
        pdes_lab::models::queueing::Algorithm::Interval
    );
}

#[test]
fn loading_a_preset_replaces_the_model() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    h.get_by_label("Presets").click();
    h.run_steps(3);
    h.get_by_label("sang2019-causality").click();
    h.run_steps(2);
    let cfg = torus(&h.state().a.config);
    assert_eq!((cfg.model.rows, cfg.model.cols, cfg.run.d), (64, 64, 0.5));
    assert_eq!(h.state().form.algorithm.name, "interval-original");
}

#[test]
fn ab_mode_runs_two_algorithms_on_the_same_seed() {
    let Some(mut h) = app_on("sang2019-causality") else {
        return;
    };
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
    assert_eq!(torus(&b.config).run.seed, torus(&app.a.config).run.seed);
    assert_eq!(
        torus(&b.config).run.timestamps,
        pdes_lab::models::queueing::Timestamps::Boundary
    );
    assert_eq!(app.a.steps(), 40);
    assert_eq!(b.steps(), 40);
    // both plotted: one sample per step_once plus the initial one
    assert_eq!(app.a.samples.len(), 41);
    assert_eq!(b.samples.len(), 41);
}

#[test]
fn a_click_on_the_heatmap_pins_a_facility_in_the_inspector() {
    let Some(mut h) = app_on("sang2019-causality") else {
        return;
    };
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
fn shrinking_the_torus_unpins_a_facility_it_no_longer_has() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
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
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    for (typed, reason) in [
        (
            "abc",
            "run.d must be a number from 0 to 1,099,511,627,776 (0 only for sequential, at least one tick otherwise; below model.mean_service with shifted service); got \"abc\"",
        ),
        (
            "-1",
            "run.d must be a number from 0 to 1,099,511,627,776 (0 only for sequential, at least one tick otherwise; below model.mean_service with shifted service); got -1",
        ),
        (
            "0",
            "run.d must be a number of at least one tick (2^-20 ≈ 0.00000095) for run.algorithm = \"window\"; got 0",
        ),
    ] {
        let field = h.get_by_role_and_label(Role::TextInput, "d");
        field.focus();
        field.set_text_value_accesskit(typed);
        h.run_steps(1);
        h.key_press(egui::Key::Enter);
        h.run_steps(2);
        let err = h.state().form_error.clone().unwrap_or_default();
        assert_eq!(err, reason, "{typed}");
        // the running session keeps its valid d
        assert_eq!(torus(&h.state().a.config).run.d, 1.0, "{typed}");
    }
    let field = h.get_by_role_and_label(Role::TextInput, "d");
    field.focus();
    field.set_text_value_accesskit("0.5");
    h.run_steps(1);
    h.key_press(egui::Key::Enter);
    h.run_steps(2);
    assert!(h.state().form_error.is_none());
    assert_eq!(torus(&h.state().a.config).run.d, 0.5);
}

#[test]
fn switching_a_b_on_fits_the_a_heatmap_to_its_new_half_of_the_window() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
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
fn interval_original_with_shifted_service_is_warned_about_not_refused() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
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
    let mut h = harness("teaching-16x16");
    h.get_by_label("compare with a second algorithm").click();
    h.run_steps(2);
    h.get_by_label("paper 000's comparison").click();
    h.run_steps(2);
    let app = h.state();
    let a = torus(&app.a.config).clone();
    let b = torus(&app.b.as_ref().unwrap().config).clone();
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

/// Issue 33: a pinned cell keeps its row and column when the grid's columns change (as an
/// index, (1, 1) of 8×16 became (2, 1) at 8 columns).
#[test]
fn a_pinned_cell_keeps_its_place_when_the_columns_change() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    {
        let form = h.state_mut().form.model_mut::<TorusForm>().unwrap();
        form.rows = 8;
        form.cols = 16;
    }
    h.state_mut().apply_form();
    h.state_mut().pin(16 + 1);
    h.run_steps(1);
    h.get_by_label_contains("Facility (1, 1)");
    h.state_mut().form.model_mut::<TorusForm>().unwrap().cols = 8;
    h.state_mut().apply_form();
    h.run_steps(2);
    assert_eq!(h.state().pinned(), Some(8 + 1));
    h.get_by_label_contains("Facility (1, 1)");
}

/// Issue 33: switching to another model and back finds the first model's settings as they
/// were left, not its teaching preset again.
#[test]
fn switching_model_and_back_keeps_the_settings() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    h.state_mut().form.model_mut::<TorusForm>().unwrap().rows = 40;
    h.state_mut().apply_form();
    h.run_steps(1);
    pick_model(&mut h, "diffusion grid");
    h.run_steps(2);
    assert_eq!(h.state().form.kind(), "diffusion");
    pick_model(&mut h, "torus network");
    h.run_steps(2);
    assert_eq!(h.state().form.kind(), "torus");
    assert_eq!(h.state().a.shape(), (40, 16));
}

/// Issue 33: a value typed out of range is refused with the key's range in words, not
/// clamped to the nearest valid one (rows = 1e9 silently became 16384 and a black map).
#[test]
fn an_out_of_range_size_typed_is_refused_not_clamped() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    let rows = h
        .get_all_by_role(Role::SpinButton)
        .find(|n| n.value().as_deref() == Some("16"))
        .expect("the rows field");
    rows.set_value_accesskit(1e9);
    h.run_steps(3);
    let app = h.state();
    assert_eq!(
        app.form_error.as_deref(),
        Some("model.rows must be a whole number from 1 to 16,384; got 1000000000")
    );
    assert_eq!(
        app.a.shape(),
        (16, 16),
        "the running session keeps its valid size"
    );
}

#[test]
fn copy_link_gives_the_link_and_the_command_of_the_form() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    h.get_by_role_and_label(Role::Slider, "d (log)")
        .set_value_accesskit(0.5);
    h.run_steps(2);
    h.get_by_role_and_label(Role::Button, "Copy link").click();
    h.run_steps(1);
    let message = h.state().message.clone().unwrap_or_default();
    assert!(
        message.contains("?preset=teaching-16x16&run.d=0.5"),
        "{message}"
    );
    assert!(
        message.contains("pdes-lab run teaching-16x16 --set run.d=0.5"),
        "{message}"
    );
    // the link opens what the window runs
    let link = h.state().link().unwrap();
    assert_eq!(link.config().unwrap(), h.state().a.config);
}

#[test]
fn a_typed_path_opens_a_preset_where_no_file_dialog_can() {
    if !gpu_available() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("pdes-typed-path-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mine.toml");
    let (_, text) = pdes_lab::preset::load_text("teaching-16x16").unwrap();
    std::fs::write(&file, text.replace("rows = 16", "rows = 12")).unwrap();
    let mut h = harness("teaching-16x16");
    h.state_mut().preset_path = file.display().to_string();
    h.get_by_label("Presets").click();
    h.run_steps(2);
    h.get_by_label("Open path").click();
    h.run_steps(2);
    assert_eq!(h.state().a.shape(), (12, 16), "{:?}", h.state().message);
    let message = h.state().message.clone().unwrap_or_default();
    assert!(message.contains("mine.toml"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 33: at 800×600 the heatmap shrank to nothing and did not come back at 1280×820.
/// At the common laptop sizes the heatmap keeps a useful size beside the monitors and
/// plots; at 800×600 it keeps a third of the window's height (issue 56 §5: it had 125 px of
/// it); back at 1280×820 it is as large as it was before the window shrank.
#[test]
fn the_heatmap_holds_up_at_laptop_sizes_and_comes_back_after_a_small_window() {
    let Some(mut h) = app_on("teaching-16x16") else {
        return;
    };
    h.state_mut()
        .advance(pdes_lab::sim::Budget::Until(pdes_lab::time::to_ticks(
            300.0,
        )));
    h.state_mut().step_once();
    h.run_steps(3);
    let heatmap = |h: &Harness<'static, PdesApp>| h.state().heatmap_view(0).unwrap().size;
    let large = heatmap(&h);
    for (size, least) in [
        ([1366.0, 768.0], 250.0),
        ([1280.0, 720.0], 190.0),
        ([800.0, 600.0], 200.0),
    ] {
        h.set_size(egui::vec2(size[0], size[1]));
        h.run_steps(4);
        let got = heatmap(&h);
        assert!(
            got[1] >= least && got[0] >= least,
            "{size:?}: heatmap {got:?}"
        );
        // the monitors are still there, each on the screen
        let utilization = h.state().a.samples.last().unwrap().utilization;
        h.get_by_label(&pdes_lab::app::monitors::format(utilization));
    }
    h.set_size(egui::vec2(1280.0, 820.0));
    h.run_steps(4);
    let back = heatmap(&h);
    assert!(
        back[1] >= large[1] - 1.0,
        "{large:?} before, {back:?} after"
    );
}
