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
