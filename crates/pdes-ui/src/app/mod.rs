//! The PDES Lab window: controls on the left, the heatmap (a wgpu render pass reading the
//! simulation's GPU buffers) in the middle, live plots below, a status bar.
//!
//! The simulation runs on eframe's own wgpu device: `App::logic` advances it once per
//! frame by a budget of simulated time, then `App::ui` draws.

mod central;
mod controls;
pub mod fit_view;
pub mod follow;
pub mod gpu_check;
pub mod info_view;
mod menu;
mod pace;
mod sweep_plots;
pub mod sweep_view;
pub mod tour;
pub mod violations;
#[cfg(target_arch = "wasm32")]
pub mod web;

// the kit's modules under the window's name, as the code and the tests used them before the
// kit was its own module
pub use crate::kit::{form, heatmap, monitors, plots, session};
use eframe::egui;
use form::{AlgorithmChoice, Form};
use heatmap::{Mode, View};
use pdes_core::sim::Budget;
use pdes_core::time::{to_ticks, to_units};
use pdes_gpu::Gpu;
use pdes_models::link::Link;
use pdes_models::preset::{self, Config};
use session::Session;
use std::sync::Arc;
use web_time::Instant;

/// The controls' width on a large window; at most 30% of a smaller one at first.
const CONTROLS_WIDTH: f32 = 290.0;
/// The narrowest the controls may be dragged (their widest row still fits).
const CONTROLS_MIN_WIDTH: f32 = 200.0;
/// The plots' height on a large window; at most 30% of a smaller one at first, never more
/// than 45% (the heatmap keeps the rest).
const PLOTS_HEIGHT: f32 = 230.0;
/// The lowest the plots may be dragged.
const PLOTS_MIN_HEIGHT: f32 = 110.0;

/// Simulated time units per second a window starts at.
pub const DEFAULT_SIM_RATE: f64 = 20.0;

/// Largest grid whose last step's cells a single step records (a read of its words).
const JUST_RAN_CELLS: u64 = 1 << 16;

/// Frames between two plot samples.
const SAMPLE_EVERY: u64 = 4;

/// What the centre of the window shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    /// The simulation as it runs.
    Live,
    /// The live configuration over a range of one key.
    Sweep,
    /// Normal mixtures fitted to a column of numbers.
    Fit,
    /// What the model is and how to read it (the registry's text).
    Info,
}

