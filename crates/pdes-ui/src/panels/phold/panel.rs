//! PHOLD in the window: the time strip (the next window over the pending events), the LPs
//! as a square heatmap of pending events with the next window's LPs outlined, plots of
//! events per step and of the event rate per LP against its long-run value, monitors, and
//! the model's part of the left panel.

use crate::kit::form::{AlgorithmChoice, ModelForm, preset_table};

use crate::kit::plots::{per_interval, plot_series};
use crate::kit::session::Session;
use eframe::egui;
use pdes_models::phold::config::PholdConfig;
use pdes_models::phold::cpu::CpuPhold;
use pdes_models::phold::gpu::GpuPhold;
use pdes_models::preset::Config;

/// Most pending events whose times the strip reads back from a GPU engine per frame.
const GPU_STRIP_EVENTS: u32 = 16_384;

/// The pending events' times the strip shows: a CPU engine's state, or a GPU engine's
/// downloaded up to [`GPU_STRIP_EVENTS`] events; none otherwise.
fn pending_times(s: &Session, cfg: &PholdConfig) -> Vec<f64> {
    let any = s.engine.as_any();
    let times = |st: &pdes_models::phold::cpu::PholdState| -> Vec<f64> {
        st.events
            .iter()
            .take(200_000)
            .map(|e| pdes_core::time::to_units(e.time))
            .collect()
    };
    if let Some(c) = any.downcast_ref::<CpuPhold>() {
        times(&c.state)
    } else if let Some(g) = any.downcast_ref::<GpuPhold>()
        && cfg.events_in_flight() <= GPU_STRIP_EVENTS
    {
        g.shown_state().map(|st| times(&st)).unwrap_or_default()
    } else {
        Vec::new()
    }
}

/// The next step over the pending events, on a time axis: the band from t_min to the
/// window's bound (its width is the lookahead), every pending event as a tick.
pub fn timeline(ui: &mut egui::Ui, s: &Session) {
    use pdes_models::phold::config::PholdAlgorithm;
    let Some(cfg) = s.config.get::<PholdConfig>() else {
        return;
    };
    let t = pdes_core::time::to_units(s.now());
    let window = cfg.algorithm == PholdAlgorithm::Window;
    let hi = if window {
        (t + cfg.lookahead).min(cfg.end_time)
    } else {
        t
    };
    let pending = pending_times(s, cfg);
    let last = s
        .engine()
        .step_log()
        .last()
        .map_or(u64::from(!window), |r| r.events);
    let gpu_note = if pending.is_empty() && s.runs_on() == "gpu" {
        format!("   (pending events: shown on the GPU up to {GPU_STRIP_EVENTS} events)")
    } else {
        String::new()
    };
    let header = if window {
        format!(
            "window [t_min, t_min + lookahead): t_min = {t:.3}, t_min + lookahead = {hi:.3}   last step: {last} events   ticks: pending events{gpu_note}"
        )
    } else {
        format!("sequential: one event at a time, t = {t:.3}   ticks: pending events{gpu_note}")
    };
    crate::kit::strip::show(
        ui,
        &crate::kit::strip::Strip {
            t,
            // the events ahead spread over about lookahead + a few means: a fixed span, so
            // that a longer lookahead is seen as a wider band
            span: (cfg.lookahead + 3.0 * cfg.mean)
                .max(3.0 * cfg.lookahead)
                .max(1e-3),
            band: (t, hi),
            pending: &pending,
            header,
            caption: if window {
                "outlined: the LPs with an event in the next window [t_min, t_min + lookahead) - they run in parallel, because every event schedules its successor at least the lookahead later: nothing inside the window can cause an earlier event anywhere"
            } else {
                "outlined: the LP of the one next event - sequential processes the earliest event, then looks again"
            },
        },
    );
}

/// LP `i`'s pending events (CPU engines): their times, earliest first.
fn lp_pending(s: &Session, i: u32) -> Option<Vec<f64>> {
    let c = s.engine.as_any().downcast_ref::<CpuPhold>()?;
    let mut t: Vec<f64> = c
        .state
        .events
        .iter()
        .filter(|e| e.lp == i)
        .map(|e| pdes_core::time::to_units(e.time))
        .collect();
    t.sort_by(f64::total_cmp);
    Some(t)
}

/// What the hover and the inspector say about LP `i`'s pending events (CPU engines).
fn pending_lines(ui: &mut egui::Ui, s: &Session, i: u32) {
    let Some(times) = lp_pending(s, i) else {
        return;
    };
    let Some(cfg) = s.config.get::<PholdConfig>() else {
        return;
    };
    match times.first() {
        None => {
            ui.label("no pending events");
        }
        Some(first) => {
            let t = pdes_core::time::to_units(s.now());
            let inside = *first < (t + cfg.lookahead).min(cfg.end_time)
                && cfg.algorithm == pdes_models::phold::config::PholdAlgorithm::Window;
            ui.label(format!(
                "{} pending, the earliest at t = {first:.4}{}",
                times.len(),
                if inside {
                    " (inside the next window)"
                } else {
                    ""
                }
            ));
        }
    }
}

