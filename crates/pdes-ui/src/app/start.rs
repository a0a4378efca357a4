//! How the app starts: eframe's wgpu set-up, the native window, the app built on a
//! configuration (its device, its start-up check, its first session, the default preset
//! where the configuration cannot open).

use super::*;

/// The start-up self-check the app makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Check {
    /// None (snapshot tests).
    Off,
    /// A fresh check, whatever was found before.
    Fresh,
    /// A check this build passed on this adapter and driver before is trusted; otherwise a
    /// fresh one, remembered.
    Remembered,
}

/// The wgpu set-up PDES Lab asks eframe for: Vulkan/Metal/DX12 (GL has no compute on many
/// drivers) and the adapter's own limits, which the GPU engine needs (it binds more than
/// the 8 storage buffers of WebGPU's defaults).
pub fn wgpu_setup() -> eframe::egui_wgpu::WgpuSetup {
    let mut create = eframe::egui_wgpu::WgpuSetupCreateNew::without_display_handle();
    create.instance_descriptor.backends = wgpu::Backends::from_env()
        .unwrap_or(wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12);
    create.device_descriptor = Arc::new(|adapter: &wgpu::Adapter| wgpu::DeviceDescriptor {
        label: Some("pdes-lab"),
        required_features: adapter.features() & pdes_gpu::context::WANTED_FEATURES,
        required_limits: adapter.limits(),
        ..Default::default()
    });
    eframe::egui_wgpu::WgpuSetup::CreateNew(create)
}

#[cfg(not(target_arch = "wasm32"))]
/// Opens the window on `config` (blocks until it is closed): with wgpu when an adapter with
/// compute exists, else with OpenGL and the CPU engines.
pub fn run_native(config: Config, note: Option<String>) -> Result<(), String> {
    let options = |renderer| eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("PDES Lab")
            .with_inner_size([1280.0, 820.0])
            .with_drag_and_drop(true),
        renderer,
        wgpu_options: eframe::egui_wgpu::WgpuConfiguration {
            wgpu_setup: wgpu_setup(),
            ..Default::default()
        },
        ..Default::default()
    };
    let wgpu_ok = pdes_gpu::Gpu::shared().is_ok();
    let renderer = if wgpu_ok {
        eframe::Renderer::Wgpu
    } else {
        eframe::Renderer::Glow
    };
    let opened = |cc: &eframe::CreationContext<'_>, cfg: Config, note: Option<String>| {
        let mut app = PdesApp::new(cc, cfg)?;
        if note.is_some() {
            app.message = note;
        }
        Ok::<_, String>(app)
    };
    let (cfg, first_note) = (config.clone(), note.clone());
    let first = eframe::run_native(
        "PDES Lab",
        options(renderer),
        Box::new(move |cc| Ok(Box::new(opened(cc, cfg, first_note)?))),
    );
    match first {
        Err(e) if renderer == eframe::Renderer::Wgpu => {
            pdes_runs::output::to_stderr(&format!(
                "pdes-lab: wgpu could not open the window ({e}); trying OpenGL with the CPU engines"
            ));
            eframe::run_native(
                "PDES Lab",
                options(eframe::Renderer::Glow),
                Box::new(move |cc| Ok(Box::new(opened(cc, config, note)?))),
            )
            .map_err(|e| format!("could not open the window: {e}"))
        }
        r => r.map_err(|e| format!("could not open the window: {e}")),
    }
}

/// egui's small text is 9 px: the sentences a lesson depends on (why outlined events run
/// in parallel, "bit for bit — one sample path", the monitors' exact values) were the
/// smallest grey text on screen. Small text is 12 px here, everywhere at once.
fn readable_small_text(ctx: &egui::Context) {
    ctx.all_styles_mut(|style| {
        style.text_styles.insert(
            egui::TextStyle::Small,
            egui::FontId::proportional(crate::kit::SMALL_TEXT_PX),
        );
    });
}

impl PdesApp {
    /// Builds the app on `config`, sharing eframe's wgpu device with the engines, and starts
    /// the GPU self-check in the background. It fails (with the reason) only when no session
    /// can be opened at all: neither `config`, nor it on the CPU, nor the default preset.
    pub fn new(cc: &eframe::CreationContext<'_>, config: Config) -> Result<Self, String> {
        Self::build(cc, config, Check::Remembered, None, None)
    }

    /// As [`PdesApp::new`]; `verify` false skips the start-up self-check (snapshot tests,
    /// whose status bar must not depend on when the check finishes), true makes it afresh
    /// whatever the user's memory of earlier checks holds.
    pub fn with_check(
        cc: &eframe::CreationContext<'_>,
        config: Config,
        verify: bool,
    ) -> Result<Self, String> {
        let check = if verify { Check::Fresh } else { Check::Off };
        Self::build(cc, config, check, None, None)
    }

    /// The app in a browser tab: `device` is the page's WebGPU device for the engines (its
    /// readbacks deferred; the window draws with WebGL2), or the reason there is none, which
    /// the status bar gives while everything runs on the CPU; `opened`, the session the page
    /// opened on it before the window (its shaders compiled: see `web::start`).
    pub fn in_page(
        cc: &eframe::CreationContext<'_>,
        config: Config,
        device: Result<Arc<Gpu>, String>,
        opened: Option<Result<Session, pdes_core::sim::SimError>>,
    ) -> Result<Self, String> {
        Self::build(cc, config, Check::Remembered, Some(device), opened)
    }

