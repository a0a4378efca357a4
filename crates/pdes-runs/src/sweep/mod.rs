//! Sweeps for every model: the grid of swept values ([`spec`]), the estimates over seeds
//! ([`stats`]), the figure ([`plot`]), and one run of a configuration with overrides
//! ([`with_sets`], [`run_config`]) — shared by
//! `pdes-lab sweep` (`crate::cli::sweep`) and the window's sweep view
//! (`pdes_ui::app::sweep_view`).

pub mod plot;
pub mod spec;
pub use pdes_core::stats;

use crate::engines::{GpuFallback, build};
use pdes_core::sim::Budget;
use pdes_gpu::Gpu;
use pdes_models::preset::Config;
use serde_json::{Map, Value};
use std::sync::Arc;

/// What one finished run gives: its summary fields and the names of the model's main
/// statistics.
pub type RunOutput = (Map<String, Value>, Vec<&'static str>);

/// The summary fields that hold the exact value of statistic `stat`, in the order to try:
/// the model's own (`analytic_…`), then the same model with exponential service
/// (`exponential_…`), each also without a leading `mean_` (`mean_sojourn` →
/// `analytic_sojourn`).
pub fn reference_fields(stat: &str) -> Vec<String> {
    let short = stat.strip_prefix("mean_").unwrap_or(stat);
    let mut v = Vec::new();
    for prefix in ["analytic_", "exponential_"] {
        v.push(format!("{prefix}{stat}"));
        if short != stat {
            v.push(format!("{prefix}{short}"));
        }
    }
    v
}

/// The first seed of a sweep: `run.seed` of a preset table (1 when it has none).
pub fn first_seed(table: &toml::Table) -> i64 {
    table
        .get("run")
        .and_then(|r| r.get("seed"))
        .and_then(toml::Value::as_integer)
        .unwrap_or(1)
}

/// The identity of a sweep: a 16-digit hexadecimal FNV-1a hash of its resolved
/// specification (`spec`: the base configuration as preset text, the swept keys and values,
/// the seeds). Every row of a sweep's CSV carries it, so that `--resume` and `sweep-merge`
/// refuse rows of another sweep. FNV-1a is fixed by its definition, so the identity is the
/// same in every build and on every machine.
pub fn identity(spec: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in spec.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// `config` with `--set` style assignments applied (through its preset text, so the model's
/// own validation checks every value).
pub fn with_sets(config: &Config, sets: &[String]) -> Result<Config, String> {
    let mut table: toml::Table = config
        .to_toml("")
        .parse()
        .map_err(|e: toml::de::Error| e.to_string())?;
    for s in sets {
        pdes_models::preset::apply_set(&mut table, s).map_err(|e| e.to_string())?;
    }
    Config::from_table(&table).map_err(|e| e.to_string())
}

/// Runs `config` to its end time on the engine it names (`gpu` is the device for GPU
/// engines; without one a GPU configuration is refused) and returns its summary.
pub fn run_config(config: &Config, gpu: Option<Arc<Gpu>>) -> Result<RunOutput, String> {
    let (mut engine, _) = build(config, gpu, GpuFallback::Refuse).map_err(|e| e.to_string())?;
    let t0 = web_time::Instant::now();
    engine.advance(Budget::Finish).map_err(|e| e.to_string())?;
    let report = engine
        .report()
        .map_err(|e| e.to_string())?
        .with_wall_time(t0.elapsed().as_secs_f64());
    if let Some(k) = report.non_finite {
        return Err(format!("{k} is not finite"));
    }
    Ok((report.fields, report.statistics))
}

/// Runs `config` with each of `seeds` (`None`: as it is, for a model without seeds), as
/// [`run_all`] does.
pub fn run_seeds(
    config: &Config,
    seeds: &[Option<i64>],
    gpu: Option<Arc<Gpu>>,
) -> Vec<Result<RunOutput, String>> {
    let configs = seeds
        .iter()
        .map(|s| match s {
            Some(s) => with_sets(config, &[format!("run.seed={s}")]),
            None => Ok(config.clone()),
        })
        .collect();
    run_all(configs, gpu)
}

/// Runs each of `configs` to its end time (an `Err` stays the run's error) and returns the
/// results in order. On the GPU (`gpu`), the runs that can share one engine — the model
/// has replicas, each configuration fits them and is `together` with the group's first
/// (for the torus: the same but for seed and d) — run side by side in one, each result
/// exactly its own run's (the group's wall time shared equally among its rows); a group
/// the device cannot hold is halved until it fits. Every other run runs alone.
pub fn run_all(
    configs: Vec<Result<Config, String>>,
    gpu: Option<Arc<Gpu>>,
) -> Vec<Result<RunOutput, String>> {
    let mut results: Vec<Option<Result<RunOutput, String>>> = configs
        .iter()
        .map(|c| c.as_ref().err().map(|e| Err(e.clone())))
        .collect();
    let runnable: Vec<(usize, &Config)> = configs
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.as_ref().ok().map(|c| (i, c)))
        .collect();
    for group in groups(&runnable, gpu.is_some()) {
        let members: Vec<&Config> = group.iter().map(|&(_, c)| c).collect();
        for ((i, _), r) in group.iter().zip(run_group(&members, gpu.clone())) {
            results[*i] = Some(r);
        }
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err("not run".into())))
        .collect()
}

