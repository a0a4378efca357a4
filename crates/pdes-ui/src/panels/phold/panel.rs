//! PHOLD in the window: the LPs as a square heatmap of events processed, plots of events
//! per step and of the event rate per LP against its long-run value, monitors, and the
//! model's part of the left panel.

use crate::kit::form::{AlgorithmChoice, ModelForm, preset_table};
use crate::kit::heatmap::Mode;
use crate::kit::plots::{per_interval, plot_series};
use crate::kit::session::Session;
use eframe::egui;
use pdes_models::phold::config::PholdConfig;
use pdes_models::phold::cpu::CpuPhold;
use pdes_models::phold::gpu::GpuPhold;
use pdes_models::preset::Config;

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
    // twice the mean events per LP so far: the spread around the mean stays visible
    let events = s.engine().totals().events as f64;
    let lps = s
        .config
        .get::<PholdConfig>()
        .map_or(1.0, |c| f64::from(c.lps));
    (0.0, ((2.0 * events / lps).ceil() as f32).max(4.0))
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
        Monitor::new("events", events, "Events processed so far (all LPs)."),
    ]
}

/// PHOLD's panel in the registry.
pub const PANEL: crate::panels::Panel = crate::panels::Panel {
    hover,
    inspector,
    timeline: None,
    form,
    modes: &[Mode::Tokens],
    colour_range,
    work_label: "events",
    count_label: "events at the LP",
    count_mode: "events per LP",
    plots,
    monitors,
    violations: crate::kit::violation::none,
    max_steps_per_second: None,
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

    fn clone_box(&self) -> Box<dyn ModelForm> {
        Box::new(self.clone())
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
