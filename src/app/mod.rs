//! The PDES Lab window: controls on the left, the heatmap (a wgpu render pass reading the
//! simulation's GPU buffers) in the middle, live plots below, a status bar.
//!
//! The simulation runs on eframe's own wgpu device: `App::logic` advances it once per
//! frame by a budget of simulated time, then `App::ui` draws.

pub mod form;
pub mod heatmap;
pub mod plots;
pub mod session;

use crate::gpu::Gpu;
use crate::preset::{self, Config};
use crate::sim::{Budget, StepRecord};
use crate::time::{to_ticks, to_units};
use eframe::egui;
use form::{AlgorithmChoice, Form};
use heatmap::{HeatmapCallback, Mode, View};
use session::{Session, SessionEngine};
use std::sync::Arc;
use std::time::Instant;

/// Frames between two plot samples.
const SAMPLE_EVERY: u64 = 4;

/// The application state.
pub struct PdesApp {
    gpu: Option<Arc<Gpu>>,
    gpu_note: String,
    /// The values in the controls.
    pub form: Form,
    /// Why the form is invalid (shown in red; the running session is kept).
    pub form_error: Option<String>,
    /// The running session (A).
    pub a: Session,
    /// The B session of A/B mode.
    pub b: Option<Session>,
    /// Algorithm of the B side.
    pub b_algorithm: AlgorithmChoice,
    /// Whether the simulation advances every frame.
    pub running: bool,
    /// Simulated time units per second of wall-clock time.
    pub sim_rate: f64,
    /// What the heatmap colours.
    pub mode: Mode,
    views: [Option<View>; 2],
    pinned: Option<u32>,
    /// Last message for the user (errors of actions, saved files).
    pub message: Option<String>,
    frame: u64,
    last_frame: Instant,
    frame_ms: f64,
    events_per_sec: f64,
    last_events: u64,
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
        required_features: adapter.features()
            & (wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES),
        required_limits: adapter.limits(),
        ..Default::default()
    });
    eframe::egui_wgpu::WgpuSetup::CreateNew(create)
}

/// Opens the window on `config` (blocks until it is closed): with wgpu when an adapter with
/// compute exists, else with OpenGL and the CPU engines.
pub fn run_native(config: Config) -> Result<(), String> {
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
    let wgpu_ok = crate::gpu::Gpu::shared().is_ok();
    let renderer = if wgpu_ok {
        eframe::Renderer::Wgpu
    } else {
        eframe::Renderer::Glow
    };
    let cfg = config.clone();
    let first = eframe::run_native(
        "PDES Lab",
        options(renderer),
        Box::new(move |cc| Ok(Box::new(PdesApp::new(cc, cfg)))),
    );
    match first {
        Err(e) if renderer == eframe::Renderer::Wgpu => {
            eprintln!(
                "pdes-lab: wgpu could not open the window ({e}); trying OpenGL with the CPU engines"
            );
            eframe::run_native(
                "PDES Lab",
                options(eframe::Renderer::Glow),
                Box::new(move |cc| Ok(Box::new(PdesApp::new(cc, config)))),
            )
            .map_err(|e| format!("could not open the window: {e}"))
        }
        r => r.map_err(|e| format!("could not open the window: {e}")),
    }
}

