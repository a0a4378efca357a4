//! The app driven through egui_kittest with its wgpu renderer (Mesa lavapipe in CI): the
//! real `PdesApp`, its real engines on the shared device, clicks on its real widgets.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

pub(crate) use egui::accesskit::Role;
pub(crate) use egui_kittest::Harness;
pub(crate) use egui_kittest::kittest::Queryable;
pub(crate) use pdes_lab::app::PdesApp;
pub(crate) use pdes_lab::panels::torus::form::TorusForm;
pub(crate) use pdes_lab::preset::Config;

/// Whether a GPU adapter is there; without one a GPU test skips, unless PDES_REQUIRE_GPU=1
/// makes that a failure.
pub(crate) fn gpu_available() -> bool {
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

/// A built-in preset, validated.
pub(crate) fn preset(name: &str) -> Config {
    let (origin, text) = pdes_lab::preset::load_text(name).unwrap();
    Config::from_toml(&text, &origin).unwrap()
}

/// Picks the model labelled `label` in the Model menu, as a user does: the menu, then the
/// model.
pub(crate) fn pick_model(h: &mut Harness<'static, PdesApp>, label: &str) {
    h.get_by_role(egui::accesskit::Role::ComboBox).click();
    h.run_steps(2);
    h.get_by_label(label).click();
}

/// The app on `preset`, paused (so that every test is deterministic).
pub(crate) fn harness(preset_name: &str) -> Harness<'static, PdesApp> {
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

/// The torus configuration of a session's `config` (the presets these tests open are tori).
pub(crate) fn torus(config: &Config) -> &pdes_lab::models::torus::config::TorusConfig {
    config.get().expect("a torus session")
}

/// [`harness`] where a GPU adapter is there; None where a GPU test skips
/// ([`gpu_available`]).
pub(crate) fn app_on(preset_name: &str) -> Option<Harness<'static, PdesApp>> {
    gpu_available().then(|| harness(preset_name))
}

/// Renders the harness's window into `assets/NAME` (the README's screenshots).
pub(crate) fn save_screenshot(h: &mut Harness<'static, PdesApp>, name: &str) {
    h.render()
        .unwrap()
        .save(format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR")))
        .unwrap();
}

mod controls;
mod first_minute;
mod gpu;
mod lesson;
mod models;
mod screen_equals_run;
mod sweep;
mod traces;