/// The application state.
pub struct PdesApp {
    gpu: Option<Arc<Gpu>>,
    gpu_note: String,
    /// The start-up self-check of the GPU engines.
    pub gpu_check: gpu_check::GpuCheck,
    /// The values in the controls.
    pub form: Form,
    /// Why the form is invalid (shown in red; the running session is kept).
    pub form_error: Option<String>,
    /// The running session (A).
    pub a: Session,
    /// The B session of A/B mode.
    pub b: Option<Session>,
    /// The token followed hop by hop, if any.
    pub followed: Option<follow::Followed>,
    /// After a single step: the cells it ran (those outlined before it), drawn as dots
    /// beside the outlines of the next step; empty while running.
    pub just_ran: Vec<u32>,
    /// Algorithm of the B side.
    pub b_algorithm: AlgorithmChoice,
    /// The B side's own `key=value` overrides, comma-separated (e.g. its own service
    /// distribution: paper 000 compares window with shifted service to sequential with
    /// exponential service).
    pub b_sets: String,
    /// Whether the simulation advances every frame.
    pub running: bool,
    /// Simulated time units per second of wall-clock time.
    pub sim_rate: f64,
    /// What a frame asks for against `sim_rate`, and the rate achieved.
    pace: pace::Pace,
    /// What the heatmap colours.
    pub mode: Mode,
    views: [Option<View>; 2],
    /// The pinned cell as (row, column): a cell keeps its place when the grid's shape
    /// changes (as an index, (1, 1) of 8×16 became (2, 1) at 8 columns).
    pinned: Option<(u32, u32)>,
    /// Each model's form as it was left, so that switching back finds its settings (a
    /// 256² grid was gone on the way back).
    forms_left: std::collections::HashMap<&'static str, Form>,
    /// Last message for the user (errors of actions, saved files).
    pub message: Option<String>,
    /// What the centre shows: the live run, the sweep view or the fit view.
    pub tab: Tab,
    /// The sweep view's settings and results.
    pub sweep: sweep_view::SweepView,
    /// The fit view's data, settings and fits.
    pub fit: fit_view::FitView,
    /// Stop the run at the first step that makes a causality error.
    pub pause_on_error: bool,
    /// The causality error selected in the list (its arrow is drawn on the A heatmap).
    pub selected_violation: Option<violations::Violation>,
    /// The guided tour's current stop, while it is on.
    pub tour: Option<usize>,
    /// A preset asked for through Presets → Open… (the browser answers frames later).
    opening_preset: Option<crate::kit::files::Pick>,
    /// The built-in preset the run started from (the base of "Copy link").
    pub preset_name: String,
    /// A preset file's path typed in Presets (where no file dialog can be shown).
    pub preset_path: String,
    frame: u64,
    /// When the last step of a model with a step limit ran (the DEVS benchmark's flashing).
    last_limited_step: Option<Instant>,
    /// The settings the page last stored (a link's query), so that they are stored when they
    /// change — a paused page repaints only on input, and forgot the edits made while
    /// paused when it stored every 120 frames (issue 56 §4).
    #[cfg(target_arch = "wasm32")]
    stored_settings: String,
    /// The run has finished and its summary line is still to be written (its readbacks on
    /// their way).
    #[cfg(target_arch = "wasm32")]
    summary_due: bool,
    last_frame: Instant,
    frame_ms: f64,
    events_per_sec: f64,
    last_events: u64,
}

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
        Self::build(cc, config, Check::Remembered, None)
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
        Self::build(cc, config, check, None)
    }

    /// The app in a browser tab: `device` is the page's WebGPU device for the engines (its
    /// readbacks deferred; the window draws with WebGL2), or the reason there is none, which
    /// the status bar gives while everything runs on the CPU.
    pub fn in_page(
        cc: &eframe::CreationContext<'_>,
        config: Config,
        device: Result<Arc<Gpu>, String>,
    ) -> Result<Self, String> {
        Self::build(cc, config, Check::Remembered, Some(device))
    }

    fn build(
        cc: &eframe::CreationContext<'_>,
        config: Config,
        check: Check,
        page_device: Option<Result<Arc<Gpu>, String>>,
    ) -> Result<Self, String> {
        readable_small_text(&cc.egui_ctx);
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
        let form = Form::from_config(&config, crate::panels::of(&config));
        let (a, message) = match open_session(config.clone(), gpu.clone()) {
            Ok(s) => (s, None),
            Err(e) => Self::fallback_session(&config, gpu.clone(), e.to_string())?,
        };
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
            #[cfg(target_arch = "wasm32")]
            summary_due: false,
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

    /// The configuration a session is built from: on the CPU once the GPU self-check failed.
    fn engine_config(&self, mut cfg: Config) -> Config {
        if !self.gpu_check.gpu_allowed() {
            cfg.set_engine(preset::EngineKind::Cpu);
        }
        cfg
    }

    /// True when the GPU engines may be chosen (a compute device, and no failed self-check).
    pub fn gpu_engines_available(&self) -> bool {
        self.gpu.is_some() && self.gpu_check.gpu_allowed()
    }

    /// Rebuilds the sessions from the form (after a change), keeping the old ones if the
    /// form is invalid. Returns whether the sessions were rebuilt.
    pub fn apply_form(&mut self) -> bool {
        let cfg = match self.form.to_config() {
            Ok(c) => c,
            Err(e) => {
                self.form_error = Some(e);
                return false;
            }
        };
        let b_cfg = if self.b.is_some() {
            match self.b_config(self.b_algorithm) {
                Ok(c) => Some(c),
                Err(e) => {
                    self.form_error = Some(format!("B side: {e}"));
                    return false;
                }
            }
        } else {
            None
        };
        match open_session(self.engine_config(cfg), self.gpu.clone()) {
            Ok(mut s) => {
                // the run it replaces stays on the plots, faintly, when a parameter changed
                s.keep_as_ghost(&self.a);
                self.a = s;
                self.just_ran.clear();
                // a followed token is followed in the new run from its start
                if let Some(f) = self.followed.as_mut() {
                    f.hops.clear();
                    f.unseen = 0;
                }
                self.update_follow();
            }
            Err(e) => {
                self.form_error = Some(e.to_string());
                return false;
            }
        }
        self.b = match b_cfg.map(|c| open_session(self.engine_config(c), self.gpu.clone())) {
            Some(Ok(s)) => Some(s),
            Some(Err(e)) => {
                self.form_error = Some(format!("B side: {e}"));
                None
            }
            None => None,
        };
        self.form_error = None;
        self.last_limited_step = None;
        // what the status line said was about the run this one replaces ("paused at the
        // first causality error" stayed under a run without errors); a caller that has
        // something to say about the new run says it after this
        self.message = None;
        // a pinned cell that the new shape does not have is unpinned (it was read out of
        // bounds once: rows 16 → 8 with (14, 11) pinned)
        let (rows, cols) = self.a.shape();
        self.pinned = self.pinned.filter(|&(r, c)| r < rows && c < cols);
        self.last_events = 0;
        // a new model's rate starts afresh (the old figure stayed after a switch)
        self.events_per_sec = 0.0;
        // a selected causality error belongs to the run it came from
        self.selected_violation = None;
        self.pace = pace::Pace::default();
        // the heatmap shows what this model has
        if !Mode::of(&self.a).contains(&self.mode) {
            self.mode = Mode::of(&self.a)[0];
        }
        if !form::choices(self.form.kind()).contains(&self.b_algorithm) {
            self.b_algorithm = form::b_default(self.form.kind(), self.form.algorithm);
        }
        true
    }

    /// Switches to model `kind`: its settings as they were left, or its teaching preset the
    /// first time.
    pub fn switch_model(&mut self, kind: &'static str, teaching_preset: &str) {
        self.forms_left.insert(self.form.kind(), self.form.clone());
        match self.forms_left.remove(kind) {
            Some(form) => {
                self.form = form;
                self.b = None;
                self.apply_form();
            }
            None => self.load_preset(teaching_preset),
        }
    }

    /// Loads a preset file (or built-in name) into the form and restarts.
    pub fn load_preset(&mut self, name_or_path: &str) {
        match preset::load_text(name_or_path) {
            Ok((origin, text)) => self.load_preset_text(&origin, &text),
            Err(e) => self.message = Some(e.to_string()),
        }
        if preset::builtin().any(|(n, _)| *n == name_or_path) {
            self.preset_name = name_or_path.to_string();
        }
    }

    /// The link of the form's configuration: the preset the run started from and the
    /// assignments that differ (the browser build opens it; `--set` takes the same), with
    /// the speed when it is not the default.
    pub fn link(&self) -> Result<Link, String> {
        let cfg = self.form.to_config()?;
        let mut link = Link::shortest(&self.preset_name, &cfg).map_err(|e| e.to_string())?;
        if self.sim_rate != DEFAULT_SIM_RATE {
            link.speed = Some(self.sim_rate);
        }
        Ok(link)
    }

    /// Stores the page's settings (local storage) when they differ from those last stored.
    #[cfg(target_arch = "wasm32")]
    fn store_settings_if_changed(&mut self) {
        if let Ok(link) = self.link() {
            let query = link.query();
            if query != self.stored_settings {
                web::remember(&query);
                self.stored_settings = query;
            }
        }
    }

    /// When a run reaches its end time. In a browser tab the summary goes to the console
    /// as one line (the browser test reads it); the desktop shows it in the window only.
    fn run_finished(&mut self) {
        #[cfg(target_arch = "wasm32")]
        {
            self.store_settings_if_changed();
            self.summary_due = true;
            self.log_summary_when_back();
        }
    }

    /// Writes the finished run's summary to the console once its readbacks are back (a GPU
    /// engine in a page answers them on later frames; the CPU at once).
    #[cfg(target_arch = "wasm32")]
    fn log_summary_when_back(&mut self) {
        if !self.summary_due {
            return;
        }
        match self.a.engine.report() {
            Err(pdes_core::sim::SimError::NotYet) => return,
            Ok(summary) => {
                match pdes_runs::output::format_summary(&summary, pdes_runs::output::Format::Json) {
                    Ok(json) => web::log_summary(&json),
                    Err(e) => self.message = Some(format!("the summary could not be written: {e}")),
                }
            }
            Err(e) => self.message = Some(e.to_string()),
        }
        self.summary_due = false;
    }

    /// Lets engines whose last budget is still on its way (a GPU engine in a browser tab)
    /// land it while the window is paused; true while something is still on its way.
    fn settle(&mut self) -> bool {
        let mut waiting = false;
        for s in std::iter::once(&mut self.a).chain(self.b.as_mut()) {
            match s.settle() {
                Ok(settled) => waiting |= !settled,
                Err(e) => self.message = Some(e.to_string()),
            }
        }
        waiting
    }

    /// Loads preset text read elsewhere (a file the browser handed over); `origin` names
    /// it in messages.
    pub fn load_preset_text(&mut self, origin: &str, text: &str) {
        match Config::from_toml(text, origin) {
            Ok(cfg) => {
                self.preset_name = preset::builtin_base(&cfg).to_string();
                self.form = Form::from_config(&cfg, crate::panels::of(&cfg));
                if self.apply_form() {
                    self.message = Some(format!("loaded {origin}"));
                }
            }
            Err(e) => self.message = Some(e.to_string()),
        }
    }

    /// The B side's configuration: the form's parameters with `algorithm`, then the B
    /// side's own overrides (`b_sets`).
    pub fn b_config(&self, algorithm: AlgorithmChoice) -> Result<Config, String> {
        let cfg = self.form.to_config_with(algorithm)?;
        let sets: Vec<String> = self
            .b_sets
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        if sets.is_empty() {
            return Ok(cfg);
        }
        pdes_runs::sweep::with_sets(&cfg, &sets)
    }

    /// Turns A/B mode on (B runs `b_algorithm` on the same parameters and seed) or off.
    pub fn set_ab(&mut self, on: bool) {
        if on {
            // If the chosen B algorithm cannot run these parameters (window needs shifted
            // service; timestepped a stable dt), take the first one that can.
            if self.b_config(self.b_algorithm).is_err()
                && let Some(ok) = form::choices(self.form.kind())
                    .iter()
                    .rev()
                    .copied()
                    .find(|a| self.b_config(a).is_ok())
            {
                self.b_algorithm = ok;
            }
            let mut b_error = None;
            self.b = match self.b_config(self.b_algorithm) {
                Ok(c) => match open_session(self.engine_config(c), self.gpu.clone()) {
                    Ok(s) => Some(s),
                    Err(e) => {
                        b_error = Some(format!("B side: {e}"));
                        None
                    }
                },
                Err(e) => {
                    b_error = Some(format!("B side: {e}"));
                    None
                }
            };
            // restart A too, so both start from time 0 together
            self.apply_form();
            if b_error.is_some() {
                self.message = b_error;
            }
        } else {
            self.b = None;
        }
    }

    /// The zoom and pan of heatmap `i` (0: A, 1: B) as last drawn.
    pub fn heatmap_view(&self, i: usize) -> Option<View> {
        self.views.get(i).copied().flatten()
    }

    /// The facility pinned in the inspector, if any.
    pub fn pinned(&self) -> Option<u32> {
        let (_, cols) = self.a.shape();
        self.pinned.map(|(r, c)| r * cols + c)
    }

    /// Pins facility `f` in the inspector (what a click on the heatmap does).
    pub fn pin(&mut self, f: u32) {
        let (rows, cols) = self.a.shape();
        self.pinned = (u64::from(f) < u64::from(rows) * u64::from(cols))
            .then(|| (f / cols.max(1), f % cols.max(1)));
    }

    /// Advances every session by `budget`; errors stop the run and are shown.
    pub fn advance(&mut self, budget: Budget) {
        let mut result = self.a.advance(budget);
        if let (Ok(()), Some(b)) = (&result, self.b.as_mut()) {
            result = b.advance(budget);
        }
        if let Err(e) = result {
            self.running = false;
            self.message = Some(e.to_string());
        }
        self.update_follow();
    }

    /// One window (one step; one event for sequential) on every session. The cells
    /// outlined before it — those with an event in the step — are kept as the cells it ran.
    pub fn step_once(&mut self) {
        let next = self.outlined_cells();
        self.advance(Budget::Steps(1));
        self.sample_all();
        self.just_ran = next;
    }

    /// The cells A's heatmap outlines (an event in the next step: the torus, PHOLD), for
    /// grids up to [`JUST_RAN_CELLS`] cells; none in the temperature mode, whose words are
    /// values, not marks.
    fn outlined_cells(&self) -> Vec<u32> {
        let (rows, cols) = self.a.shape();
        if self.mode == heatmap::Mode::Temperature
            || u64::from(rows) * u64::from(cols) > JUST_RAN_CELLS
        {
            return Vec::new();
        }
        self.a.display_words().map_or_else(
            |_| Vec::new(),
            |w| {
                (0..w.len() as u32)
                    .filter(|&i| w[i as usize][0] & pdes_gpu::NEXT_STEP_BIT != 0)
                    .collect()
            },
        )
    }

    /// The line above the plots while earlier runs are drawn faintly: what each changed,
    /// and a button that forgets them.
    fn ghosts_line(&mut self, ui: &mut egui::Ui) {
        // wrapped: a long list of changes pushed the plots and "Forget them" off-screen at
        // 1366×768 (issue 56 §5)
        ui.horizontal_wrapped(|ui| {
            let names: Vec<&str> = self.a.ghosts.iter().map(|g| g.label.as_str()).collect();
            ui.label(
                egui::RichText::new(format!(
                    "faint grey: the earlier runs ({}), against the live one",
                    names.join("; ")
                ))
                .small(),
            )
            .on_hover_text("When a parameter changes, the last runs' curves stay on the plots, faintly (the oldest faintest), so that the change can be seen against the run before it. A/B hides them.");
            if ui.small_button("Forget them").clicked() {
                self.a.ghosts.clear();
            }
        });
    }

    /// Restarts from time 0 with the current parameters.
    pub fn reset(&mut self) {
        self.running = false;
        self.apply_form();
    }

    pub(super) fn sample_all(&mut self) {
        let mut r = self.a.sample();
        if let Some(b) = self.b.as_mut() {
            r = r.and(b.sample());
        }
        if let Err(e) = r {
            self.message = Some(e.to_string());
        }
    }

    fn finished(&self) -> bool {
        self.a.engine().finished() && self.b.as_ref().is_none_or(|b| b.engine().finished())
    }
}

