//! The sweep view: the live run's configuration over a range of one key (d by default),
//! with seeds, run off the frame ([`Job`]) on the app's device while the window stays live;
//! each statistic against the key with 95% confidence bars and the analytic value, and the
//! d-tuning view — speed (parallel events per step) against error (distance of the first
//! statistic from its reference), one point per value, the Pareto front drawn. Clicking a
//! point, or its button, sets that value in the live run.

use super::sweep_plots::{SweepAxis, statistic_plot, tuning_plot};
pub use super::sweep_plots::{pareto_front, value_label};
use crate::kit::files;
use crate::kit::jobs::{Job, Step};
use eframe::egui;
use pdes_core::stats::{Estimate, estimate};
use pdes_gpu::Gpu;
use pdes_models::preset::Config;
use pdes_runs::sweep::{RunOutput, run_seeds, spec, with_sets};
use serde_json::{Map, Value};
use std::sync::Arc;

/// One finished run: (point, seed index, summary or error).
type Finished = (usize, usize, Result<RunOutput, String>);

/// The results of a sweep, filled in as runs finish.
#[derive(Debug, Default)]
pub struct SweepResult {
    /// The swept key.
    pub key: String,
    /// Its values.
    pub xs: Vec<f64>,
    /// Per point, per seed: the run's summary once it finished.
    pub runs: Vec<Vec<Option<Map<String, Value>>>>,
    /// The model's main statistics (from the first finished run).
    pub statistics: Vec<&'static str>,
    /// Failed runs, with their parameters.
    pub failures: Vec<String>,
}

impl SweepResult {
    /// Finished runs so far.
    pub fn done(&self) -> usize {
        self.runs.iter().flatten().filter(|r| r.is_some()).count() + self.failures.len()
    }

    /// Runs in all.
    pub fn total(&self) -> usize {
        self.runs.iter().map(Vec::len).sum()
    }

    /// The estimate of `field` at point `p` over its finished seeds.
    pub fn estimate(&self, p: usize, field: &str) -> Option<Estimate> {
        let xs: Vec<f64> = self.runs[p]
            .iter()
            .flatten()
            .filter_map(|r| r.get(field)?.as_f64())
            .collect();
        (!xs.is_empty()).then(|| estimate(&xs))
    }

    /// The exact value of `stat` at point `p`: the model's analytic value, or that of the
    /// same model with exponential service (what shifted service departs from).
    pub fn reference(&self, p: usize, stat: &str) -> Option<f64> {
        pdes_runs::sweep::reference_fields(stat)
            .iter()
            .find_map(|k| self.estimate(p, k))
            .map(|e| e.mean)
    }

