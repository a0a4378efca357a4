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

/// Runs `config` with each of `seeds` (`None`: as it is, for a model without seeds). On
/// the GPU, when the model has replicas and the configuration fits them, all seeds run
/// in one engine (each row exactly its own run; the rows share the batch's wall time
/// equally); otherwise, or if the batch does not fit the device, one run after another.
pub fn run_seeds(
    config: &Config,
    seeds: &[Option<i64>],
    gpu: Option<Arc<Gpu>>,
) -> Vec<Result<RunOutput, String>> {
    let values: Option<Vec<u64>> = seeds
        .iter()
        .map(|s| s.and_then(|s| u64::try_from(s).ok()))
        .collect();
    let on_gpu = gpu.filter(|_| config.engine() == pdes_models::preset::EngineKind::Gpu);
    if let (Some(replicas), Some(device), Some(values)) =
        (&config.model_info().replicas, &on_gpu, values)
        && values.len() > 1
        && (replicas.accepts)(config)
    {
        let t0 = web_time::Instant::now();
        if let Ok(reports) = (replicas.run)(config, &values, device.clone()) {
            let share = t0.elapsed().as_secs_f64() / values.len() as f64;
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
    }
    seeds
        .iter()
        .map(|s| {
            let one = match s {
                Some(s) => with_sets(config, &[format!("run.seed={s}")])?,
                None => config.clone(),
            };
            run_config(&one, on_gpu.clone())
        })
        .collect()
}