impl eframe::App for PdesApp {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        if self.sweep.poll() | self.fit.poll() {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
        if self.gpu_check.poll() {
            // the GPU does not reproduce its CPU twins: everything moves to the CPU
            self.form.gpu = false;
            self.apply_form();
            self.message = Some("GPU differs from CPU: switched to the CPU engines".into());
        }
        if self.gpu_check.running() {
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        let now = Instant::now();
        // a frame asks for at most 0.1 s of the speed's simulated time (a stall must not turn
        // into a leap), but rates are per real second: measured with the clamped interval, a
        // CPU run at 2.5 units/s of 20 asked looked fast enough to say nothing
        let elapsed = now.duration_since(self.last_frame).as_secs_f64();
        let dt = elapsed.min(0.1);
        self.last_frame = now;
        self.frame_ms = 0.9 * self.frame_ms + 0.1 * elapsed * 1000.0;
        if self.running && !self.finished() {
            // many steps a frame: "the last step's cells" would be one step of many
            self.just_ran.clear();
            // simulated time per frame, the same for A and B so they stay side by side
            let want = self.sim_rate * dt;
            let span = self.pace.span(want);
            let before = self.a.now();
            let target = before + to_ticks(span.max(1e-6));
            let work = Instant::now();
            let errors_before = self.a.engine().totals().steps_with_errors;
            match self.a.panel.max_steps_per_second {
                // a model whose steps flash the whole field: one step when its time has come
                Some(most) => {
                    let due = self
                        .last_limited_step
                        .is_none_or(|t| now.duration_since(t).as_secs_f64() >= 1.0 / most);
                    if due {
                        self.last_limited_step = Some(now);
                        self.advance(Budget::Steps(1));
                    }
                }
                None => self.advance(Budget::Until(target)),
            }
            self.pause_on_error(errors_before);
            let took = work.elapsed().as_secs_f64();
            let advanced = to_units(self.a.now().saturating_sub(before));
            if self.a.panel.max_steps_per_second.is_none() {
                self.pace.record(want, span, took, advanced, elapsed);
            }
            self.frame += 1;
            if self.frame.is_multiple_of(SAMPLE_EVERY) {
                self.sample_all();
            }
            let events = self.a.engine().totals().events;
            if elapsed > 0.0 {
                let rate = (events - self.last_events.min(events)) as f64 / elapsed;
                self.events_per_sec = 0.9 * self.events_per_sec + 0.1 * rate;
            }
            self.last_events = events;
            ctx.request_repaint();
        } else if self.running {
            self.running = false;
            self.sample_all();
            self.run_finished();
        } else if self.settle() {
            // a paused page's Step: its batch comes back on the next frames
            ctx.request_repaint();
        }
        #[cfg(target_arch = "wasm32")]
        if self.summary_due {
            self.log_summary_when_back();
            ctx.request_repaint();
        }
        // Keyboard: space run/pause, → one step, R reset (not while typing in a field).
        if !ctx.egui_wants_keyboard_input() {
            let (space, right, r) = ctx.input(|i| {
                (
                    i.key_pressed(egui::Key::Space),
                    i.key_pressed(egui::Key::ArrowRight),
                    i.key_pressed(egui::Key::R),
                )
            });
            if space {
                self.running = !self.running;
            }
            if right {
                self.step_once();
            }
            if r {
                self.reset();
            }
        }
        // the page keeps its settings in local storage (a reload without a link reopens
        // them), stored on the frame an input may have changed them
        #[cfg(target_arch = "wasm32")]
        if ctx.input(|i| !i.events.is_empty()) {
            self.store_settings_if_changed();
        }
        // A preset picked through Presets → Open…, or dropped on the window (outside the
        // Fit view, where a dropped file is data).
        if let Some(answer) = self.opening_preset.as_mut().and_then(|p| p.take()) {
            self.opening_preset = None;
            match answer {
                Some(picked) => self.load_picked(picked),
                None => {
                    self.message =
                        Some(crate::kit::files::Saved::Cancelled.message("nothing opened"))
                }
            }
        }
        if self.tab != Tab::Fit
            && let Some(pick) = crate::kit::files::dropped(ctx)
        {
            self.opening_preset = Some(pick);
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        egui::Panel::top("menu").show(ui, |ui| self.menu_bar(ui));
        egui::Panel::bottom("status").show(ui, |ui| self.status_bar(ui));
        // the panels' sizes follow the window (a laptop's 1366×768, a projector's 800×600):
        // each can be dragged within its range, and the range keeps the heatmap visible
        let window = ui.ctx().content_rect().size();
        egui::Panel::left("controls")
            .resizable(true)
            .default_size(CONTROLS_WIDTH.min(0.3 * window.x))
            .size_range(CONTROLS_MIN_WIDTH..=CONTROLS_WIDTH.max(0.4 * window.x))
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.controls(ui));
            });
        if self.tab == Tab::Live {
            egui::Panel::bottom("plots")
                .resizable(true)
                .default_size(PLOTS_HEIGHT.min(0.3 * window.y))
                .size_range(PLOTS_MIN_HEIGHT..=PLOTS_MIN_HEIGHT.max(0.45 * window.y))
                .show(ui, |ui| {
                    if self.b.is_none() && !self.a.ghosts.is_empty() {
                        self.ghosts_line(ui);
                    }
                    plots::show(ui, &self.a, self.b.as_ref());
                });
            egui::Panel::bottom("monitors").show(ui, |ui| {
                monitors::row(ui, &self.a, if self.b.is_some() { "A" } else { "" });
                if let Some(b) = &self.b {
                    monitors::row(ui, b, "B");
                    monitors::ab_line(ui, &self.a, b);
                }
            });
        }
        if self.tab == Tab::Live {
            self.tour_panel(ui);
        }
        egui::CentralPanel::default().show(ui, |ui| {
            // sweeps and fits wait for their results inside their steps: not on a page's
            // device (its readbacks come back on later frames), where they run on the CPU
            let gpu = self
                .gpu
                .clone()
                .filter(|g| self.gpu_check.gpu_allowed() && !g.defers_readbacks());
            match self.tab {
                Tab::Sweep => {
                    let live = self.a.config.clone();
                    if let Some(v) = self.sweep.show(ui, &live, gpu) {
                        let key = self.sweep.key.clone();
                        self.use_sweep_value(&key, v);
                    }
                }
                Tab::Fit => {
                    let samples = self.a.engine.samples();
                    self.fit.show(ui, samples, gpu);
                }
                Tab::Live => self.central(ui),
                Tab::Info => self.info_tab(ui),
            }
        });
    }
}

/// A session of `config` shown with its model's panel (the shell is where a session meets
/// the panels: the kit knows neither).
fn open_session(
    config: Config,
    gpu: Option<Arc<Gpu>>,
) -> Result<Session, pdes_core::sim::SimError> {
    let panel = crate::panels::of(&config);
    Session::new(config, panel, gpu)
}