    /// The finished runs as CSV: point, seed index, the swept key, then every summary field
    /// (in the first run's order).
    pub fn csv(&self) -> String {
        let fields: Vec<String> = self
            .runs
            .iter()
            .flatten()
            .flatten()
            .next()
            .map(|f| f.keys().cloned().collect())
            .unwrap_or_default();
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header = vec!["point".to_string(), "seed_index".into(), self.key.clone()];
        header.extend(fields.iter().cloned());
        let _ = w.write_record(&header);
        for (p, seeds) in self.runs.iter().enumerate() {
            for (s, run) in seeds.iter().enumerate() {
                let Some(f) = run else { continue };
                let mut row = vec![p.to_string(), s.to_string(), self.xs[p].to_string()];
                row.extend(fields.iter().map(|k| match f.get(k) {
                    Some(Value::String(v)) => v.clone(),
                    Some(Value::Null) | None => String::new(),
                    Some(v) => v.to_string(),
                }));
                let _ = w.write_record(&row);
            }
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// Draws `stat` against the key (95% bars, exact value dashed) into a PNG or SVG.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn figure(&self, stat: &str, log_x: bool, path: &std::path::Path) -> Result<(), String> {
        self.with_figure(stat, log_x, |fig| pdes_runs::sweep::plot::draw(fig, path))
    }

    /// The same figure as SVG text (the browser's download).
    pub fn figure_svg(&self, stat: &str, log_x: bool) -> Result<String, String> {
        self.with_figure(stat, log_x, pdes_runs::sweep::plot::svg)
    }

    fn with_figure<R>(
        &self,
        stat: &str,
        log_x: bool,
        draw: impl FnOnce(&pdes_runs::sweep::plot::Figure) -> R,
    ) -> R {
        let mut points = Vec::new();
        let mut reference = Vec::new();
        for (p, &x) in self.xs.iter().enumerate() {
            if let Some(e) = self.estimate(p, stat) {
                points.push((x, e.mean, e.ci95));
            }
            if let Some(a) = self.reference(p, stat) {
                reference.push((x, a));
            }
        }
        let title = format!("{stat} against {}", self.key);
        draw(&pdes_runs::sweep::plot::Figure {
            title: &title,
            x_label: &self.key,
            y_label: stat,
            log_x,
            reference_label: "exact (exponential service)",
            series: vec![pdes_runs::sweep::plot::Series {
                label: String::new(),
                points,
                reference,
            }],
        })
    }

    /// The d-tuning points: (point, error of `stat`, speed), where the error is the
    /// distance from the exact value ([`SweepResult::reference`]) when the model has one,
    /// else from the value at the smallest swept value (the run closest to sequential), and
    /// the speed is the mean number of events per step.
    pub fn tuning(&self, stat: &str) -> Vec<(usize, f64, f64)> {
        let smallest = (0..self.xs.len())
            .filter(|&p| self.estimate(p, stat).is_some())
            .min_by(|&a, &b| self.xs[a].total_cmp(&self.xs[b]));
        let Some(base) = smallest.and_then(|p| self.estimate(p, stat)) else {
            return Vec::new();
        };
        (0..self.xs.len())
            .filter_map(|p| {
                let y = self.estimate(p, stat)?.mean;
                let reference = self.reference(p, stat).unwrap_or(base.mean);
                let speed = self.estimate(p, "mean_events_per_step")?.mean;
                Some((p, (y - reference).abs(), speed))
            })
            .collect()
    }
}

/// The sweep tab's state: its settings and the current sweep.
pub struct SweepView {
    /// The swept key (a key of the live run's model).
    pub key: String,
    /// First value.
    pub from: f64,
    /// Last value.
    pub to: f64,
    /// Values.
    pub points: usize,
    /// Logarithmic spacing.
    pub log: bool,
    /// Seeds per value.
    pub seeds: u32,
    /// The results.
    pub result: Option<SweepResult>,
    /// Why the last sweep could not start.
    pub error: Option<String>,
    /// What the last export did.
    pub message: Option<String>,
    /// "Recommend d": the d advisor on the live run.
    pub advisor: super::advisor::AdvisorView,
    running: Option<Job<Finished>>,
}

impl Default for SweepView {
    fn default() -> Self {
        Self {
            key: "run.d".into(),
            from: 0.25,
            to: 4.0,
            points: 8,
            log: true,
            seeds: 3,
            result: None,
            error: None,
            message: None,
            advisor: super::advisor::AdvisorView::default(),
            running: None,
        }
    }
}

impl SweepView {
    /// True while runs are in flight.
    pub fn running(&self) -> bool {
        self.running.is_some()
    }

    /// Starts a sweep of `base` (the live run's configuration) in the background; `gpu` is
    /// the app's device for GPU engines.
    pub fn start(&mut self, base: &Config, gpu: Option<Arc<Gpu>>) {
        self.stop();
        self.error = None;
        let info = base.model_info();
        let spec_text = format!(
            "{}={}:{}:{}{}",
            self.key,
            self.from,
            self.to,
            self.points,
            if self.log { ":log" } else { "" }
        );
        let vary = match spec::parse_vary(&spec_text, info.keys) {
            Ok(v) => v,
            Err(e) => {
                self.error = Some(e.to_string());
                return;
            }
        };
        let has_seed = info.has_key("run.seed");
        let seeds = if has_seed { self.seeds.max(1) } else { 1 } as usize;
        let base_seed = pdes_runs::sweep::first_seed(&base.to_toml("").parse().unwrap_or_default());
        let xs: Vec<f64> = vary
            .values
            .iter()
            .map(|v| {
                v.as_float()
                    .or_else(|| v.as_integer().map(|i| i as f64))
                    .unwrap_or(f64::NAN)
            })
            .collect();
        self.result = Some(SweepResult {
            key: self.key.clone(),
            xs,
            runs: vec![vec![None; seeds]; vary.values.len()],
            ..Default::default()
        });
        let base = base.clone();
        let seed_values: Vec<Option<i64>> = (0..seeds)
            .map(|s| has_seed.then_some(base_seed + s as i64))
            .collect();
        // a point's seeds together where a GPU engine can run them as one batch; one seed
        // per step otherwise (the CPU runs them one after another anyway, and in a browser
        // tab a step must fit in a frame's share)
        let per_step = if gpu.is_some() { seeds } else { 1 };
        let (mut point, mut first) = (0, 0);
        let step: Step<Finished> = Box::new(move |emit| {
            let Some(v) = vary.values.get(point) else {
                return false;
            };
            let these = &seed_values[first..(first + per_step).min(seeds)];
            let sets = [format!("{}={}", vary.key, spec::set_value(v))];
            let results = match with_sets(&base, &sets) {
                Ok(c) => run_seeds(&c, these, gpu.clone()),
                Err(e) => vec![Err(e); these.len()],
            };
            for (i, r) in results.into_iter().enumerate() {
                emit((point, first + i, r));
            }
            first += these.len();
            if first >= seeds {
                (point, first) = (point + 1, 0);
            }
            point < vary.values.len()
        });
        match Job::start(step) {
            Ok(job) => self.running = Some(job),
            Err(e) => self.error = Some(e),
        }
    }

