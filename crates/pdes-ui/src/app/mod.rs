//! The PDES Lab window: controls on the left, the heatmap (a wgpu render pass reading the
//! simulation's GPU buffers) in the middle, live plots below, a status bar.
//!
//! The simulation runs on eframe's own wgpu device: `App::logic` advances it once per
//! frame by a budget of simulated time, then `App::ui` draws.

pub mod advisor;
mod central;
mod controls;
pub mod fit_view;
pub mod follow;
mod frame;
pub mod gpu_check;
pub mod info_view;
mod start;
#[cfg(not(target_arch = "wasm32"))]
pub use start::run_native;
pub use start::wgpu_setup;
mod menu;
mod pace;
pub mod plots_image;
pub mod rescue;
pub mod summary;
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
use pdes_core::time::{Ticks, to_ticks, to_units};
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

/// Samples the plots get in a run at least, whatever the speed: one at every multiple of
/// end time / this (see [`PdesApp::advance_sampling`]).
const SAMPLES_PER_RUN: f64 = 400.0;

/// Most of those samples one frame takes: all a run has (a frame that covers the whole run
/// splits its advance at each; fewer left gaps where a fast run's frames ended).
const MOST_SAMPLES_A_FRAME: usize = SAMPLES_PER_RUN as usize;

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
    /// The run has finished and its summary is still to be taken (its readbacks on their
    /// way).
    summary_due: bool,
    /// Where the plots panel was last drawn (points): "Plots as PNG…" cuts it from a
    /// screenshot ([`plots_image`]).
    pub plots_rect: Option<egui::Rect>,
    /// Where the screenshot "Plots as PNG…" asked for lands.
    plots_shot: plots_image::PlotsShot,
    /// The finished run's summary, shown over the live view ([`summary`]).
    pub summary: Option<summary::RunSummary>,
    /// What a bug caught in a frame left (the work saved, the reason), shown at the top.
    rescued: Option<rescue::Rescued>,
    /// Where rescued work is saved ([`rescue::default_folder`]).
    rescue_folder: std::path::PathBuf,
    /// The next frame's logic panics (tests of the rescue).
    fail_next_frame: bool,
    last_frame: Instant,
    frame_ms: f64,
    events_per_sec: f64,
    last_events: u64,
}

impl PdesApp {
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
        // the summary was the replaced run's
        self.summary = None;
        self.summary_due = false;
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

    /// When a run reaches its end time: its summary is taken for the screen (and, in a
    /// browser tab, the console) as soon as its readbacks are back.
    fn run_finished(&mut self) {
        #[cfg(target_arch = "wasm32")]
        self.store_settings_if_changed();
        self.summary_due = true;
        self.take_summary_when_back();
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

    /// Advances every session up to `target`, sampling the plots at every multiple of
    /// the run's sampling interval ([`SAMPLES_PER_RUN`] in a run) it passes: the plots get
    /// the run at its own resolution whatever the speed (issue 56 §5: at speed 300 a run
    /// of 300 units held one point). Not on an engine whose readbacks come back on later
    /// frames (a page's GPU), whose time is not known inside the frame: there the frames'
    /// samples alone.
    pub fn advance_sampling(&mut self, target: Ticks) {
        if self.samples_by_frame() {
            self.advance(Budget::Until(target));
            return;
        }
        let every = to_ticks(self.a.end_time() / SAMPLES_PER_RUN).max(1);
        let mut boundary = (self.a.now() / every + 1) * every;
        for _ in 0..MOST_SAMPLES_A_FRAME {
            // to the next multiple of the interval, or the frame's target before it (a
            // step may pass either, or none be due before it: a sample wherever one was
            // passed, and on to the next multiple either way)
            let end = boundary.min(target);
            let before = self.a.now();
            self.advance(Budget::Until(end));
            let now = self.a.now();
            if now / every > before / every {
                self.sample_all();
            }
            if !self.running || end >= target || now >= target || self.finished() {
                return;
            }
            boundary = (boundary + every).max((now / every + 1) * every);
        }
        self.advance(Budget::Until(target));
    }

    /// True where A's engine answers on later frames (a page's GPU): its time is not known
    /// inside a frame, so its plots are sampled frame by frame.
    pub(super) fn samples_by_frame(&self) -> bool {
        self.a.runs_on() == "gpu" && self.gpu.as_ref().is_some_and(|g| g.defers_readbacks())
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

    /// The most steps a second the window shows now: its model's limit while the heatmap
    /// shows a mode that flashes the whole field (the DEVS benchmark's digits), else none.
    pub fn step_limit(&self) -> Option<f64> {
        self.a
            .panel
            .max_steps_per_second
            .filter(|_| self.mode.flashes_whole_field())
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