impl PdesApp {
    /// Builds the app on `config`, sharing eframe's wgpu device with the engines.
    pub fn new(cc: &eframe::CreationContext<'_>, config: Config) -> Self {
        let (gpu, gpu_note) = match cc.wgpu_render_state.as_ref() {
            Some(rs) => {
                heatmap::install(rs);
                let gpu = Gpu::from_render_state(rs);
                let note = gpu.describe();
                (Some(Arc::new(gpu)), note)
            }
            None => (
                None,
                "no GPU compute device: the simulation runs on the CPU".to_string(),
            ),
        };
        let form = Form::from_config(&config);
        let (a, message) = match Session::new(config.clone(), gpu.clone()) {
            Ok(s) => (s, None),
            Err(e) => {
                let mut cpu = config.clone();
                cpu.run.engine = preset::EngineKind::Cpu;
                (
                    Session::new(cpu, gpu.clone()).expect("CPU sessions cannot fail"),
                    Some(e.to_string()),
                )
            }
        };
        Self {
            gpu,
            gpu_note,
            form,
            form_error: None,
            a,
            b: None,
            b_algorithm: AlgorithmChoice::Window,
            // A new user should see the network move at once.
            running: true,
            sim_rate: 20.0,
            mode: Mode::Tokens,
            views: [None, None],
            pinned: None,
            message,
            frame: 0,
            last_frame: Instant::now(),
            frame_ms: 0.0,
            events_per_sec: 0.0,
            last_events: 0,
        }
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
            match self.form.to_config_with(self.b_algorithm) {
                Ok(c) => Some(c),
                Err(e) => {
                    self.form_error = Some(format!("B side: {e}"));
                    return false;
                }
            }
        } else {
            None
        };
        match Session::new(cfg, self.gpu.clone()) {
            Ok(s) => self.a = s,
            Err(e) => {
                self.form_error = Some(e.to_string());
                return false;
            }
        }
        self.b = match b_cfg.map(|c| Session::new(c, self.gpu.clone())) {
            Some(Ok(s)) => Some(s),
            Some(Err(e)) => {
                self.form_error = Some(format!("B side: {e}"));
                None
            }
            None => None,
        };
        self.form_error = None;
        self.last_events = 0;
        true
    }

    /// Loads a preset file (or built-in name) into the form and restarts.
    pub fn load_preset(&mut self, name_or_path: &str) {
        let loaded = preset::load_text(name_or_path)
            .and_then(|(origin, text)| Config::from_toml(&text, &origin));
        match loaded {
            Ok(cfg) => {
                self.form = Form::from_config(&cfg);
                if self.apply_form() {
                    self.message = Some(format!("loaded {name_or_path}"));
                }
            }
            Err(e) => self.message = Some(e.to_string()),
        }
    }

    /// Turns A/B mode on (B runs `b_algorithm` on the same parameters and seed) or off.
    pub fn set_ab(&mut self, on: bool) {
        if on {
            // If the chosen B algorithm cannot run these parameters (window needs shifted
            // service), take the first one that can.
            if self.form.to_config_with(self.b_algorithm).is_err()
                && let Some(ok) = [
                    AlgorithmChoice::Window,
                    AlgorithmChoice::IntervalBoundary,
                    AlgorithmChoice::Sequential,
                ]
                .into_iter()
                .find(|a| self.form.to_config_with(*a).is_ok())
            {
                self.b_algorithm = ok;
            }
            self.b = match self.form.to_config_with(self.b_algorithm) {
                Ok(c) => match Session::new(c, self.gpu.clone()) {
                    Ok(s) => Some(s),
                    Err(e) => {
                        self.message = Some(format!("B side: {e}"));
                        None
                    }
                },
                Err(e) => {
                    self.message = Some(format!("B side: {e}"));
                    None
                }
            };
            // restart A too, so both start from time 0 together
            self.apply_form();
        } else {
            self.b = None;
        }
    }

    /// Pins facility `f` in the inspector (what a click on the heatmap does).
    pub fn pin(&mut self, f: u32) {
        self.pinned = (f < self.a.config.model.facilities()).then_some(f);
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
    }

    /// One window (one step; one event for sequential) on every session.
    pub fn step_once(&mut self) {
        self.advance(Budget::Steps(1));
        self.sample_all();
    }

    /// Restarts from time 0 with the current parameters.
    pub fn reset(&mut self) {
        self.running = false;
        self.apply_form();
    }

    fn sample_all(&mut self) {
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
        let now = Instant::now();
        let dt = now.duration_since(self.last_frame).as_secs_f64().min(0.1);
        self.last_frame = now;
        self.frame_ms = 0.9 * self.frame_ms + 0.1 * dt * 1000.0;
        if self.running && !self.finished() {
            // simulated time per frame, the same for A and B so they stay side by side
            let target = self.a.now() + to_ticks((self.sim_rate * dt).max(1e-6));
            self.advance(Budget::Until(target));
            self.frame += 1;
            if self.frame.is_multiple_of(SAMPLE_EVERY) {
                self.sample_all();
            }
            let events = self.a.engine().totals().events;
            if dt > 0.0 {
                let rate = (events - self.last_events.min(events)) as f64 / dt;
                self.events_per_sec = 0.9 * self.events_per_sec + 0.1 * rate;
            }
            self.last_events = events;
            ctx.request_repaint();
        } else if self.running {
            self.running = false;
            self.sample_all();
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
        // Drag and drop a preset file.
        let dropped: Vec<std::path::PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        if let Some(p) = dropped.first() {
            self.load_preset(&p.to_string_lossy());
        }
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        egui::Panel::top("menu").show(ui, |ui| self.menu_bar(ui));
        egui::Panel::bottom("status").show(ui, |ui| self.status_bar(ui));
        egui::Panel::left("controls")
            .resizable(false)
            .exact_size(290.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.controls(ui));
            });
        egui::Panel::bottom("plots")
            .resizable(true)
            .default_size(230.0)
            .show(ui, |ui| {
                plots::show(ui, &self.a, self.b.as_ref());
            });
        egui::CentralPanel::default().show(ui, |ui| self.central(ui));
    }
}

