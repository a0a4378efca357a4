//! The fit view (paper 003 §3 in the window): normal mixtures of k = 1..K fitted to a
//! column of numbers — a CSV opened through the file dialog or dropped on the window, the
//! shipped synthetic sample, or the live M/M/c/k run's per-replication L̂ — on a background
//! thread (the window never waits). Shown: the histogram with the chosen mixture's density
//! and its weighted components, BIC against k, and Nelder–Mead's best ln L per evaluation
//! while it runs.

use crate::kit::files::{self, Pick, Picked};
use crate::kit::jobs::{Job, Step};
use eframe::egui;
use egui_plot::{Bar, BarChart, Legend, Line, Plot, PlotPoints, Points};
use pdes_gpu::Gpu;
use pdes_models::fit::{self, Data, Fit, Search, SearchLoop};
use std::sync::Arc;

/// One row's cell of the BIC table for a fit.
type Cell<'a> = dyn Fn(&Fit) -> String + 'a;

/// What the worker sends: k's best ln L after each round since the last such message, a
/// finished fit, or the error that stopped it.
enum Message {
    Progress(usize, Vec<f64>),
    Done(Fit),
    Failed(String),
}

/// The fit view's state.
#[derive(Default)]
pub struct FitView {
    /// The data and where it came from.
    data: Option<(Data, String)>,
    /// Largest k.
    pub max_components: usize,
    /// Evaluate on the GPU (f32).
    pub on_gpu: bool,
    fits: Vec<Fit>,
    /// Best ln L after each round, of every k begun: (k, values).
    progress: Vec<(usize, Vec<f64>)>,
    running: Option<Job<Message>>,
    /// Whether the fit shown ran its minimizations on the device (its curves are per
    /// iteration, not per round).
    iterated_on_device: bool,
    /// A CSV asked for or dropped, until the platform hands it over.
    opening: Option<Pick>,
    /// The last error.
    pub error: Option<String>,
}

impl FitView {
    /// A view with the shipped sample loaded.
    pub fn new() -> Self {
        Self {
            data: Some((
                Data::synthetic_lgd(fit::data::LGD_N),
                "shipped sample cheng2014-lgd (n = 7,051)".into(),
            )),
            max_components: 6,
            ..Self::default()
        }
    }

    /// Sets the data (a new source clears the fits).
    pub fn set_data(&mut self, data: Data, source: String) {
        self.stop();
        self.fits.clear();
        self.progress.clear();
        self.error = None;
        self.data = Some((data, source));
    }

    /// Fits in progress?
    pub fn running(&self) -> bool {
        self.running.is_some()
    }

    /// The finished fits.
    pub fn fits(&self) -> &[Fit] {
        &self.fits
    }

    /// Stops the fit in flight after its current k.
    pub fn stop(&mut self) {
        if let Some(mut job) = self.running.take() {
            job.cancel();
        }
    }

    /// Starts fitting k = 1..max off the frame ([`Job`]: a thread on the desktop, a few
    /// evaluations per step, as many steps as a frame's share holds in the browser).
    pub fn start(&mut self, gpu: Option<Arc<Gpu>>) {
        let Some((data, _)) = self.data.clone() else {
            return;
        };
        self.stop();
        self.fits.clear();
        self.progress.clear();
        self.error = None;
        let max = self.max_components.clamp(1, fit::gpu::MAX_COMPONENTS);
        let gpu = gpu.filter(|_| self.on_gpu);
        // a hardware GPU runs whole minimizations (one dispatch for every k); elsewhere the
        // host's rounds, a few at a time (SearchLoop::Auto decides as `pdes-lab fit` does)
        let on_device = gpu
            .as_ref()
            .is_some_and(|g| fit::device::chosen_for(g, data.values.len(), SearchLoop::Auto));
        self.iterated_on_device = on_device;
        let step: Step<Message> = match gpu {
            Some(g) if on_device => device_step(g, data, max, Search::default()),
            gpu => host_step(gpu, data, max),
        };
        match Job::start(step) {
            Ok(job) => self.running = Some(job),
            Err(e) => self.error = Some(e),
        }
    }

