//! "Recommend d" in the Sweep view (issue 55 §5): `pdes-lab tune` on the live run's
//! configuration, as a background job a run per step (`pdes_runs::tune::Tuner`), then the
//! advice in words, the grid (parallel events against the metric's bias with its 95%
//! interval, the tolerance band and the front of the points within it), and a button that
//! takes the recommended d into the live run.

use crate::kit::jobs::{Job, Step};
use eframe::egui;
use egui_plot::{Line, Plot, PlotPoints, Points};
use pdes_gpu::Gpu;
use pdes_models::preset::Config;
use pdes_runs::tune::{Advice, TuneSpec, Tuner};
use std::sync::Arc;

/// What the advisor's job tells the window.
enum Said {
    /// A line of progress, with (runs done, runs in all).
    Progress(Option<String>, (usize, usize)),
    /// The advice, or why there is none.
    Done(Result<Advice, String>),
}

/// The advisor's settings and its last advice.
pub struct AdvisorView {
    /// The statistic judged.
    pub metric: String,
    /// The bias allowed, in percent of the reference.
    pub tolerance_percent: f64,
    /// Seeds per d.
    pub seeds: u32,
    /// The last advice, or why there is none.
    pub advice: Option<Result<Advice, String>>,
    progress: (usize, usize),
    lines: Vec<String>,
    job: Option<Job<Said>>,
}

impl Default for AdvisorView {
    fn default() -> Self {
        Self {
            metric: "utilization".into(),
            tolerance_percent: 1.0,
            seeds: 5,
            advice: None,
            progress: (0, 0),
            lines: Vec::new(),
            job: None,
        }
    }
}

impl AdvisorView {
    /// True while the advisor runs.
    pub fn running(&self) -> bool {
        self.job.is_some()
    }

    /// Starts the advisor on `live` (its d, its seeds replaced).
    pub fn start(&mut self, live: &Config, gpu: Option<Arc<Gpu>>) {
        self.stop();
        self.advice = None;
        self.lines.clear();
        self.progress = (0, 0);
        let spec = TuneSpec {
            config: live.clone(),
            metric: self.metric.clone(),
            tolerance: self.tolerance_percent / 100.0,
            seeds: self.seeds.max(2),
            points: 8,
        };
        let mut tuner: Option<Tuner> = None;
        let step: Step<Said> = Box::new(move |emit| {
            if tuner.is_none() {
                match Tuner::new(&spec, gpu.clone()) {
                    Ok(t) => tuner = Some(t),
                    Err(e) => {
                        emit(Said::Done(Err(e)));
                        return false;
                    }
                }
            }
            let Some(t) = tuner.as_mut() else {
                return false;
            };
            match t.step() {
                Err(e) => {
                    emit(Said::Done(Err(e)));
                    false
                }
                Ok(line) => {
                    emit(Said::Progress(line, t.progress()));
                    if t.finished() {
                        emit(Said::Done(t.advice()));
                        return false;
                    }
                    true
                }
            }
        });
        match Job::start(step) {
            Ok(job) => self.job = Some(job),
            Err(e) => self.advice = Some(Err(e)),
        }
    }

    /// Stops the advisor.
    pub fn stop(&mut self) {
        if let Some(mut job) = self.job.take() {
            job.cancel();
        }
    }

    /// Takes what the job said since the last frame; true while it runs.
    pub fn poll(&mut self) -> bool {
        let Some(job) = self.job.as_mut() else {
            return false;
        };
        job.pump();
        let mut done = false;
        while let Ok(Some(said)) = job.try_next() {
            match said {
                Said::Progress(line, progress) => {
                    self.progress = progress;
                    self.lines.extend(line);
                }
                Said::Done(advice) => {
                    self.advice = Some(advice);
                    done = true;
                }
            }
        }
        if done {
            self.job = None;
        }
        !done
    }