/// LP `i`'s events so far (its one counter read back on the GPU).
fn lp_events(s: &Session, i: u32) -> Option<u32> {
    let any = s.engine.as_any();
    if let Some(c) = any.downcast_ref::<CpuPhold>() {
        return c.state.counts.get(i as usize).copied();
    }
    let g = any.downcast_ref::<GpuPhold>()?;
    if i >= g.config().lps {
        return None;
    }
    g.lp_events(i).ok()
}

/// The heatmap's hover text for cell `i`.
pub fn hover(ui: &mut egui::Ui, s: &Session, i: u32) {
    let Some(cfg) = s.config.get::<PholdConfig>() else {
        return;
    };
    if i >= cfg.lps {
        ui.label("(past the last LP)");
        return;
    }
    ui.label(format!("LP {i}"));
    pending_lines(ui, s, i);
    if let Some(n) = lp_events(s, i) {
        ui.label(format!("{n} events processed"));
    }
    ui.label("click to pin and inspect");
}

/// The inspector of pinned LP `i`.
pub fn inspector(ui: &mut egui::Ui, s: &Session, i: u32) {
    let Some(cfg) = s.config.get::<PholdConfig>() else {
        return;
    };
    ui.heading(format!("LP {i}"));
    if i >= cfg.lps {
        ui.label("(past the last LP)");
        return;
    }
    pending_lines(ui, s, i);
    if let Some(n) = lp_events(s, i) {
        let t = pdes_core::time::to_units(s.engine().now());
        ui.label(format!("{n} events processed by t = {t:.3}"));
        ui.label(format!(
            "long-run expectation: {:.1} (population / (lookahead + mean) per unit time)",
            cfg.event_rate_per_lp() * t
        ));
    }
    ui.label(format!(
        "Each event here schedules one more: with probability {} at an LP drawn uniformly, else here, {} + Exp({}) later.",
        cfg.remote, cfg.lookahead, cfg.mean
    ));
}

/// The plots: events per step, and events per LP per unit time.
pub fn plots(ui: &mut egui::Ui, a: &Session, b: Option<&Session>) {
    let sessions: Vec<&Session> = std::iter::once(a).chain(b).collect();
    let w = (ui.available_width() - 12.0) / 2.0;
    let h = ui.available_height() - 24.0;
    let Some(cfg) = a.config.get::<PholdConfig>().cloned() else {
        return;
    };
    ui.horizontal(|ui| {
        plot_series(
            ui,
            [w, h],
            ("events per step", "Events processed together per step: every event in [t_min, t_min + lookahead) for the window (the parallelism a GPU gets); 1 for sequential."),
            &sessions,
            |s| per_interval(s, |x| x.events as f64, |x| x.steps as f64),
            None,
        );
        let lps = f64::from(cfg.lps);
        plot_series(
            ui,
            [w, h],
            ("events per LP per unit time", "Events processed per LP per unit of simulated time, over each sample interval. Dashed: the long-run value population / (lookahead + mean)."),
            &sessions,
            move |s| {
                per_interval(s, |x| x.events as f64 / lps, |x| x.time)
            },
            Some(("long-run", cfg.event_rate_per_lp())),
        );
    });
}

fn colour_range(s: &Session) -> (f32, f32) {
    // pending events per LP: the population on average; twice it keeps the spread visible
    let population = s.config.get::<PholdConfig>().map_or(1, |c| c.population);
    (0.0, (2 * population).max(4) as f32)
}

/// The last step's messages to another LP (either engine).
fn last_step_remote(s: &Session) -> f64 {
    let any = s.engine.as_any();
    if let Some(c) = any.downcast_ref::<CpuPhold>() {
        return c.last_step_remote() as f64;
    }
    any.downcast_ref::<GpuPhold>()
        .map_or(0.0, |g| g.last_step_remote() as f64)
}

fn monitors(s: &Session) -> Vec<crate::kit::monitors::Monitor> {
    use crate::kit::monitors::{Monitor, last_step_events};
    let Some(cfg) = s.config.get::<PholdConfig>() else {
        return Vec::new();
    };
    let t = pdes_core::time::to_units(s.engine().now());
    let events = s.engine().totals().events as f64;
    let rate = if t > 0.0 {
        events / (f64::from(cfg.lps) * t)
    } else {
        0.0
    };
    vec![
        Monitor::new("events per LP per unit time", rate, "Events processed per LP per unit of simulated time so far; beside it the long-run value population / (lookahead + mean).")
            .exact("long-run", cfg.event_rate_per_lp()),
        Monitor::new("events in the last step", last_step_events(s), "Events the last step processed together: the parallelism a GPU gets."),
        Monitor::new("of them to another LP", last_step_remote(s), "Of the last step's events, those whose successor went to another LP: a remote message (with probability remote the destination is drawn uniformly from all LPs, so it may be the same one); the others stayed local. Remote or local, every successor lies at least the lookahead ahead, so both are safe inside the window."),
        Monitor::new("events", events, "Events processed so far (all LPs)."),
    ]
}

