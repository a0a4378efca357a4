//! The d advisor (`pdes-lab tune`, issue 55 §5): d over a log grid up to the largest d the
//! configuration accepts; at each, the same seeds run, measuring the parallelism (events per
//! step) and the speed (engine seconds per simulated time unit) and the metric's bias — against
//! the model's exact value where its summary has one (`analytic_<metric>`, else the
//! exponential network's `exponential_<metric>`), otherwise against sequential runs of the
//! same seeds (paired, seed by seed) — with its 95% interval. The recommendation is the
//! largest d whose whole interval of the bias lies within the tolerance.

use crate::sweep::{run_config, with_sets};
use pdes_core::stats::estimate;
use pdes_gpu::Gpu;
use pdes_models::preset::Config;
use serde::Serialize;
use std::sync::Arc;

/// What to tune.
#[derive(Clone, Debug)]
pub struct TuneSpec {
    /// The configuration (its algorithm must be a stepped one).
    pub config: Config,
    /// The summary field whose bias is judged ("utilization").
    pub metric: String,
    /// The largest bias allowed, as a fraction of the reference (0.01 = 1%).
    pub tolerance: f64,
    /// Seeds per d (1, 2, …).
    pub seeds: u32,
    /// Values of d on the grid.
    pub points: u32,
}

/// One d of the grid.
#[derive(Clone, Debug, Serialize)]
pub struct TunePoint {
    /// d.
    pub d: f64,
    /// Mean events per step over the seeds.
    pub events_per_step: f64,
    /// Events per step against the smallest d's.
    pub parallelism_gain: f64,
    /// Engine seconds per 1,000 simulated time units (mean over the seeds).
    pub seconds_per_1000_time: f64,
    /// The metric's mean over the seeds.
    pub metric: f64,
    /// Its bias against the reference (mean of the seeds' differences).
    pub bias: f64,
    /// The 95% half-width of the bias.
    pub bias_half_width: f64,
    /// The bias as a fraction of the reference, its interval's far end (|bias| + half-width).
    pub worst_relative_bias: f64,
    /// True when the interval lies within the tolerance.
    pub within: bool,
}

/// The advice.
#[derive(Clone, Debug, Serialize)]
pub struct Advice {
    /// The metric.
    pub metric: String,
    /// The tolerance (fraction).
    pub tolerance: f64,
    /// "exact" (the model's exact value) or "sequential" (runs of the same seeds).
    pub reference: &'static str,
    /// The exact value, when that is the reference.
    pub exact_value: Option<f64>,
    /// The largest d the configuration accepts.
    pub largest_valid_d: f64,
    /// Seeds per d.
    pub seeds: u32,
    /// The grid, smallest d first.
    pub points: Vec<TunePoint>,
    /// The recommended d (the largest within the tolerance), if any.
    pub recommended_d: Option<f64>,
    /// The recommendation in words.
    pub advice: String,
}

/// The largest d `config` accepts (its validation decides: the window's shortest service,
/// shifted service's mean, …), by doubling and then bisecting to 1e-9 relative; None when
/// d is not a key of its model.
pub fn largest_valid_d(config: &Config) -> Option<f64> {
    let valid = |d: f64| with_sets(config, &[format!("run.d={d}")]).is_ok();
    let mut lo = [1e-6, 1e-4, 1e-2, 1.0].into_iter().find(|&d| valid(d))?;
    let mut hi = lo * 2.0;
    while valid(hi) {
        lo = hi;
        hi *= 2.0;
        if hi > 1e7 {
            return Some(lo);
        }
    }
    while (hi - lo) > 1e-9 * hi {
        let mid = 0.5 * (lo + hi);
        if valid(mid) { lo = mid } else { hi = mid }
    }
    // the whole ticks d stands for (0.5000004 is 0.5 on the clock)
    let ticks = (lo * pdes_core::time::TICKS_PER_UNIT).floor();
    Some(ticks / pdes_core::time::TICKS_PER_UNIT)
}

/// A number field of a summary.
fn number(fields: &serde_json::Map<String, serde_json::Value>, key: &str) -> Option<f64> {
    fields.get(key).and_then(serde_json::Value::as_f64)
}

/// The exact value of `metric` a summary carries, if any.
fn exact_value(fields: &serde_json::Map<String, serde_json::Value>, metric: &str) -> Option<f64> {
    let short = metric.strip_prefix("mean_").unwrap_or(metric);
    [
        format!("analytic_{metric}"),
        format!("analytic_{short}"),
        format!("exponential_{metric}"),
        format!("exponential_{short}"),
    ]
    .iter()
    .find_map(|k| number(fields, k))
}

