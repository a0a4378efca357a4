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
    let ds: Vec<f64> = (0..points)
        .map(|i| largest * 100f64.powf(-f64::from(points - 1 - i) / f64::from(points - 1)))
        .collect();
    let seeds: Vec<u64> = (1..=u64::from(spec.seeds)).collect();
    let run_at = |sets: Vec<String>| -> Result<serde_json::Map<String, serde_json::Value>, String> {
        let cfg = with_sets(&spec.config, &sets)?;
        run_config(&cfg, gpu.clone()).map(|(fields, _)| fields)
    };
    // the reference: the exact value of the first run's summary, else sequential runs
    let first = run_at(vec![format!("run.d={}", ds[0]), "run.seed=1".into()])?;
    number(&first, &spec.metric).ok_or_else(|| {
        let names: Vec<&String> = first
            .iter()
            .filter(|(k, v)| v.is_f64() && !k.starts_with("analytic_") && !k.contains("second"))
            .map(|(k, _)| k)
            .collect();
        format!(
            "--metric {} is not a statistic of this model's summary; it has {}",
            spec.metric,
            names
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    let exact = exact_value(&first, &spec.metric);
    let sequential: Vec<f64> = if exact.is_some() {
        Vec::new()
    } else {
        progress("no exact value: running the sequential simulator with the same seeds");
        seeds
            .iter()
            .map(|s| {
                let f = run_at(vec![
                    "run.algorithm=\"sequential\"".into(),
                    "run.d=0".into(),
                    format!("run.seed={s}"),
                ])?;
                number(&f, &spec.metric)
                    .ok_or_else(|| "the sequential run has no such field".into())
            })
            .collect::<Result<_, String>>()?
    };
    let reference = exact.unwrap_or_else(|| estimate(&sequential).mean);
    let mut out = Vec::with_capacity(ds.len());
    for &d in &ds {
        let (mut metric, mut steps, mut speed, mut diffs) = (vec![], vec![], vec![], vec![]);
        for (i, s) in seeds.iter().enumerate() {
            let f = run_at(vec![format!("run.d={d}"), format!("run.seed={s}")])?;
            let m = number(&f, &spec.metric).unwrap_or(f64::NAN);
            metric.push(m);
            steps.push(number(&f, "mean_events_per_step").unwrap_or(f64::NAN));
            let end = number(&f, "end_time").unwrap_or(1.0).max(1e-12);
            speed.push(number(&f, "wall_seconds").unwrap_or(0.0) / end * 1000.0);
            diffs.push(m - exact.unwrap_or_else(|| sequential[i]));
        }
        let bias = estimate(&diffs);
        let hw = bias.ci95.unwrap_or(0.0);
        let worst = (bias.mean.abs() + hw) / reference.abs().max(1e-300);
        let point = TunePoint {
            d,
            events_per_step: estimate(&steps).mean,
            parallelism_gain: 0.0,
            seconds_per_1000_time: estimate(&speed).mean,
            metric: estimate(&metric).mean,
            bias: bias.mean,
            bias_half_width: hw,
            worst_relative_bias: worst,
            within: worst <= spec.tolerance,
        };
        progress(&format!(
            "d = {}: {:.2} events per step, {} = {:.6} (bias {:+.3}% ± {:.3}%)",
            short(d),
            point.events_per_step,
            spec.metric,
            point.metric,
            100.0 * point.bias / reference,
            100.0 * hw / reference.abs()
        ));
        out.push(point);
    }
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
        largest_valid_d: valid,
        seeds: spec.seeds,
        recommended_d: best.map(|i| out[i].d),
        points: out,
        advice,
    })
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