    fn build(
        cc: &eframe::CreationContext<'_>,
        config: Config,
        check: Check,
        page_device: Option<Result<Arc<Gpu>, String>>,
        opened: Option<Result<Session, pdes_core::sim::SimError>>,
    ) -> Result<Self, String> {
        readable_small_text(&cc.egui_ctx);
        rescue::install_hook();
        let (gpu, gpu_note) = match (cc.wgpu_render_state.as_ref(), page_device) {
            (Some(rs), _) => {
                heatmap::install(rs);
                let gpu =
                    Gpu::from_parts(rs.adapter.get_info(), rs.device.clone(), rs.queue.clone());
                let note = gpu.describe();
                (Some(Arc::new(gpu)), note)
            }
            (None, Some(Ok(page))) => {
                let note = page.describe();
                (Some(page), note)
            }
            (None, Some(Err(why))) => (None, format!("{why}: the engines run on the CPU")),
            (None, None) => (
                None,
                "no GPU compute device: the simulation runs on the CPU".to_string(),
            ),
        };
        let adapter = cc.wgpu_render_state.as_ref().map(|rs| rs.adapter.clone());
        let memory = match check {
            Check::Remembered => pdes_runs::trust::Memory::users(),
            Check::Off | Check::Fresh => None,
        };
        let gpu_check = match &gpu {
            Some(g) if check != Check::Off => {
                gpu_check::GpuCheck::start(g.clone(), adapter, memory)
            }
            _ => gpu_check::GpuCheck::NotRun,
        };
        // the session the page opened before the window (its shaders compiled), or now
        let session = opened.unwrap_or_else(|| open_session(config.clone(), gpu.clone()));
        let (a, message) = match session {
            Ok(s) => (s, None),
            Err(e) => Self::fallback_session(&config, gpu.clone(), e.to_string())?,
        };
        // the form shows what runs: after a fallback, not the configuration refused (a page
        // showed 16,777,216 replications in the form while the torus ran, issue 56 §4)
        let config = a.config.clone();
        let form = Form::from_config(&config, crate::panels::of(&config));
        let mode = Mode::of(&a)[0];
        Ok(Self {
            gpu,
            gpu_note,
            gpu_check,
            b_algorithm: form::b_default(form.kind(), form.algorithm),
            b_sets: String::new(),
            form,
            form_error: None,
            a,
            b: None,
            followed: None,
            just_ran: Vec::new(),
            // A new user should see the network move at once.
            running: true,
            sim_rate: DEFAULT_SIM_RATE,
            pace: pace::Pace::default(),
            mode,
            views: [None, None],
            pinned: None,
            forms_left: std::collections::HashMap::new(),
            message,
            tab: Tab::Live,
            pause_on_error: false,
            selected_violation: None,
            tour: None,
            opening_preset: None,
            preset_name: preset::builtin_base(&config).to_string(),
            preset_path: String::new(),
            sweep: sweep_view::SweepView::default(),
            fit: fit_view::FitView::new(),
            frame: 0,
            last_limited_step: None,
            #[cfg(target_arch = "wasm32")]
            stored_settings: String::new(),
            summary_due: false,
            summary: None,
            plots_rect: None,
            plots_shot: Default::default(),
            rescued: None,
            rescue_folder: rescue::default_folder(),
            fail_next_frame: false,
            last_frame: Instant::now(),
            frame_ms: 0.0,
            events_per_sec: 0.0,
            last_events: 0,
        })
    }

    /// A session for a configuration whose own session failed: the same on the CPU, or, if
    /// that fails too (too large for the CPU), the default preset; the message says why.
    fn fallback_session(
        config: &Config,
        gpu: Option<Arc<Gpu>>,
        why: String,
    ) -> Result<(Session, Option<String>), String> {
        let mut cpu = config.clone();
        cpu.set_engine(preset::EngineKind::Cpu);
        match open_session(cpu, gpu.clone()) {
            Ok(s) => Ok((s, Some(why))),
            Err(e) => {
                // next: the same model's preset at its own values (the link's assignment
                // that could not be held refused alone, its preset kept)
                let name = preset::builtin_base(config);
                if let Ok(own) = preset::config_with(name, &[])
                    && own.kind() == config.kind()
                    && let Ok(s) = open_session(own, gpu.clone())
                {
                    return Ok((
                        s,
                        Some(format!("{e}; opened {name} at its own values instead")),
                    ));
                }
                // the last resort: if even the built-in default cannot run, the window says
                // why instead of opening on nothing
                let default = preset::load_text(preset::default_preset())
                    .and_then(|(origin, text)| Config::from_toml(&text, &origin))
                    .map_err(|d| format!("{e}; and the default preset: {d}"))?;
                let s = open_session(default, gpu)
                    .map_err(|d| format!("{e}; and the default preset: {d}"))?;
                Ok((s, Some(format!("{e}; opened the default preset instead"))))
            }
        }
    }
}