/// PHOLD's panel in the registry.
pub const PANEL: crate::panels::Panel = crate::panels::Panel {
    hover,
    inspector,
    timeline: Some(timeline),
    form,
    colour_range,
    count_label: "pending events at the LP",
    count_mode: "pending events per LP",
    plots,
    monitors,
    ..crate::panels::generic::PANEL
};

/// PHOLD's values in the controls.
#[derive(Clone, Debug, PartialEq)]
pub struct PholdForm {
    /// LPs.
    pub lps: u32,
    /// Events per LP at the start.
    pub population: u32,
    /// Probability of a remote destination.
    pub remote: f64,
    /// Least increment.
    pub lookahead: f64,
    /// Mean of the exponential part.
    pub mean: f64,
    /// Seed.
    pub seed: u64,
}

/// The registry's form constructor.
pub fn form(cfg: &Config) -> Box<dyn ModelForm> {
    // the model's defaults: a test parses them, so they cannot fail in the window
    #[allow(clippy::expect_used)]
    let c = cfg.get::<PholdConfig>().cloned().unwrap_or_else(|| {
        pdes_models::phold::config::parse(&toml::Table::new())
            .ok()
            .and_then(|c| c.get::<PholdConfig>().cloned())
            .expect("the defaults are valid")
    });
    Box::new(PholdForm {
        lps: c.lps,
        population: c.population,
        remote: c.remote,
        lookahead: c.lookahead,
        mean: c.mean,
        seed: c.seed,
    })
}

impl ModelForm for PholdForm {
    fn kind(&self) -> &'static str {
        "phold"
    }

    fn model_controls(&mut self, ui: &mut egui::Ui) -> bool {
        let mut changed = false;
        ui.label(pdes_models::phold::INFO.description)
            .on_hover_text(pdes_models::phold::INFO.about);
        egui::Grid::new("phold model").num_columns(2).show(ui, |ui| {
            let lbl = ui.label("LPs").on_hover_text("Logical processes, drawn as a square.");
            changed |= ui.add(egui::DragValue::new(&mut self.lps)).labelled_by(lbl.id).changed();
            ui.end_row();
            let lbl = ui.label("population").on_hover_text("Events per LP at the start (constant: each event schedules one).");
            changed |= ui.add(egui::DragValue::new(&mut self.population)).labelled_by(lbl.id).changed();
            ui.end_row();
            let lbl = ui.label("remote").on_hover_text("Probability that an event's successor goes to an LP drawn uniformly (else to its own LP).");
            changed |= ui.add(egui::DragValue::new(&mut self.remote).speed(0.01)).labelled_by(lbl.id).changed();
            ui.end_row();
            let lbl = ui.label("lookahead").on_hover_text("Least increment: the window's width. Larger = more events per step.");
            changed |= ui.add(egui::DragValue::new(&mut self.lookahead).speed(0.01)).labelled_by(lbl.id).changed();
            ui.end_row();
            let lbl = ui.label("mean").on_hover_text("Mean of the exponential part of the increment.");
            changed |= ui.add(egui::DragValue::new(&mut self.mean).speed(0.01)).labelled_by(lbl.id).changed();
            ui.end_row();
        });
        changed
    }

    fn run_controls(&mut self, _ui: &mut egui::Ui, _error: &mut Option<String>) -> bool {
        false
    }

    fn run_controls_after(&mut self, ui: &mut egui::Ui) -> bool {
        let lbl = ui.label("seed").on_hover_text("Every draw is a pure function of (seed, token, hop): the same seed gives the same run on every engine.");
        let changed = ui
            .add(egui::DragValue::new(&mut self.seed))
            .labelled_by(lbl.id)
            .changed();
        ui.end_row();
        changed
    }

    fn table(&self, algorithm: AlgorithmChoice, engine: &str, end_time: f64) -> toml::Table {
        let mut model = toml::Table::new();
        model.insert("kind".into(), "phold".into());
        model.insert("lps".into(), i64::from(self.lps).into());
        model.insert("population".into(), i64::from(self.population).into());
        model.insert("remote".into(), self.remote.into());
        model.insert("lookahead".into(), self.lookahead.into());
        model.insert("mean".into(), self.mean.into());
        let mut run = toml::Table::new();
        run.insert("algorithm".into(), algorithm.algorithm.into());
        run.insert("end_time".into(), end_time.into());
        run.insert(
            "seed".into(),
            (self.seed.min(i64::MAX as u64) as i64).into(),
        );
        run.insert("engine".into(), engine.into());
        preset_table(model, run)
    }
}