/// The model's replicas where `config` runs on the GPU and fits them.
fn replicas_of(config: &Config) -> Option<&'static pdes_models::config::Replicas> {
    let replicas = config.model_info().replicas.as_ref()?;
    (config.engine() == pdes_models::preset::EngineKind::Gpu && (replicas.accepts)(config))
        .then_some(replicas)
}

/// `runs` in groups that can share one GPU engine (each member `together` with the
/// group's first), in their order; each run alone without a GPU or replicas.
fn groups<'a>(runs: &[(usize, &'a Config)], on_gpu: bool) -> Vec<Vec<(usize, &'a Config)>> {
    let mut groups: Vec<Vec<(usize, &Config)>> = Vec::new();
    for &(i, c) in runs {
        let joins = on_gpu.then(|| replicas_of(c)).flatten().and_then(|r| {
            groups.iter_mut().find(|g| {
                let first = g[0].1;
                std::ptr::eq(first.model_info(), c.model_info())
                    && replicas_of(first).is_some()
                    && (r.together)(first, c)
            })
        });
        match joins {
            Some(g) => g.push((i, c)),
            None => groups.push(vec![(i, c)]),
        }
    }
    groups
}

/// Runs one group of [`groups`]: side by side in one engine when it has several members
/// (halved when the device cannot hold it), else alone.
fn run_group(configs: &[&Config], gpu: Option<Arc<Gpu>>) -> Vec<Result<RunOutput, String>> {
    if let (Some(device), [first, _, ..]) = (&gpu, configs)
        && let Some(replicas) = replicas_of(first)
    {
        let t0 = web_time::Instant::now();
        match (replicas.run)(configs, device.clone()) {
            Ok(reports) => {
                let share = t0.elapsed().as_secs_f64() / configs.len() as f64;
                return reports
                    .into_iter()
                    .map(|r| {
                        let r = r.with_wall_time(share);
                        match r.non_finite {
                            Some(k) => Err(format!("{k} is not finite")),
                            None => Ok((r.fields, r.statistics)),
                        }
                    })
                    .collect();
            }
            // too many for the device (or for one engine): in two halves
            Err(_) => {
                let (a, b) = configs.split_at(configs.len() / 2);
                let mut out = run_group(a, gpu.clone());
                out.extend(run_group(b, gpu));
                return out;
            }
        }
    }
    configs.iter().map(|c| run_config(c, gpu.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn torus(sets: &[&str]) -> Config {
        let mut all = vec![
            "model.rows=64",
            "model.cols=64",
            "run.engine=\"gpu\"",
            "run.end_time=100",
            "run.warmup=0",
        ];
        all.extend_from_slice(sets);
        pdes_models::preset::config_with("teaching-16x16", &all).unwrap()
    }

    /// A torus sweep's seeds and values of d share one GPU engine (its steps are the
    /// smallest d's, not the sum over the values); another size, a CPU run or no GPU does not.
    #[test]
    fn seeds_and_values_of_d_share_one_engine_and_nothing_else_does() {
        let configs = [
            torus(&["run.d=0.5", "run.seed=1"]),
            torus(&["run.d=2", "run.seed=1"]),
            torus(&["run.d=0.5", "run.seed=2", "model.rows=128"]),
            torus(&["run.d=1", "run.seed=3"]),
            torus(&["run.d=1", "run.engine=\"cpu\""]),
        ];
        let runs: Vec<(usize, &Config)> = configs.iter().enumerate().collect();
        let indices = |gs: Vec<Vec<(usize, &Config)>>| -> Vec<Vec<usize>> {
            gs.into_iter()
                .map(|g| g.into_iter().map(|(i, _)| i).collect())
                .collect()
        };
        assert_eq!(
            indices(groups(&runs, true)),
            vec![vec![0, 1, 3], vec![2], vec![4]]
        );
        assert_eq!(
            indices(groups(&runs, false)),
            vec![vec![0], vec![1], vec![2], vec![3], vec![4]]
        );
    }
}