    /// Takes what the worker sent since the last frame; true while it runs.
    pub fn poll(&mut self) -> bool {
        let Some(job) = self.running.as_mut() else {
            return false;
        };
        job.pump();
        let mut finished = false;
        loop {
            let m = match job.try_next() {
                Ok(Some(m)) => m,
                Ok(None) => break,
                // stopped without its last fit (cancelled): nothing more will come
                Err(_) => {
                    finished = true;
                    break;
                }
            };
            match m {
                Message::Progress(k, more) => match self.progress.iter_mut().find(|(j, _)| *j == k)
                {
                    Some((_, curve)) => curve.extend(more),
                    None => self.progress.push((k, more)),
                },
                Message::Done(f) => {
                    finished = f.components >= self.max_components;
                    self.fits.push(f);
                }
                Message::Failed(e) => {
                    self.error = Some(e);
                    finished = true;
                }
            }
        }
        if finished {
            self.running = None;
        }
        !finished
    }

    /// The tab. `live_samples` is the live run's per-replication L̂ when it has them.
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        live_samples: Option<Vec<f64>>,
        gpu: Option<Arc<Gpu>>,
    ) {
        // a CSV dropped or picked (the browser answers frames later) replaces the data
        if let Some(pick) = files::dropped(ui.ctx()) {
            self.opening = Some(pick);
        }
        if let Some(answer) = self.opening.as_mut().and_then(Pick::take) {
            self.opening = None;
            match answer {
                Some(picked) => self.load_picked(picked),
                None => self.error = Some(files::Saved::Cancelled.message("no data opened")),
            }
        }
        // wrapped: on an 800-pixel window the row is wider than the view, and its last
        // controls (the GPU switch, "Fit mixtures") must not fall off its edge
        ui.horizontal_wrapped(|ui| {
            if ui
                .button("Open CSV…")
                .on_hover_text("One numeric column (a header row is skipped), or drop a file on the window.")
                .clicked()
            {
                self.opening = Some(files::pick("CSV", &["csv", "txt"]));
            }
            if ui.button("Shipped sample").on_hover_text("The synthetic stand-in for paper 003's 7,051 loss-given-default values: a 5-component mixture (the guide: the command line, mixture fitting).").clicked() {
                *self = Self {
                    max_components: self.max_components,
                    on_gpu: self.on_gpu,
                    ..Self::new()
                };
            }
            let can_live = live_samples.as_ref().is_some_and(|v| v.len() >= 2);
            if ui
                .add_enabled(can_live, egui::Button::new("Live run: L per replication"))
                .on_hover_text("Each replication's time-average number in system of the live M/M/c/k run (paper 003 fits such outputs).")
                .on_disabled_hover_text("Needs a live M/M/c/k run with at least two replications under way.")
                .clicked()
                && let Some(xs) = live_samples
            {
                match Data::new(&xs) {
                    Ok(d) => self.set_data(d, format!("live run: L̂ of {} replications", xs.len())),
                    Err(e) => self.error = Some(e),
                }
            }
            ui.separator();
            ui.label("k up to");
            ui.add(egui::DragValue::new(&mut self.max_components).range(1..=fit::gpu::MAX_COMPONENTS));
            ui.add_enabled(gpu.is_some(), egui::Checkbox::new(&mut self.on_gpu, "GPU (f32)"))
                .on_hover_text("Fit on the GPU in f32. On a hardware GPU every Nelder–Mead search runs there, all k in one dispatch (k = 1..10 of the shipped sample in about 0.2 s on an H100); on a software adapter the host drives the searches and the GPU evaluates the log-likelihood (within 1e-5 of Σ|ln f| of the CPU's f64). `pdes-lab verify` checks both against the CPU.")
                .on_disabled_hover_text("No GPU engine here (no compute adapter, a failed self-check, or the browser build): the fit runs on the CPU in f64.");
            if self.running() {
                if ui.button("Stop").clicked() {
                    self.stop();
                }
            } else if ui.button("Fit mixtures").clicked() {
                self.start(gpu);
            }
        });
        if let Some((d, source)) = &self.data {
            let chosen = fit::chosen(&self.fits);
            ui.label(format!(
                "{source}: n = {}, {} distinct{}",
                d.n(),
                d.values.len(),
                chosen.map_or(String::new(), |k| format!(" — BIC chooses k = {k}"))
            ));
        }
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        self.bic_table(ui);
        let h = ui.available_height().max(200.0);
        let w = ui.available_width();
        ui.horizontal(|ui| {
            self.histogram(ui, [w * 0.5 - 8.0, h]);
            ui.vertical(|ui| {
                self.bic_plot(ui, [w * 0.5 - 8.0, h * 0.5 - 8.0]);
                self.progress_plot(ui, [w * 0.5 - 8.0, h * 0.5 - 8.0]);
            });
        });
    }

    /// What BIC chose and how sure it is: the sentence, then per k (one column each)
    /// ln L, BIC, ΔBIC to the smallest, and the starts that reached the same maximum.
    fn bic_table(&self, ui: &mut egui::Ui) {
        let Some(best) = self.fits.iter().min_by(|a, b| a.bic.total_cmp(&b.bic)) else {
            return;
        };
        let runner_up = self
            .fits
            .iter()
            .filter(|f| f.components != best.components)
            .min_by(|a, b| a.bic.total_cmp(&b.bic));
        egui::CollapsingHeader::new("What BIC chose, and how sure it is")
            .default_open(true)
            .show(ui, |ui| {
                let margin = match runner_up {
                    Some(r) => {
                        let gap = r.bic - best.bic;
                        let strength = match gap {
                            g if g > 10.0 => "very strong evidence",
                            g if g > 6.0 => "strong evidence",
                            g if g > 2.0 => "positive evidence",
                            _ => "barely any evidence: the two fit about as well for their size",
                        };
                        format!(
                            " The next best is k = {} with ΔBIC = {gap:.1}: {strength} for k = {} (Kass & Raftery: over 2 positive, over 6 strong, over 10 very strong).",
                            r.components, best.components
                        )
                    }
                    None => String::new(),
                };
                ui.label(format!(
                    "BIC = −2 ln L + (3k − 1) ln n rewards the fit (ln L) and charges each of the 3k − 1 parameters ln n; the smallest BIC wins: k = {}.{margin} \"Starts agreeing\" counts the searches for k that reached the same maximum (ln L within {}): one alone means another start might find a higher one.",
                    best.components,
                    fit::AGREEING_LOGLIK
                ));
                // ten columns are wider than the view on a small window: scroll, not overflow
                egui::ScrollArea::horizontal().show(ui, |ui| self.bic_grid(ui, best));
            });
    }

    /// Per k (one column each): ln L, BIC, ΔBIC to `best`'s, and the starts that reached
    /// the same maximum; `best`'s column bold.
    fn bic_grid(&self, ui: &mut egui::Ui, best: &Fit) {
        egui::Grid::new("bic table").striped(true).show(ui, |ui| {
            let rows: [(&str, &Cell); 5] = [
                ("k", &|f| f.components.to_string()),
                ("ln L", &|f| format!("{:.2}", f.loglik)),
                ("BIC", &|f| format!("{:.1}", f.bic)),
                ("ΔBIC", &|f| format!("{:.1}", f.bic - best.bic)),
                ("starts agreeing", &|f| {
                    format!("{} of {}", f.starts_agreeing, f.starts)
                }),
            ];
            for (name, cell) in rows {
                ui.label(name);
                for f in &self.fits {
                    let text = egui::RichText::new(cell(f));
                    ui.label(if f.components == best.components {
                        text.strong()
                    } else {
                        text
                    });
                }
                ui.end_row();
            }
        });
    }

    fn load_picked(&mut self, picked: Picked) {
        let name = picked.name();
        let read = match picked {
            Picked::Path(p) => Data::read_csv(&p, None),
            Picked::Bytes { bytes, .. } => match String::from_utf8(bytes) {
                Ok(text) => Data::from_csv_text(&text, None, &name),
                Err(_) => Err(format!("{name}: not a CSV file (it is not text)")),
            },
        };
        match read {
            Ok(d) => self.set_data(d, name),
            Err(e) => self.error = Some(e),
        }
    }

    /// The histogram (as a density) with the chosen fit's density and weighted components.
    fn histogram(&self, ui: &mut egui::Ui, size: [f32; 2]) {
        let Some((d, _)) = &self.data else { return };
        let (lo, hi) = (d.quantile(0.0), d.quantile(1.0));
        let bins = 60usize;
        let width = ((hi - lo) / bins as f64).max(1e-12);
        let mut counts = vec![0u64; bins];
        for (x, c) in d.values.iter().zip(&d.counts) {
            let b = (((x - lo) / width) as usize).min(bins - 1);
            counts[b] += c;
        }
        let n = d.n() as f64;
        let bars: Vec<Bar> = counts
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                Bar::new(lo + (i as f64 + 0.5) * width, c as f64 / (n * width)).width(width)
            })
            .collect();
        let chosen =
            fit::chosen(&self.fits).and_then(|k| self.fits.iter().find(|f| f.components == k));
        Plot::new("fit histogram")
            .width(size[0])
            .height(size[1])
            .legend(Legend::default())
            .x_axis_label("value")
            .y_axis_label("density")
            .show(ui, |p| {
                p.bar_chart(BarChart::new("data", bars).color(egui::Color32::from_gray(110)));
                if let Some(f) = chosen {
                    let mix = fit::Mixture {
                        weights: f.weights.clone(),
                        means: f.means.clone(),
                        sds: f.sds.clone(),
                    };
                    let xs: Vec<f64> = (0..=400)
                        .map(|i| lo + (hi - lo) * i as f64 / 400.0)
                        .collect();
                    p.line(
                        Line::new(
                            format!("mixture, k = {}", f.components),
                            PlotPoints::from_iter(xs.iter().map(|&x| [x, mix.density(x)])),
                        )
                        .width(2.0),
                    );
                    for j in 0..f.components {
                        let one = fit::Mixture {
                            weights: vec![1.0],
                            means: vec![f.means[j]],
                            sds: vec![f.sds[j]],
                        };
                        p.line(
                            Line::new(
                                "components (weighted)",
                                PlotPoints::from_iter(
                                    xs.iter().map(|&x| [x, f.weights[j] * one.density(x)]),
                                ),
                            )
                            .style(egui_plot::LineStyle::dashed_loose()),
                        );
                    }
                }
            });
    }

    /// BIC against k; the chosen k marked.
    fn bic_plot(&self, ui: &mut egui::Ui, size: [f32; 2]) {
        let pts: Vec<[f64; 2]> = self
            .fits
            .iter()
            .map(|f| [f.components as f64, f.bic])
            .collect();
        let chosen = fit::chosen(&self.fits);
        Plot::new("fit bic")
            .width(size[0])
            .height(size[1])
            .legend(Legend::default())
            .x_axis_label("components k")
            .y_axis_label("BIC")
            .show(ui, |p| {
                p.line(Line::new(
                    "BIC = −2 ln L + (3k − 1) ln n",
                    PlotPoints::from(pts.clone()),
                ));
                p.points(Points::new("", PlotPoints::from(pts)).radius(3.0));
                if let Some(f) = chosen.and_then(|k| self.fits.iter().find(|f| f.components == k)) {
                    p.points(
                        Points::new(
                            "BIC's choice",
                            PlotPoints::from(vec![[f.components as f64, f.bic]]),
                        )
                        .radius(6.0)
                        .color(egui::Color32::from_rgb(230, 160, 40)),
                    );
                }
            });
    }

    /// Nelder–Mead's best ln L after each round, one line per k (all ks advance together;
    /// a k's line goes flat when its search is done).
    fn progress_plot(&self, ui: &mut egui::Ui, size: [f32; 2]) {
        Plot::new("fit progress")
            .width(size[0])
            .height(size[1])
            .legend(Legend::default())
            .x_axis_label(if self.iterated_on_device {
                "iteration (every search on the GPU at once)"
            } else {
                "round (one batch of evaluations)"
            })
            .y_axis_label("best ln L")
            .show(ui, |p| {
                for (k, v) in &self.progress {
                    // the first rounds of a search can be far off: show from the first tenth
                    let pts: Vec<[f64; 2]> = v
                        .iter()
                        .enumerate()
                        .skip(v.len() / 10)
                        .filter(|(_, x)| x.is_finite() && x.abs() < 1e250)
                        .map(|(i, x)| [i as f64, *x])
                        .collect();
                    p.line(Line::new(format!("k = {k}"), PlotPoints::from(pts)));
                }
            });
    }
}