    /// Stops the sweep in flight (its finished runs stay).
    pub fn stop(&mut self) {
        if let Some(mut job) = self.running.take() {
            job.cancel();
        }
    }

    /// Takes the runs that finished since the last frame (the sweep's and the advisor's);
    /// true while either goes on.
    pub fn poll(&mut self) -> bool {
        self.advisor.poll() | self.poll_sweep()
    }

    fn poll_sweep(&mut self) -> bool {
        let Some(job) = self.running.as_mut() else {
            return false;
        };
        let Some(res) = self.result.as_mut() else {
            return false;
        };
        job.pump();
        while let Ok(Some((p, s, r))) = job.try_next() {
            match r {
                Ok((fields, stats)) => {
                    if res.statistics.is_empty() {
                        res.statistics = stats;
                    }
                    res.runs[p][s] = Some(fields);
                }
                Err(e) => res
                    .failures
                    .push(format!("{} = {} seed {s}: {e}", res.key, res.xs[p])),
            }
        }
        if res.done() >= res.total() {
            self.running = None;
            return false;
        }
        true
    }

    /// The tab: settings, the d advisor, progress, plots. Returns the key and value to set
    /// in the live run when the user picks one.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        live: &Config,
        gpu: Option<Arc<Gpu>>,
    ) -> Option<(String, f64)> {
        self.settings(ui, live, gpu.clone());
        if live.model_info().has_key("run.d") {
            let metrics: Vec<&str> = match &self.result {
                Some(r) if !r.statistics.is_empty() => r.statistics.clone(),
                _ => vec!["utilization", "mean_sojourn"],
            };
            if let Some(d) = self.advisor.show(ui, live, &metrics, gpu) {
                // the live run takes d, as a picked sweep value does
                return Some(("run.d".into(), d));
            }
            ui.separator();
        }
        if let Some(e) = &self.error {
            ui.colored_label(egui::Color32::from_rgb(230, 90, 90), e);
        }
        let Some(res) = &self.result else {
            ui.label("Pick a key and a range, then Run sweep: each statistic against the key, and speed against error for choosing d.");
            return None;
        };
        ui.label(format!(
            "{} of {} runs{}{}",
            res.done(),
            res.total(),
            if self.running.is_some() {
                " — running"
            } else {
                ""
            },
            if res.failures.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} failed (first: {})",
                    res.failures.len(),
                    res.failures[0]
                )
            }
        ));
        self.export_buttons(ui);
        self.plots(ui).map(|v| (self.key.clone(), v))
    }

    /// The settings row: the key (among the live configuration's numbers), the range, the
    /// points, log, the seeds, and Run or Stop.
    fn settings(&mut self, ui: &mut egui::Ui, live: &Config, gpu: Option<Arc<Gpu>>) {
        // the live configuration's values, parsed once per frame for every key
        let preset_table: toml::Table = live.to_toml("").parse().unwrap_or_default();
        let keys: Vec<&'static str> = live
            .model_info()
            .key_names()
            .filter(|k| numeric_key(&preset_table, k))
            .collect();
        // wrapped: on an 800-pixel window the row is wider than the view, and Run sweep
        // must not fall off its edge
        ui.horizontal_wrapped(|ui| {
            egui::ComboBox::from_label("key")
                .selected_text(&self.key)
                .show_ui(ui, |ui| {
                    for k in &keys {
                        ui.selectable_value(&mut self.key, k.to_string(), *k);
                    }
                })
                .response
                .on_hover_text("The key to sweep: every other value is the live run's.");
            ui.label("from");
            ui.add(egui::DragValue::new(&mut self.from).speed(0.01));
            ui.label("to");
            ui.add(egui::DragValue::new(&mut self.to).speed(0.01));
            ui.label("points");
            ui.add(egui::DragValue::new(&mut self.points).range(1..=64));
            ui.checkbox(&mut self.log, "log");
            ui.label("seeds");
            ui.add(egui::DragValue::new(&mut self.seeds).range(1..=50));
            if self.running() {
                if ui.button("Stop").clicked() {
                    self.stop();
                }
            } else if ui
                .button("Run sweep")
                .on_hover_text("Runs the live configuration at every value, in the background; the plots fill in as runs finish.")
                .clicked()
            {
                self.start(live, gpu);
            }
        });
    }

    /// Export CSV… and Export figure…, each through a save dialog, with what happened.
    fn export_buttons(&mut self, ui: &mut egui::Ui) {
        let Some(res) = &self.result else {
            return;
        };
        let mut export = None;
        ui.horizontal_wrapped(|ui| {
            if ui.button("Export CSV…").on_hover_text("Every finished run with its whole summary.").clicked() {
                export = Some(false);
            }
            if ui.button("Export figure…").on_hover_text("The first statistic against the key, as PNG or SVG (95% bars, exact value dashed).").clicked() {
                export = Some(true);
            }
            if let Some(m) = &self.message {
                ui.label(m);
            }
        });
        if let Some(figure) = export {
            let stat = res.statistics.first().copied().unwrap_or("utilization");
            self.message = Some(if figure {
                Self::save_figure(res, stat, self.log)
            } else {
                files::save("pdes-sweep.csv", "CSV", &["csv"], res.csv().as_bytes())
                    .message("sweep")
            });
        }
    }

    /// Export figure…: PNG or SVG by the name chosen in the save dialog.
    #[cfg(not(target_arch = "wasm32"))]
    fn save_figure(res: &SweepResult, stat: &str, log: bool) -> String {
        let Some(path) = rfd::FileDialog::new()
            .set_file_name("pdes-sweep.png")
            .save_file()
        else {
            return files::Saved::Cancelled.message("figure");
        };
        match res.figure(stat, log, &path) {
            Ok(()) => format!("wrote {}", path.display()),
            Err(e) => format!("could not write {}: {e}", path.display()),
        }
    }

    /// Export figure…: an SVG download (a page has no file system to draw a PNG into).
    #[cfg(target_arch = "wasm32")]
    fn save_figure(res: &SweepResult, stat: &str, log: bool) -> String {
        match res.figure_svg(stat, log) {
            Ok(svg) => {
                files::save("pdes-sweep.svg", "SVG", &["svg"], svg.as_bytes()).message("figure")
            }
            Err(e) => format!("figure: could not draw it: {e}"),
        }
    }

    /// Each statistic against the key, and the tuning plot. Returns the value to set in
    /// the live run when the user picks one.
    fn plots(&self, ui: &mut egui::Ui) -> Option<f64> {
        let mut picked = None;
        let Some(res) = &self.result else {
            return None;
        };
        let stats: Vec<&str> = res.statistics.iter().copied().take(2).collect();
        let n_plots = stats.len() + 1;
        let w = (ui.available_width() - 12.0 * n_plots as f32) / n_plots as f32;
        // room below for the tuning view's buttons
        let h = (ui.available_height() - 100.0).max(120.0);
        let axis = SweepAxis {
            log: self.log && res.xs.iter().all(|&x| x > 0.0),
        };
        ui.horizontal(|ui| {
            for stat in &stats {
                statistic_plot(ui, res, stat, [w, h], axis);
            }
            if let Some(stat) = stats.first() {
                picked = tuning_plot(ui, res, stat, [w, h]);
            }
        });
        picked
    }
}

/// True when `key` holds a number in `table` (a configuration's preset table): what can
/// be swept along an axis (the seed is not).
fn numeric_key(table: &toml::Table, key: &str) -> bool {
    let Some((section, name)) = key.split_once('.') else {
        return false;
    };
    key != "run.seed"
        && table
            .get(section)
            .and_then(|t| t.get(name))
            .is_some_and(|v| v.is_float() || v.is_integer())
}
