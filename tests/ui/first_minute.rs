//! What a student meets in the first minute (issue 56 §5): a preset opened by a typed path
//! where no file dialog can be shown, and a Step that says what it ran at any zoom.

use super::*;

#[test]
fn a_path_can_be_typed_in_the_presets_menu_and_opened() {
    if !gpu_available() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("pdes-typed-path-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mine.toml");
    let (_, text) = pdes_lab::preset::load_text("teaching-16x16").unwrap();
    std::fs::write(&file, text.replace("rows = 16", "rows = 12")).unwrap();
    let mut h = harness("teaching-16x16");
    h.get_by_label("Presets").click();
    h.run_steps(2);
    // clicking into the field keeps the menu open (it closed, with nowhere to type)
    h.get_by_role_and_label(Role::TextInput, "or a path:")
        .click();
    h.run_steps(2);
    let field = h.get_by_role_and_label(Role::TextInput, "or a path:");
    field.focus();
    field.set_text_value_accesskit(file.to_str().unwrap());
    h.run_steps(2);
    h.get_by_label("Open path").click();
    h.run_steps(3);
    assert_eq!(h.state().a.shape(), (12, 16));
}

#[test]
fn what_a_step_ran_is_said_whether_or_not_its_cells_are_large_enough_for_dots() {
    if !gpu_available() {
        return;
    }
    // PHOLD's 4,096 LPs at a laptop's size: cells too small for dots at the default zoom
    let cfg = pdes_lab::preset::config_with("teaching-phold", &[]).unwrap();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1366.0, 768.0))
        .wgpu_setup(pdes_lab::app::wgpu_setup())
        .build_eframe(move |cc| PdesApp::with_check(cc, cfg, false).unwrap());
    h.state_mut().reset();
    h.run_steps(2);
    h.state_mut().step_once();
    h.run_steps(3);
    let ran = h.state().just_ran.len();
    assert!(ran > 0);
    let said = h
        .query_by_label_contains("cells the last step ran")
        .is_some()
        || h.query_by_label_contains(&format!("the last step ran {ran} cells: zoom in"))
            .is_some();
    assert!(said, "nothing says what the step ran");
}

/// A bug in a frame (here injected) pauses the run, saves the class's work — the settings
/// as a preset that reopens the same run, the plotted series — says where in the window,
/// and the window goes on (issue 56 §2).
#[test]
fn a_bug_in_a_frame_pauses_the_run_and_saves_the_work() {
    if !gpu_available() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("pdes-rescue-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut h = harness("teaching-16x16");
    h.state_mut().rescue_into(dir.clone());
    h.state_mut().running = true;
    h.run_steps(30);
    let samples = h.state().a.samples.len();
    assert!(samples > 0, "no samples to save");
    h.state_mut().fail_next_frame();
    h.run_steps(2);
    let rescued = h
        .state()
        .rescued()
        .expect("the panic was not caught")
        .clone();
    assert!(
        rescued.reason.contains("a fault injected by a test"),
        "{}",
        rescued.reason
    );
    assert!(!h.state().running, "the run goes on after a bug");
    let saved = rescued.saved.expect("the work was not saved");
    assert!(saved.starts_with(&dir));
    // the settings reopen the same configuration
    let text = std::fs::read_to_string(saved.join("settings.toml")).unwrap();
    let back = pdes_lab::preset::Config::from_toml(&text, "settings.toml").unwrap();
    assert_eq!(back.to_toml(""), h.state().a.config.to_toml(""));
    // the series holds every sample taken before the bug (one row each, a header)
    let series = std::fs::read_to_string(saved.join("series.csv")).unwrap();
    assert!(series.lines().count() > samples, "{series}");
    assert!(h.query_by_label_contains("PDES Lab hit a bug").is_some());
    // the window goes on: a Step still steps
    let before = h.state().a.steps();
    h.state_mut().step_once();
    h.run_steps(3);
    assert!(h.state().a.steps() > before);
    let _ = std::fs::remove_dir_all(&dir);
}