impl PdesApp {
    fn menu_bar(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("Presets", |ui| {
                for (name, text) in preset::BUILTIN {
                    if ui
                        .button(*name)
                        .on_hover_text(preset::description(text))
                        .clicked()
                    {
                        self.load_preset(name);
                        ui.close();
                    }
                }
                ui.separator();
                if ui.button("Open…").clicked() {
                    ui.close();
                    if let Some(p) = rfd::FileDialog::new()
                        .add_filter("preset", &["toml"])
                        .pick_file()
                    {
                        self.load_preset(&p.to_string_lossy());
                    }
                }
                if ui.button("Save as…").clicked() {
                    ui.close();
                    self.save_preset_dialog();
                }
            });
            ui.menu_button("Export", |ui| {
                if ui.button("Plotted series as CSV…").clicked() {
                    ui.close();
                    if let Some(p) = rfd::FileDialog::new()
                        .set_file_name("pdes-series.csv")
                        .save_file()
                    {
                        self.message = Some(match plots::write_csv(&p, &self.a, self.b.as_ref()) {
                            Ok(()) => format!("wrote {}", p.display()),
                            Err(e) => format!("could not write {}: {e}", p.display()),
                        });
                    }
                }
                if ui.button("Heatmap as PNG…").clicked() {
                    ui.close();
                    if let Some(p) = rfd::FileDialog::new()
                        .set_file_name("pdes-heatmap.png")
                        .save_file()
                    {
                        self.message = Some(match self.write_png(&p) {
                            Ok(()) => format!("wrote {}", p.display()),
                            Err(e) => format!("could not write {}: {e}", p.display()),
                        });
                    }
                }
            });
            ui.separator();
            ui.label("Heatmap:");
            for m in Mode::ALL {
                ui.selectable_value(&mut self.mode, m, m.label());
            }
        });
    }

    fn save_preset_dialog(&mut self) {
        let cfg = match self.form.to_config() {
            Ok(c) => c,
            Err(e) => {
                self.message = Some(format!("not saved: {e}"));
                return;
            }
        };
        if let Some(p) = rfd::FileDialog::new()
            .add_filter("preset", &["toml"])
            .set_file_name("my-preset.toml")
            .save_file()
        {
            let text = cfg.to_toml("Saved from PDES Lab");
            self.message = Some(match std::fs::write(&p, text) {
                Ok(()) => format!("saved {}", p.display()),
                Err(e) => format!("could not save {}: {e}", p.display()),
            });
        }
    }

    /// Writes the A heatmap (queue lengths through the colormap) as a PNG.
    pub fn write_png(&self, path: &std::path::Path) -> Result<(), String> {
        let words = self.a.display_words().map_err(|e| e.to_string())?;
        let (w, h) = (self.a.config.model.cols, self.a.config.model.rows);
        let max = words.iter().map(|c| c[0]).max().unwrap_or(1).max(1) as f32;
        let mut rgb = Vec::with_capacity(words.len() * 3);
        for c in &words {
            let [r, g, b] = heatmap::viridis(c[0] as f32 / max);
            rgb.extend([(r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8]);
        }
        let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
        let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(|e| e.to_string())?;
        writer.write_image_data(&rgb).map_err(|e| e.to_string())
    }

    fn controls(&mut self, ui: &mut egui::Ui) {
        let mut changed = false;
        ui.heading("Model");
        ui.label("Closed torus queueing network").on_hover_text(
            "rows × cols service facilities on a torus, each a server with a FIFO queue. After service a token moves to one of the four neighbours at random (Sang et al. 2019, Park & Fishwick 2009).",
        );
        egui::Grid::new("model").num_columns(2).show(ui, |ui| {
            let lbl = ui.label("rows × cols").on_hover_text("Size of the torus. Up to 16384 each; large sizes want the GPU engine.");
            ui.horizontal(|ui| {
                changed |= ui.add(egui::DragValue::new(&mut self.form.rows).range(0..=16384)).labelled_by(lbl.id).changed();
                ui.label("×");
                changed |= ui.add(egui::DragValue::new(&mut self.form.cols).range(0..=16384)).labelled_by(lbl.id).changed();
            });
            ui.end_row();
            let lbl = ui.label("tokens / facility").on_hover_text("Tokens that start at every facility (P). The network is closed: their number never changes.");
            changed |= ui.add(egui::DragValue::new(&mut self.form.tokens_per_facility).range(0..=1024)).labelled_by(lbl.id).changed();
            ui.end_row();
            let lbl = ui.label("mean service M").on_hover_text("Mean service time of a visit.");
            changed |= ui.add(egui::DragValue::new(&mut self.form.mean_service).speed(0.1).range(0.0..=4095.0)).labelled_by(lbl.id).changed();
            ui.end_row();
            ui.label("service").on_hover_text("Exponential with mean M, or shifted: d + Exp(M − d). Shifted keeps the mean but never serves faster than d — the lookahead that makes the window algorithm exact.");
            ui.horizontal(|ui| {
                changed |= ui.selectable_value(&mut self.form.shifted, false, "exponential").changed();
                changed |= ui.selectable_value(&mut self.form.shifted, true, "shifted").changed();
            });
            ui.end_row();
        });
        ui.separator();
        ui.heading("Algorithm");
        for a in AlgorithmChoice::ALL {
            changed |= ui
                .radio_value(&mut self.form.algorithm, a, a.label())
                .on_hover_text(a.help())
                .changed();
        }
        egui::Grid::new("run").num_columns(2).show(ui, |ui| {
            ui.label("d").on_hover_text("The interval. Window: events in [t_min, t_min + d) run together. Interval: events up to the next multiple of d. Larger d = more parallel events per step (faster) but, for the interval algorithms, more bias or more causality errors.");
            ui.vertical(|ui| {
                let slider = ui.add(egui::Slider::new(&mut self.form.d, 0.001..=100.0).logarithmic(true).text("d (log)"));
                changed |= slider.changed();
            });
            ui.end_row();
            ui.label("engine").on_hover_text("Where the simulation runs. The GPU engine runs window and interval as compute passes on the same device that draws this window; sequential always runs on the CPU.");
            ui.horizontal(|ui| {
                changed |= ui.selectable_value(&mut self.form.gpu, false, "CPU").changed();
                let gpu_ok = self.gpu.is_some();
                changed |= ui.add_enabled(gpu_ok, egui::Button::selectable(self.form.gpu, "GPU")).clicked() && {
                    self.form.gpu = true;
                    true
                };
            });
            ui.end_row();
            let lbl = ui.label("seed").on_hover_text("Every service time and route is a pure function of (seed, token, visit): the same seed gives the same sample path in every exact algorithm, on the CPU and on the GPU.");
            changed |= ui.add(egui::DragValue::new(&mut self.form.seed)).labelled_by(lbl.id).changed();
            ui.end_row();
            let lbl = ui.label("end time").on_hover_text("Simulated time at which the run stops.");
            changed |= ui.add(egui::DragValue::new(&mut self.form.end_time).speed(10.0).range(0.0..=1e12)).labelled_by(lbl.id).changed();
            ui.end_row();
        });
        if changed {
            self.apply_form();
        }
        if let Some(e) = &self.form_error {
            ui.colored_label(egui::Color32::from_rgb(240, 90, 80), e.as_str());
            ui.label("(the running simulation keeps its last valid parameters)");
        }
        ui.separator();
        ui.heading("Run");
        ui.horizontal(|ui| {
            let label = if self.running { "Pause" } else { "Run" };
            if ui.button(label).on_hover_text("Space").clicked() {
                self.running = !self.running;
            }
            if ui
                .button("Step")
                .on_hover_text("→ : one window (one step; one event for sequential)")
                .clicked()
            {
                self.step_once();
            }
            if ui.button("Reset").on_hover_text("R").clicked() {
                self.reset();
            }
        });
        ui.add(
            egui::Slider::new(&mut self.sim_rate, 0.1..=100_000.0)
                .logarithmic(true)
                .text("sim time / s"),
        )
        .on_hover_text("Simulated time advanced per second of wall-clock time.");
        ui.separator();
        ui.heading("A/B");
        let mut ab = self.b.is_some();
        if ui.checkbox(&mut ab, "compare with a second algorithm").on_hover_text("Runs the same parameters and seed with a second algorithm side by side; the plots overlay both.").changed() {
            self.set_ab(ab);
        }
        if self.b.is_some() {
            let before = self.b_algorithm;
            for a in AlgorithmChoice::ALL {
                ui.radio_value(&mut self.b_algorithm, a, format!("B: {}", a.label()));
            }
            if before != self.b_algorithm {
                self.set_ab(true);
            }
        }
        if let Some(f) = self.pinned {
            ui.separator();
            self.inspector(ui, f);
        }
    }

    fn inspector(&mut self, ui: &mut egui::Ui, f: u32) {
        let cols = self.a.config.model.cols;
        ui.heading(format!("Facility ({}, {})", f / cols, f % cols));
        if let SessionEngine::Cpu(c) = &self.a.engine {
            let st = &c.cpu.state().facilities[f as usize];
            ui.label(format!(
                "tokens: {}",
                st.queued + u32::from(st.serving != crate::sim::state::NONE)
            ));
            ui.label(format!("busy: {}", st.serving != crate::sim::state::NONE));
            ui.label(format!("last arrival: {:.4}", to_units(st.last_arrival)));
            ui.label(format!("causality errors: {}", st.causality_errors));
            if let crate::sim::CpuTorus::Stepped(s) = &c.cpu {
                let recent: Vec<_> = s
                    .violations
                    .iter()
                    .rev()
                    .filter(|v| v.facility == f)
                    .take(8)
                    .collect();
                if !recent.is_empty() {
                    ui.label("recent violations (arrival < last arrival):");
                    for v in recent {
                        ui.monospace(format!(
                            "step {:>6}: {:.4} < {:.4}",
                            v.step,
                            to_units(v.arrival),
                            to_units(v.last_arrival)
                        ));
                    }
                }
            }
        } else if let (SessionEngine::Gpu(g), Some(cells)) = (&self.a.engine, &self.a.display) {
            // two small readbacks, not the whole grid
            let tokens = crate::gpu::torus::read_ranges(g.gpu(), &[(cells, 8 * u64::from(f), 8)])
                .map(|b| bytemuck::pod_read_unaligned::<[u32; 2]>(&b[0])[0]);
            match (tokens, g.facility_snapshot(f)) {
                (Ok(tokens), Ok((dep, last, err_step))) => {
                    ui.label(format!("tokens: {tokens}"));
                    ui.label(match dep {
                        Some(t) => format!("busy, departs at {:.4}", to_units(t)),
                        None => "idle".to_string(),
                    });
                    if let Some(l) = last {
                        ui.label(format!("last arrival: {:.4}", to_units(l)));
                    }
                    ui.label(if err_step > 0 {
                        format!("latest causality error at step {err_step}")
                    } else {
                        "no causality error".into()
                    });
                    ui.small("(the GPU keeps only the step of the latest violation; the CPU engine lists them)");
                }
                (Err(e), _) | (_, Err(e)) => {
                    ui.label(e.to_string());
                }
            }
        }
        if ui.button("unpin").clicked() {
            self.pinned = None;
        }
    }

    fn central(&mut self, ui: &mut egui::Ui) {
        timeline(ui, &self.a);
        let sessions: Vec<&Session> = std::iter::once(&self.a).chain(self.b.as_ref()).collect();
        let n = sessions.len();
        let avail = ui.available_size();
        let w = (avail.x - 60.0 - 8.0 * (n as f32 - 1.0)) / n as f32;
        let mut pin = None;
        let mut views = self.views;
        ui.horizontal(|ui| {
            for (i, s) in sessions.iter().enumerate() {
                ui.vertical(|ui| {
                    ui.label(format!(
                        "{}{} on {}",
                        if n > 1 { ["A: ", "B: "][i] } else { "" },
                        algorithm_label(&s.config),
                        s.runs_on()
                    ));
                    if let Some(note) = &s.note {
                        ui.small(note);
                    }
                    if let Some(p) = heatmap_widget(
                        ui,
                        s,
                        self.mode,
                        &mut views[i],
                        egui::vec2(w.max(50.0), (avail.y - 60.0).max(50.0)),
                        i as u64,
                    ) {
                        pin = Some(p);
                    }
                });
            }
            legend(ui, &self.a, self.mode);
        });
        self.views = views;
        if pin.is_some() {
            self.pinned = pin;
        }
    }

    fn status_bar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.label(&self.gpu_note);
            ui.separator();
            ui.label(format!(
                "t = {:.3} / {}",
                to_units(self.a.now()),
                self.a.config.run.end_time
            ));
            ui.separator();
            ui.label(format!("steps {}", self.a.steps()));
            ui.separator();
            ui.label(format!("events/s {:.3e}", self.events_per_sec));
            ui.separator();
            ui.label(format!("frame {:.1} ms", self.frame_ms));
            if let SessionEngine::Gpu(g) = &self.a.engine {
                ui.separator();
                ui.label(format!(
                    "GPU memory {:.1} MiB",
                    g.memory_bytes as f64 / 1048576.0
                ));
            }
            if let Some(m) = &self.message {
                ui.separator();
                ui.label(m);
            }
        });
    }
}