/// The job of a fit whose minimizations all run on the device: one step, one dispatch;
/// then each k's curve (best ln L per iteration) and fit.
fn device_step(gpu: Arc<Gpu>, data: Data, max: usize, search: Search) -> Step<Message> {
    Box::new(move |emit| {
        // the data in standard units, made here rather than on the frame
        let standard = fit::Standardized::of(&data);
        let n = standard.data.n() as f64;
        let run = fit::device_fits::DeviceFits::new(gpu.clone(), &standard.data, 1..=max, search)
            .and_then(|mut fits| fits.step().map(|_| fits));
        match run {
            Ok(fits) => {
                for (k, curve) in fits.progress() {
                    let lnl = curve.iter().map(|c| standard.loglik(-c * n)).collect();
                    emit(Message::Progress(*k, lnl));
                }
                for f in fits.done() {
                    emit(Message::Done(standard.original(f.clone())));
                }
            }
            Err(e) => emit(Message::Failed(e)),
        }
        false
    })
}

/// The job of a fit in the host's rounds ([`fit::Fits`]), about 300,000 terms ln f(x_i) a
/// step (~0.3 ms on one desktop core: a page's frame share holds several, the desktop's
/// thread does not notice); each step sends the new part of every k's curve and the fits done.
fn host_step(gpu: Option<Arc<Gpu>>, data: Data, max: usize) -> Step<Message> {
    let n = data.n() as f64;
    // the data in standard units, the GPU's copy and the search, made by the first step
    // (not on the frame)
    let mut prepared: Option<(fit::Standardized, Option<fit::gpu::GpuLoglik>)> = None;
    let mut search: Option<fit::Fits> = None;
    let mut sent = 0;
    // per k, how many of its rounds' values have been sent: each step sends only the
    // new ones (sending every curve whole each step was quadratic in the rounds)
    let mut sent_rounds: Vec<(usize, usize)> = Vec::new();
    Box::new(move |emit| {
        if prepared.is_none() {
            let standard = fit::Standardized::of(&data);
            let device = match &gpu {
                Some(g) => match fit::gpu::GpuLoglik::new(g.clone(), &standard.data) {
                    Ok(d) => Some(d),
                    Err(e) => {
                        emit(Message::Failed(e));
                        return false;
                    }
                },
                None => None,
            };
            prepared = Some((standard, device));
        }
        let Some((standard, device)) = &prepared else {
            return false;
        };
        let engine: &dyn fit::Loglik = match device {
            Some(d) => d,
            None => &standard.data,
        };
        let fits = search.get_or_insert_with(|| {
            fit::Fits::new(&standard.data, 1..=max, Search::default(), engine)
        });
        let more = match fits.step(engine, 300_000) {
            Ok(more) => more,
            Err(e) => {
                emit(Message::Failed(e));
                return false;
            }
        };
        for (k, best) in fits.progress() {
            let from = match sent_rounds.iter_mut().find(|(j, _)| *j == k) {
                Some((_, done)) => std::mem::replace(done, best.len()),
                None => {
                    sent_rounds.push((k, best.len()));
                    0
                }
            };
            if from < best.len() {
                let lnl = best[from..]
                    .iter()
                    .map(|c| standard.loglik(-c * n))
                    .collect();
                emit(Message::Progress(k, lnl));
            }
        }
        for f in fits.done().into_iter().skip(sent) {
            emit(Message::Done(standard.original(f.clone())));
            sent += 1;
        }
        more
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The device's job sends each k's curve and then its fit, in k's order, in one step.
    /// (A short search: lavapipe stops a shader's loops after 65,535 passes in all.)
    #[test]
    fn the_device_job_sends_every_ks_curve_and_fit_in_one_step() {
        let Ok(gpu) = Gpu::shared() else {
            assert!(
                std::env::var("PDES_REQUIRE_GPU").as_deref() != Ok("1"),
                "no GPU"
            );
            return;
        };
        let search = Search {
            iterations_per_parameter: 40,
            ..Search::default()
        };
        let mut step = device_step(gpu, Data::synthetic_lgd(240), 3, search);
        let mut sent = Vec::new();
        let more = step(&mut |m| sent.push(m));
        assert!(!more, "one step does the whole fit");
        let curves: Vec<usize> = sent
            .iter()
            .filter_map(|m| match m {
                Message::Progress(k, lnl) if !lnl.is_empty() => Some(*k),
                _ => None,
            })
            .collect();
        let fits: Vec<usize> = sent
            .iter()
            .filter_map(|m| match m {
                Message::Done(f) => Some(f.components),
                Message::Failed(e) => panic!("{e}"),
                _ => None,
            })
            .collect();
        assert_eq!(curves, vec![1, 2, 3]);
        assert_eq!(fits, vec![1, 2, 3]);
    }
}