/// Runs the advisor; `progress` hears each finished d ("d = 0.25: …").
pub fn tune(
    spec: &TuneSpec,
    gpu: Option<Arc<Gpu>>,
    mut progress: impl FnMut(&str),
) -> Result<Advice, String> {
    let mut tuner = Tuner::new(spec, gpu)?;
    while !tuner.finished() {
        if let Some(line) = tuner.step()? {
            progress(&line);
        }
    }
    tuner.advice()
}

/// The advisor one run at a time (the window's Sweep view runs it as a background job,
/// a run per step, so that a page keeps drawing): the reference (the first run's exact
/// value, else sequential runs of the same seeds), then every d of the grid with every seed.
pub struct Tuner {
    spec: TuneSpec,
    gpu: Option<Arc<Gpu>>,
    /// The grid, smallest d first.
    ds: Vec<f64>,
    /// The largest d the configuration accepts.
    valid: f64,
    seeds: Vec<u64>,
    /// The exact value, once the first run said whether there is one (None before).
    exact: Option<Option<f64>>,
    /// The sequential runs' metric, seed by seed (no exact value).
    sequential: Vec<f64>,
    /// Per d of the grid finished, its point.
    points: Vec<TunePoint>,
    /// The current d's runs: (metric, events per step, seconds per 1000 time units).
    current: Vec<(f64, f64, f64)>,
}