fn algorithm_label(cfg: &Config) -> String {
    match cfg.run.algorithm {
        preset::Algorithm::Interval => format!("interval / {}", cfg.run.timestamps.name()),
        a => a.name().to_string(),
    }
}

/// Draws one heatmap; returns the facility clicked, if any.
fn heatmap_widget(
    ui: &mut egui::Ui,
    s: &Session,
    mode: Mode,
    view: &mut Option<View>,
    size: egui::Vec2,
    id: u64,
) -> Option<u32> {
    let (rows, cols) = (s.config.model.rows, s.config.model.cols);
    let (rect, resp) = ui.allocate_exact_size(size, egui::Sense::click_and_drag());
    let v = view.get_or_insert_with(|| View::fit(rows, cols, rect.width(), rect.height()));
    let scroll = ui.input(|i| i.smooth_scroll_delta.y);
    if resp.hovered()
        && scroll != 0.0
        && let Some(p) = resp.hover_pos()
    {
        // zoom about the pointer
        let g = v.to_grid(rect, p);
        let factor = (-scroll / 200.0).exp();
        v.span = (v.span * factor).clamp(2.0, 4.0 * rows.max(cols) as f32);
        let g2 = v.to_grid(rect, p);
        v.x0 += g.x - g2.x;
        v.y0 += g.y - g2.y;
    }
    if resp.dragged() {
        let d = resp.drag_delta() * (v.span / rect.width());
        v.x0 -= d.x;
        v.y0 -= d.y;
    }
    if resp.double_clicked() {
        *v = View::fit(rows, cols, rect.width(), rect.height());
    }
    let max_value = (s.config.model.tokens_per_facility * 4).max(4) as f32;
    match &s.display {
        Some(cells) => {
            ui.painter()
                .add(eframe::egui_wgpu::Callback::new_paint_callback(
                    rect,
                    HeatmapCallback {
                        id,
                        cells: cells.clone(),
                        rows,
                        cols,
                        mode,
                        step: s.steps() as u32,
                        view: *v,
                        aspect: rect.width() / rect.height().max(1.0),
                        max_value,
                    },
                ));
        }
        None => texture_heatmap(ui, s, mode, rect, v),
    }
    let facility_at = |p: egui::Pos2| {
        let g = v.to_grid(rect, p);
        (g.x >= 0.0 && g.y >= 0.0 && (g.x as u32) < cols && (g.y as u32) < rows)
            .then(|| g.y as u32 * cols + g.x as u32)
    };
    let mut clicked = None;
    if let Some(p) = resp.hover_pos()
        && let Some(f) = facility_at(p)
    {
        if resp.clicked() {
            clicked = Some(f);
        }
        resp.on_hover_ui_at_pointer(|ui| {
            ui.label(format!("facility ({}, {})", f / cols, f % cols));
            if let SessionEngine::Cpu(c) = &s.engine {
                let st = &c.cpu.state().facilities[f as usize];
                ui.label(format!(
                    "tokens {}",
                    st.queued + u32::from(st.serving != crate::sim::state::NONE)
                ));
                ui.label(format!("busy {}", st.serving != crate::sim::state::NONE));
                ui.label(format!("last arrival {:.4}", to_units(st.last_arrival)));
            } else {
                ui.label("click to pin and inspect");
            }
        });
    }
    clicked
}