    /// The advisor's part of the Sweep view; returns the d to take into the live run.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        live: &Config,
        metrics: &[&str],
        gpu: Option<Arc<Gpu>>,
    ) -> Option<f64> {
        let mut picked = None;
        ui.horizontal_wrapped(|ui| {
            ui.strong("d advisor:");
            egui::ComboBox::from_id_salt("advisor metric")
                .selected_text(&self.metric)
                .show_ui(ui, |ui| {
                    for m in metrics {
                        ui.selectable_value(&mut self.metric, m.to_string(), *m);
                    }
                });
            ui.label("within");
            ui.add(
                egui::DragValue::new(&mut self.tolerance_percent)
                    .range(0.01..=50.0)
                    .speed(0.05)
                    .suffix(" %"),
            );
            ui.label("seeds");
            ui.add(egui::DragValue::new(&mut self.seeds).range(2..=50));
            if self.running() {
                ui.label(format!("{} of {} runs", self.progress.0, self.progress.1));
                if ui.button("Stop").clicked() {
                    self.stop();
                }
            } else if ui
                .button("Recommend d")
                .on_hover_text("pdes-lab tune on the live run: d over a log grid up to the largest valid d, the same seeds at each; the largest d whose bias stays within the tolerance with 95% confidence (against the exact value, or sequential runs of the same seeds).")
                .clicked()
            {
                self.start(live, gpu);
            }
        });
        if let Some(last) = self.lines.last().filter(|_| self.running()) {
            ui.small(last);
        }
        match &self.advice {
            Some(Err(e)) => {
                ui.colored_label(egui::Color32::from_rgb(230, 90, 90), e);
            }
            Some(Ok(a)) => {
                ui.horizontal_wrapped(|ui| {
                    ui.label(egui::RichText::new(&a.advice).strong());
                    if let Some(d) = a.recommended_d
                        && ui.button(format!("Use d = {}", short(d))).clicked()
                    {
                        picked = Some(d);
                    }
                });
                front_plot(ui, a);
            }
            None => {}
        }
        picked
    }
}

/// The grid's points: relative bias (%) with its 95% interval against the parallel events
/// per step; the tolerance band dashed; the points within it joined (the front: more
/// parallel events cost no more than the tolerance).
fn front_plot(ui: &mut egui::Ui, a: &Advice) {
    let reference = a
        .exact_value
        .or_else(|| a.points.first().map(|p| p.metric - p.bias))
        .unwrap_or(1.0)
        .abs()
        .max(1e-300);
    let pct = |x: f64| 100.0 * x / reference;
    let within: Vec<[f64; 2]> = a
        .points
        .iter()
        .filter(|p| p.within)
        .map(|p| [p.events_per_step, pct(p.bias)])
        .collect();
    let others: Vec<[f64; 2]> = a
        .points
        .iter()
        .filter(|p| !p.within)
        .map(|p| [p.events_per_step, pct(p.bias)])
        .collect();
    let xs = a.points.iter().map(|p| p.events_per_step);
    let (lo, hi) = (
        xs.clone().fold(f64::INFINITY, f64::min),
        xs.fold(0.0, f64::max),
    );
    let tol = 100.0 * a.tolerance;
    Plot::new("advisor front")
        .height(160.0)
        .x_axis_label("parallel events per step")
        .y_axis_label(format!("bias of {} (%)", a.metric))
        .legend(egui_plot::Legend::default())
        .show(ui, |p| {
            for sign in [-1.0, 1.0] {
                p.line(
                    Line::new(
                        "tolerance",
                        PlotPoints::from(vec![[lo, sign * tol], [hi, sign * tol]]),
                    )
                    .style(egui_plot::LineStyle::dashed_loose()),
                );
            }
            for q in &a.points {
                let (x, y, h) = (q.events_per_step, pct(q.bias), pct(q.bias_half_width));
                p.line(Line::new(
                    "95% interval",
                    PlotPoints::from(vec![[x, y - h], [x, y + h]]),
                ));
            }
            p.line(Line::new(
                "within the tolerance",
                PlotPoints::from(within.clone()),
            ));
            p.points(Points::new("within", PlotPoints::from(within)).radius(4.0));
            p.points(
                Points::new("beyond", PlotPoints::from(others))
                    .radius(4.0)
                    .color(egui::Color32::from_rgb(230, 90, 90)),
            );
        });
}

/// A d as the advice writes it (four decimals at most).
fn short(x: f64) -> String {
    format!("{}", (x * 1e4).round() / 1e4)
}