impl Tuner {
    /// The advisor of `spec` (refused at once where d cannot be tuned); no run yet.
    pub fn new(spec: &TuneSpec, gpu: Option<Arc<Gpu>>) -> Result<Self, String> {
        let algorithm = spec.config.algorithm_info();
        if algorithm.algorithm == "sequential" {
            return Err(format!(
                "tune varies d, which a sequential run does not have: give a stepped algorithm, e.g. --set run.algorithm=\"window\" (this model's: {})",
                spec.config
                    .model_info()
                    .listed()
                    .filter(|a| a.algorithm != "sequential")
                    .map(|a| a.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let valid = largest_valid_d(&spec.config)
            .ok_or("this model has no run.d to tune (it is not a stepped simulation)")?;
        // interval takes any d: the grid stops where a run still has a hundred intervals
        let largest = valid.min(spec.config.end_time() / 100.0);
        let points = spec.points.max(2);
        let ds = (0..points)
            .map(|i| largest * 100f64.powf(-f64::from(points - 1 - i) / f64::from(points - 1)))
            .collect();
        Ok(Self {
            spec: spec.clone(),
            gpu,
            ds,
            valid,
            seeds: (1..=u64::from(spec.seeds)).collect(),
            exact: None,
            sequential: Vec::new(),
            points: Vec::new(),
            current: Vec::new(),
        })
    }

    /// Runs done and in all (for a progress bar).
    pub fn progress(&self) -> (usize, usize) {
        let seeds = self.seeds.len();
        let reference = match self.exact {
            Some(Some(_)) => 1,
            _ => 1 + seeds,
        };
        let done = usize::from(self.exact.is_some())
            + self.sequential.len()
            + self.points.len() * seeds
            + self.current.len();
        (done, reference + self.ds.len() * seeds)
    }

    /// True when every run is done.
    pub fn finished(&self) -> bool {
        self.points.len() == self.ds.len()
    }

    fn run_at(
        &self,
        sets: Vec<String>,
    ) -> Result<serde_json::Map<String, serde_json::Value>, String> {
        let cfg = with_sets(&self.spec.config, &sets)?;
        run_config(&cfg, self.gpu.clone()).map(|(fields, _)| fields)
    }

    /// The next run; returns a line to show when it finished a d of the grid (or the
    /// reference).
    pub fn step(&mut self) -> Result<Option<String>, String> {
        let metric = self.spec.metric.clone();
        let Some(exact) = self.exact else {
            // the reference: the exact value of the first run's summary, else sequential runs
            let first = self.run_at(vec![format!("run.d={}", self.ds[0]), "run.seed=1".into()])?;
            number(&first, &metric).ok_or_else(|| {
                let names: Vec<&String> = first
                    .iter()
                    .filter(|(k, v)| {
                        v.is_f64() && !k.starts_with("analytic_") && !k.contains("second")
                    })
                    .map(|(k, _)| k)
                    .collect();
                format!(
                    "--metric {metric} is not a statistic of this model's summary; it has {}",
                    names
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
            let exact = exact_value(&first, &metric);
            self.exact = Some(exact);
            return Ok(exact.is_none().then(|| {
                "no exact value: running the sequential simulator with the same seeds".to_string()
            }));
        };
        if exact.is_none() && self.sequential.len() < self.seeds.len() {
            let s = self.seeds[self.sequential.len()];
            let f = self.run_at(vec![
                "run.algorithm=\"sequential\"".into(),
                "run.d=0".into(),
                format!("run.seed={s}"),
            ])?;
            self.sequential.push(
                number(&f, &metric)
                    .ok_or_else(|| "the sequential run has no such field".to_string())?,
            );
            return Ok(None);
        }
        let d = self.ds[self.points.len()];
        let s = self.seeds[self.current.len()];
        let f = self.run_at(vec![format!("run.d={d}"), format!("run.seed={s}")])?;
        let end = number(&f, "end_time").unwrap_or(1.0).max(1e-12);
        self.current.push((
            number(&f, &metric).unwrap_or(f64::NAN),
            number(&f, "mean_events_per_step").unwrap_or(f64::NAN),
            number(&f, "wall_seconds").unwrap_or(0.0) / end * 1000.0,
        ));
        if self.current.len() < self.seeds.len() {
            return Ok(None);
        }
        let runs = std::mem::take(&mut self.current);
        let reference = self.reference();
        let diffs: Vec<f64> = runs
            .iter()
            .enumerate()
            .map(|(i, r)| r.0 - exact.unwrap_or_else(|| self.sequential[i]))
            .collect();
        let column = |j: usize| {
            runs.iter()
                .map(|r| [r.0, r.1, r.2][j])
                .collect::<Vec<f64>>()
        };
        let bias = estimate(&diffs);
        let hw = bias.ci95.unwrap_or(0.0);
        let worst = (bias.mean.abs() + hw) / reference.abs().max(1e-300);
        let point = TunePoint {
            d,
            events_per_step: estimate(&column(1)).mean,
            parallelism_gain: 0.0,
            seconds_per_1000_time: estimate(&column(2)).mean,
            metric: estimate(&column(0)).mean,
            bias: bias.mean,
            bias_half_width: hw,
            worst_relative_bias: worst,
            within: worst <= self.spec.tolerance,
        };
        let line = format!(
            "d = {}: {:.2} events per step, {metric} = {:.6} (bias {:+.3}% ± {:.3}%)",
            short(d),
            point.events_per_step,
            point.metric,
            100.0 * point.bias / reference,
            100.0 * hw / reference.abs()
        );
        self.points.push(point);
        Ok(Some(line))
    }

    /// The reference value: exact, or the sequential runs' mean.
    fn reference(&self) -> f64 {
        match self.exact {
            Some(Some(v)) => v,
            _ => estimate(&self.sequential).mean,
        }
    }

    /// The advice, once [`Tuner::finished`].
    pub fn advice(&self) -> Result<Advice, String> {
        if !self.finished() {
            return Err("the advisor has not run every d yet".into());
        }
        let spec = &self.spec;
        let exact = self.exact.flatten();
        let reference = self.reference();
        let mut out = self.points.clone();
        let base = out[0].events_per_step.max(1e-300);
        for p in &mut out {
            p.parallelism_gain = p.events_per_step / base;
        }
        let best = out.iter().rposition(|p| p.within);
        let what = if exact.is_some() {
            "exact"
        } else {
            "sequential runs of the same seeds"
        };
        let advice = match best {
            Some(i) => format!(
                "d = {}: {:.1}× the parallel events of d = {}; {} within {}% of {what}, 95% confidence",
                short(out[i].d),
                out[i].parallelism_gain,
                short(out[0].d),
                spec.metric,
                short(100.0 * spec.tolerance)
            ),
            None => {
                let (b, h) = (
                    100.0 * out[0].bias / reference,
                    100.0 * out[0].bias_half_width / reference.abs(),
                );
                let why = if h > 100.0 * spec.tolerance {
                    "the 95% intervals are wider than the tolerance: add seeds (--seeds) or run longer (--set run.end_time=…)"
                } else {
                    "even the smallest d is biased beyond the tolerance: allow more (--tolerance) or choose an exact algorithm"
                };
                format!(
                    "no d on the grid keeps {} within {}% of {what} with 95% confidence (at d = {} the bias is {b:+.3}% ± {h:.3}%); {why}",
                    spec.metric,
                    short(100.0 * spec.tolerance),
                    short(out[0].d),
                )
            }
        };
        Ok(Advice {
            metric: spec.metric.clone(),
            tolerance: spec.tolerance,
            reference: if exact.is_some() {
                "exact"
            } else {
                "sequential"
            },
            exact_value: exact,
            largest_valid_d: self.valid,
            seeds: spec.seeds,
            recommended_d: best.map(|i| out[i].d),
            points: out,
            advice,
        })
    }
}

/// A number as the advice writes it: four decimals at most (0.8, 0.1234), small ones in
/// scientific notation.
fn short(x: f64) -> String {
    if x != 0.0 && x.abs() < 0.001 {
        return format!("{x:.2e}");
    }
    let r = (x * 1e4).round() / 1e4;
    format!("{r}")
}
