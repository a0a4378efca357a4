//! The sweep view: the live run's configuration over a range of one key (d by default),
//! with seeds, run in a background thread on the app's device while the window stays live;
//! each statistic against the key with 95% confidence bars and the analytic value, and the
//! d-tuning view — speed (parallel events per step) against error (distance of the first
//! statistic from its reference), one point per value, the Pareto front drawn. Clicking a
//! point, or its button, sets that value in the live run.

use eframe::egui;
use egui_plot::{AxisHints, GridInput, GridMark, Legend, Line, Plot, PlotPoints, Points};
use pdes_core::stats::{Estimate, estimate};
use pdes_gpu::Gpu;
use pdes_models::preset::Config;
use pdes_runs::sweep::{RunOutput, run_seeds, spec, with_sets};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};

/// One finished run: (point, seed index, summary or error).
type Finished = (usize, usize, Result<RunOutput, String>);

/// A sweep in progress.
struct Running {
    rx: Receiver<Finished>,
    cancel: Arc<AtomicBool>,
}

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
    pub fn figure(&self, stat: &str, log_x: bool, path: &std::path::Path) -> Result<(), String> {
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
        pdes_runs::sweep::plot::draw(
            &pdes_runs::sweep::plot::Figure {
                title: &title,
                x_label: &self.key,
                y_label: stat,
                log_x,
                series: vec![pdes_runs::sweep::plot::Series {
                    label: String::new(),
                    points,
                    reference,
                }],
            },
            path,
        )
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

/// The points of `pts` (error, speed) that no other point beats on both (less error and
/// more speed), by increasing error.
pub fn pareto_front(pts: &[(usize, f64, f64)]) -> Vec<(usize, f64, f64)> {
    let mut front: Vec<(usize, f64, f64)> = pts
        .iter()
        .copied()
        .filter(|&(_, e, s)| {
            !pts.iter()
                .any(|&(_, e2, s2)| e2 <= e && s2 >= s && (e2 < e || s2 > s))
        })
        .collect();
    front.sort_by(|a, b| a.1.total_cmp(&b.1));
    front
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
    running: Option<Running>,
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
        let has_seed = info.keys.contains(&"run.seed");
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
        let (tx, rx) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let stop = cancel.clone();
        let base = base.clone();
        std::thread::spawn(move || {
            let seed_values: Vec<Option<i64>> = (0..seeds)
                .map(|s| has_seed.then_some(base_seed + s as i64))
                .collect();
            for (p, v) in vary.values.iter().enumerate() {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let sets = [format!("{}={}", vary.key, spec::set_value(v))];
                // a point's seeds together: one GPU engine for all where the model can
                let results = match with_sets(&base, &sets) {
                    Ok(c) => run_seeds(&c, &seed_values, gpu.clone()),
                    Err(e) => vec![Err(e); seeds],
                };
                for (s, r) in results.into_iter().enumerate() {
                    if tx.send((p, s, r)).is_err() {
                        return;
                    }
                }
            }
        });
        self.running = Some(Running { rx, cancel });
    }

    /// Stops the sweep in flight (its finished runs stay).
    pub fn stop(&mut self) {
        if let Some(r) = self.running.take() {
            r.cancel.store(true, Ordering::Relaxed);
        }
    }

    /// Takes the runs that finished since the last frame; true while the sweep goes on.
    pub fn poll(&mut self) -> bool {
        let Some(run) = &self.running else {
            return false;
        };
        let Some(res) = self.result.as_mut() else {
            return false;
        };
        while let Ok((p, s, r)) = run.rx.try_recv() {
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

    /// The tab: settings, progress, plots. Returns the value to set in the live run when the
    /// user picks one.
    pub fn show(&mut self, ui: &mut egui::Ui, live: &Config, gpu: Option<Arc<Gpu>>) -> Option<f64> {
        let mut picked = None;
        // the live configuration's values, parsed once per frame for every key
        let preset_table: toml::Table = live.to_toml("").parse().unwrap_or_default();
        let keys: Vec<&'static str> = live
            .model_info()
            .keys
            .iter()
            .copied()
            .filter(|k| numeric_key(&preset_table, k))
            .collect();
        ui.horizontal(|ui| {
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
        let mut export = None;
        ui.horizontal(|ui| {
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
            let name = if figure {
                "pdes-sweep.png"
            } else {
                "pdes-sweep.csv"
            };
            if let Some(path) = rfd::FileDialog::new().set_file_name(name).save_file() {
                let written = if figure {
                    let stat = res.statistics.first().copied().unwrap_or("utilization");
                    res.figure(stat, self.log, &path)
                } else {
                    pdes_runs::output::write_atomically(&path, &res.csv())
                        .map_err(|e| e.to_string())
                };
                self.message = Some(match written {
                    Ok(()) => format!("wrote {}", path.display()),
                    Err(e) => format!("could not write {}: {e}", path.display()),
                });
            }
        }
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

/// The swept key's axis in the sweep plots: in log10 units when the sweep is logarithmic,
/// its labels then reading the key's own values on a 1–2–5 scale (0.2, 0.5, 1, 2, 5, …).
/// Labels may stand 30 points apart: egui_plot's default of 60 left a 0…8 axis of a
/// 260-point plot with the single label 0.
#[derive(Clone, Copy, Debug)]
struct SweepAxis {
    log: bool,
}

impl SweepAxis {
    /// Where a swept value lies on the axis.
    fn x(self, v: f64) -> f64 {
        if self.log { v.log10() } else { v }
    }

    /// The plot with this axis's labels, grid and spacing.
    fn apply<'a>(self, plot: Plot<'a>, key: &str) -> Plot<'a> {
        let plot = plot.custom_x_axes(vec![
            AxisHints::new_x()
                .label(key.to_string())
                .label_spacing(30.0..=60.0)
                .formatter(move |mark, _| {
                    let v = if self.log {
                        10f64.powf(mark.value)
                    } else {
                        mark.value
                    };
                    pdes_runs::sweep::plot::tick_label(v)
                }),
        ]);
        if self.log {
            plot.x_grid_spacer(log_marks)
        } else {
            plot
        }
    }
}

/// Grid marks of a log10 axis at 1, 2 and 5 times each power of ten in view (the powers
/// of ten a decade apart, the others ~0.3 decades), so that labels appear as room allows.
fn log_marks(input: GridInput) -> Vec<GridMark> {
    let (lo, hi) = input.bounds;
    let mut marks = Vec::new();
    for decade in (lo.floor() as i32 - 1)..=(hi.ceil() as i32) {
        for (m, step_size) in [(1.0, 1.0), (2.0, 0.3), (5.0, 0.3)] {
            let value = (m * 10f64.powi(decade)).log10();
            if (lo..=hi).contains(&value) {
                marks.push(GridMark { value, step_size });
            }
        }
    }
    marks
}

/// A statistic against the swept key: means with 95% bars, the analytic value dashed.
fn statistic_plot(
    ui: &mut egui::Ui,
    res: &SweepResult,
    stat: &str,
    [w, h]: [f32; 2],
    axis: SweepAxis,
) {
    ui.vertical(|ui| {
        ui.label(format!("{stat} against {}", res.key))
            .on_hover_text("Mean over the seeds with its 95% confidence interval; dashed: the model's exact value where it has one (exponential service).");
        axis.apply(Plot::new(format!("sweep {stat}")), &res.key)
            .width(w)
            .height(h)
            .legend(Legend::default())
            .y_axis_label(stat.to_string())
            .show(ui, |p| {
                let mut pts = Vec::new();
                let mut reference = Vec::new();
                for (i, &v) in res.xs.iter().enumerate() {
                    let x = axis.x(v);
                    if let Some(e) = res.estimate(i, stat) {
                        pts.push([x, e.mean]);
                        if let Some(c) = e.ci95 {
                            p.line(
                                Line::new("", PlotPoints::from(vec![[x, e.mean - c], [x, e.mean + c]]))
                                    .color(egui::Color32::from_rgb(120, 170, 230)),
                            );
                        }
                    }
                    if let Some(a) = res.reference(i, stat) {
                        reference.push([x, a]);
                    }
                }
                p.line(Line::new("mean", PlotPoints::from(pts.clone())));
                p.points(Points::new("runs", PlotPoints::from(pts)).radius(3.0));
                if reference.len() > 1 {
                    p.line(
                        Line::new("exact (exponential)", PlotPoints::from(reference))
                            .style(egui_plot::LineStyle::dashed_loose()),
                    );
                }
            });
    });
}

/// Speed against error, one point per swept value, the Pareto front drawn; a click picks
/// the nearest point's value.
fn tuning_plot(ui: &mut egui::Ui, res: &SweepResult, stat: &str, [w, h]: [f32; 2]) -> Option<f64> {
    let pts = res.tuning(stat);
    let front = pareto_front(&pts);
    let mut picked = None;
    ui.vertical(|ui| {
        ui.label("speed against error (choose d here)").on_hover_text(format!(
            "Each point is one value of {}: right means more events per step run in parallel (faster), up means a larger error in {stat} (distance from the exact value, or from the smallest {} swept). The line joins the points no other point beats on both: pick one on it. Click a point to set its value in the live run.",
            res.key, res.key
        ));
        let linear = SweepAxis { log: false };
        let response = linear
            .apply(Plot::new("sweep tuning"), "parallel events per step")
            .width(w)
            .height(h)
            .legend(Legend::default())
            .y_axis_label(format!("|{stat} error|"))
            .show(ui, |p| {
                p.points(
                    Points::new(
                        res.key.clone(),
                        PlotPoints::from(pts.iter().map(|&(_, e, s)| [s, e]).collect::<Vec<_>>()),
                    )
                    .radius(4.0),
                );
                p.line(
                    Line::new(
                        "Pareto front",
                        PlotPoints::from(front.iter().map(|&(_, e, s)| [s, e]).collect::<Vec<_>>()),
                    )
                    .color(egui::Color32::from_rgb(240, 180, 80)),
                );
                p.pointer_coordinate()
            });
        if response.response.clicked()
            && let Some(c) = response.inner
        {
            picked = nearest(&pts, c.x, c.y).map(|p| res.xs[p]);
        }
        ui.horizontal_wrapped(|ui| {
            // at most six buttons, spread along the front
            let step = front.len().div_ceil(6).max(1);
            for &(p, _, _) in front.iter().step_by(step) {
                if ui
                    .small_button(format!("use {} = {}", res.key, value_label(res.xs[p])))
                    .on_hover_text("Set this value in the live run (a point on the Pareto front).")
                    .clicked()
                {
                    picked = Some(res.xs[p]);
                }
            }
        });
    });
    picked
}

/// A swept value as the buttons show it: 4 significant digits.
pub fn value_label(x: f64) -> String {
    let v: f64 = format!("{x:.3e}").parse().unwrap_or(x);
    v.to_string()
}

/// The point of `pts` (error, speed) nearest to (speed x, error y), in plot proportions.
fn nearest(pts: &[(usize, f64, f64)], x: f64, y: f64) -> Option<usize> {
    let (sx, sy) = pts.iter().fold((1e-12f64, 1e-12f64), |(a, b), &(_, e, s)| {
        (a.max(s.abs()), b.max(e.abs()))
    });
    pts.iter()
        .min_by(|a, b| {
            let da = ((a.2 - x) / sx).powi(2) + ((a.1 - y) / sy).powi(2);
            let db = ((b.2 - x) / sx).powi(2) + ((b.1 - y) / sy).powi(2);
            da.total_cmp(&db)
        })
        .map(|p| p.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log sweep from 0.25 to 8 gets marks at 0.5, 1, 2 and 5 (and no other), placed in
    /// log10 units, the power of ten marked as the coarser step.
    #[test]
    fn a_log_axis_is_marked_at_one_two_and_five_times_the_powers_of_ten() {
        let axis = SweepAxis { log: true };
        let marks = log_marks(GridInput {
            bounds: (axis.x(0.25), axis.x(8.0)),
            base_step_size: 0.01,
        });
        let values: Vec<f64> = marks.iter().map(|m| 10f64.powf(m.value)).collect();
        let expected = [0.5, 1.0, 2.0, 5.0];
        assert_eq!(values.len(), expected.len(), "{values:?}");
        for (v, e) in values.iter().zip(expected) {
            assert!((v - e).abs() < 1e-9, "{values:?}");
        }
        let decade = marks.iter().find(|m| m.value == 0.0).expect("1 is marked");
        assert!(decade.step_size > marks[0].step_size);
        assert_eq!(SweepAxis { log: false }.x(8.0), 8.0);
    }

    #[test]
    fn the_front_keeps_the_points_nothing_beats() {
        let pts = [
            (0, 0.01, 2.0),
            (1, 0.02, 4.0),
            (2, 0.03, 3.0),
            (3, 0.05, 8.0),
        ];
        let f: Vec<usize> = pareto_front(&pts).iter().map(|p| p.0).collect();
        assert_eq!(f, vec![0, 1, 3]);
    }
}