fn legend(ui: &mut egui::Ui, s: &Session, mode: Mode) {
    let max = (s.config.model.tokens_per_facility * 4).max(4);
    ui.vertical(|ui| {
        ui.label(mode.label());
        let (rect, _) = ui.allocate_exact_size(egui::vec2(22.0, 200.0), egui::Sense::hover());
        let steps = 32;
        for i in 0..steps {
            let t = 1.0 - i as f32 / steps as f32;
            let [r, g, b] = heatmap::viridis(t);
            let y0 = rect.top() + rect.height() * i as f32 / steps as f32;
            let cell = egui::Rect::from_min_size(
                egui::pos2(rect.left(), y0),
                egui::vec2(rect.width(), rect.height() / steps as f32 + 0.5),
            );
            ui.painter().rect_filled(
                cell,
                0.0,
                egui::Color32::from_rgb((r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8),
            );
        }
        match mode {
            Mode::Tokens => ui.small(format!("0 … {max}+ tokens")),
            Mode::Busy => ui.small("yellow: busy\ndark: idle"),
            Mode::Errors => ui.small("red: causality error\nin the last 8 steps"),
        };
    });
}

/// The current window over the pending events: where the next step's bound falls.
fn timeline(ui: &mut egui::Ui, s: &Session) {
    let log: &[StepRecord] = s.engine().step_log();
    let d = s.config.run.d;
    let t = to_units(s.now());
    let (rect, _) =
        ui.allocate_exact_size(egui::vec2(ui.available_width(), 34.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, egui::Color32::from_gray(30));
    let span = (8.0 * d).max(1e-3);
    let x_of = |u: f64| rect.left() + ((u - t + span * 0.1) / span) as f32 * rect.width();
    // pending departures (CPU engines: all of them; the GPU engine keeps them on the GPU)
    if let SessionEngine::Cpu(c) = &s.engine {
        for f in c.cpu.state().facilities.iter().take(200_000) {
            if f.departure != crate::sim::state::NEVER {
                let x = x_of(to_units(f.departure));
                if x >= rect.left() && x <= rect.right() {
                    painter.vline(
                        x,
                        rect.y_range().shrink(8.0),
                        egui::Stroke::new(
                            1.0,
                            egui::Color32::from_rgba_unmultiplied(120, 200, 255, 90),
                        ),
                    );
                }
            }
        }
    }
    let (lo, hi, label) = match s.config.run.algorithm {
        preset::Algorithm::Window => (t, t + d, "window [t_min, t_min + d)"),
        preset::Algorithm::Interval => (
            t,
            (t / d).ceil() * d,
            "interval: up to the next multiple of d",
        ),
        preset::Algorithm::Sequential => (t, t, "sequential: one event at a time"),
    };
    let band = egui::Rect::from_x_y_ranges(x_of(lo)..=x_of(hi).max(x_of(lo) + 2.0), rect.y_range());
    painter.rect_filled(
        band,
        0.0,
        egui::Color32::from_rgba_unmultiplied(255, 200, 60, 60),
    );
    painter.vline(
        x_of(t),
        rect.y_range(),
        egui::Stroke::new(2.0, egui::Color32::from_rgb(255, 200, 60)),
    );
    let last = log.last().map_or(0, |r| r.events);
    painter.text(
        rect.left_top() + egui::vec2(6.0, 2.0),
        egui::Align2::LEFT_TOP,
        format!("t_min = {t:.3}   {label}   last step: {last} events"),
        egui::FontId::proportional(12.0),
        egui::Color32::LIGHT_GRAY,
    );
}

/// The heatmap without wgpu: the same words and colormap, uploaded as an egui texture
/// (the window's renderer is OpenGL then, and every engine runs on the CPU).
fn texture_heatmap(ui: &mut egui::Ui, s: &Session, mode: Mode, rect: egui::Rect, v: &View) {
    let Ok(words) = s.display_words() else { return };
    let (rows, cols) = (s.config.model.rows as usize, s.config.model.cols as usize);
    let max = (s.config.model.tokens_per_facility * 4).max(4) as f32;
    let step = s.steps() as u32;
    let pixels: Vec<egui::Color32> = words
        .iter()
        .map(|w| {
            let rgb = match mode {
                Mode::Tokens => heatmap::viridis(w[0] as f32 / max),
                Mode::Busy => {
                    if w[0] > 0 {
                        [0.99, 0.80, 0.20]
                    } else {
                        [0.12, 0.12, 0.16]
                    }
                }
                Mode::Errors => {
                    let base = heatmap::viridis(w[0] as f32 / max).map(|c| c * 0.35);
                    let flash = if w[1] > 0 && step >= w[1] {
                        (1.0 - (step - w[1]) as f32 / 8.0).max(0.0)
                    } else {
                        0.0
                    };
                    [0, 1, 2].map(|i| base[i] + ([1.0, 0.15, 0.1][i] - base[i]) * flash)
                }
            };
            egui::Color32::from_rgb(
                (rgb[0] * 255.0) as u8,
                (rgb[1] * 255.0) as u8,
                (rgb[2] * 255.0) as u8,
            )
        })
        .collect();
    let image = egui::ColorImage::new([cols, rows], pixels);
    let tex = ui
        .ctx()
        .load_texture("heatmap-cpu", image, egui::TextureOptions::NEAREST);
    // the whole grid's rectangle on screen under the current zoom and pan, clipped to `rect`
    let px = rect.width() / v.span;
    let grid = egui::Rect::from_min_size(
        rect.left_top() + egui::vec2(-v.x0 * px, -v.y0 * px),
        egui::vec2(cols as f32 * px, rows as f32 * px),
    );
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, egui::Color32::from_rgb(20, 20, 23));
    let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
    painter.image(tex.id(), grid, uv, egui::Color32::WHITE);
}
