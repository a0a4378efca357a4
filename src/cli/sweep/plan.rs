//! A sweep resolved from its arguments: the grid, the seeds, the identity, and how one
//! point's runs are configured and run.

use super::report::as_number;
use super::{CliError, RunArgs, SweepArgs, config_from_args, input};
use pdes_runs::sweep::spec::{Vary, cell, grid, parse_vary, set_value};

/// The `[sweep]` table of a sweep preset.
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SweepTable {
    #[serde(default)]
    vary: Vec<String>,
    seeds: Option<u32>,
    y: Option<String>,
}

/// A sweep, resolved: the grid, the seeds, what to run.
pub(super) struct Plan {
    pub(super) base: RunArgs,
    pub(super) varies: Vec<Vary>,
    pub(super) points: Vec<Vec<toml::Value>>,
    pub(super) seeds: Vec<Option<i64>>,
    pub(super) y: Option<String>,
    pub(super) statistics: Vec<&'static str>,
    /// The sweep's identity: what every row's `sweep` cell holds.
    pub(super) identity: String,
}

impl Plan {
    pub(super) fn new(args: &SweepArgs) -> Result<Self, CliError> {
        let base = RunArgs {
            preset: args.preset.clone(),
            set: args.set.clone(),
            algorithm: args.algorithm.clone(),
            engine: args.engine,
            ..Default::default()
        };
        let config = config_from_args(&base)?;
        let info = config.model_info();
        let name = args
            .preset
            .as_deref()
            .unwrap_or(pdes_models::preset::default_preset());
        let (_, text) = pdes_models::preset::load_text(name).map_err(input)?;
        let table: toml::Table = text.parse().map_err(input)?;
        let sweep: SweepTable = match table.get("sweep") {
            Some(v) => v
                .clone()
                .try_into()
                .map_err(|e: toml::de::Error| input(format!("[sweep]: {}", e.message())))?,
            None => SweepTable::default(),
        };
        let specs = if args.vary.is_empty() {
            &sweep.vary
        } else {
            &args.vary
        };
        if specs.is_empty() {
            return Err(input(
                "--vary: nothing to sweep (give --vary KEY=V1,V2,… or KEY=START:STOP:N[:log], or a preset with a [sweep] table)",
            ));
        }
        let varies: Vec<Vary> = specs
            .iter()
            .map(|s| parse_vary(s, info.keys))
            .collect::<Result<_, _>>()?;
        for (i, v) in varies.iter().enumerate() {
            if varies[..i].iter().any(|w| w.key == v.key) {
                return Err(input(format!("--vary {}: swept twice", v.key)));
            }
            // the seeds of a run are --seeds' (run.seed, run.seed + 1, …): a swept seed
            // would be overwritten by them
            if v.key == "run.seed" {
                return Err(input(
                    "--vary run.seed: seeds are not swept as a key; use --seeds N (runs each point with run.seed, run.seed + 1, …, run.seed + N − 1) and --set run.seed=S for the first",
                ));
            }
        }
        let n_seeds = args.seeds.or(sweep.seeds).unwrap_or(1);
        if !(1..=10_000).contains(&n_seeds) {
            return Err(input(format!(
                "--seeds {n_seeds}: the seeds per point are a whole number from 1 to 10,000"
            )));
        }
        let has_seed = info.has_key("run.seed");
        if n_seeds > 1 && !has_seed {
            return Err(input(format!(
                "--seeds {n_seeds}: model.kind = \"{}\" has no run.seed (its runs are deterministic)",
                info.kind
            )));
        }
        let base_seed = has_seed.then(|| base_seed(&text, &args.set));
        let seeds: Vec<Option<i64>> = (0..n_seeds)
            .map(|i| match base_seed {
                Some(s) => s.checked_add(i64::from(i)).map(Some).ok_or_else(|| {
                    input(format!(
                        "--seeds {n_seeds}: run.seed {s} + {} is past the largest seed, {}; give a smaller run.seed",
                        n_seeds - 1,
                        i64::MAX
                    ))
                }),
                None => Ok(None),
            })
            .collect::<Result<_, _>>()?;
        check_grid(&varies, &config)?;
        let points = grid(&varies);
        // what the results depend on: the engine is not part of it (GPU ≡ CPU, checked by
        // verify), so a CPU shard and a GPU shard of one sweep merge
        let mut resolved = config.clone();
        resolved.set_engine(pdes_models::preset::EngineKind::Cpu);
        let mut spec = resolved.to_toml("sweep");
        for v in &varies {
            let values: Vec<String> = v.values.iter().map(cell).collect();
            spec.push_str(&format!("\nvary {} = {}", v.key, values.join(",")));
        }
        spec.push_str(&format!("\nseeds = {seeds:?}"));
        let y = args.y.clone().or(sweep.y);
        if let Some(y) = &y {
            check_statistic(&config, y)?;
        }
        if args.plot.is_some() && points.iter().any(|p| as_number(&p[0]).is_none()) {
            return Err(input(format!(
                "--plot: the first swept key, {}, must be numeric to be an x axis",
                varies[0].key
            )));
        }
        Ok(Self {
            base,
            varies,
            points,
            seeds,
            y,
            statistics: Vec::new(),
            identity: pdes_runs::sweep::identity(&spec),
        })
    }

    /// The configuration of run (point, seed).
    pub(super) fn run_args(&self, point: usize, seed: Option<i64>) -> RunArgs {
        let mut a = RunArgs {
            preset: self.base.preset.clone(),
            set: self.base.set.clone(),
            algorithm: self.base.algorithm.clone(),
            engine: self.base.engine,
            ..Default::default()
        };
        for (v, x) in self.varies.iter().zip(&self.points[point]) {
            a.set.push(format!("{}={}", v.key, set_value(x)));
        }
        if let Some(s) = seed {
            a.set.push(format!("run.seed={s}"));
        }
        a
    }

    /// "key=value, key=value" of a point.
    pub(super) fn describe(&self, point: usize) -> String {
        self.varies
            .iter()
            .zip(&self.points[point])
            .map(|(v, x)| format!("{}={}", v.key, cell(x)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Refuses `--y` before any run when it names no numeric field of the model's summary:
/// the fields are read from the report of a CPU engine built on the base configuration and
/// not advanced (cheap: a sweep whose base state is larger than 64 MiB is checked after its
/// runs instead, as before).
fn check_statistic(config: &pdes_models::preset::Config, y: &str) -> Result<(), CliError> {
    let mut probe = config.clone();
    probe.set_engine(pdes_models::preset::EngineKind::Cpu);
    if pdes_runs::engines::cpu_bytes(&probe) > 64 << 20 {
        return Ok(());
    }
    let Ok((mut engine, _)) =
        pdes_runs::engines::build(&probe, None, pdes_runs::engines::GpuFallback::Refuse)
    else {
        return Ok(());
    };
    let Ok(report) = engine.report() else {
        return Ok(());
    };
    let numeric: Vec<&str> = report
        .fields
        .iter()
        .filter(|(_, v)| v.is_number())
        .map(|(k, _)| k.as_str())
        .collect();
    if numeric.contains(&y) {
        Ok(())
    } else {
        Err(input(format!(
            "--y {y}: not a numeric field of the runs' summaries (they have: {})",
            numeric.join(", ")
        )))
    }
}

/// run.seed after the preset and the --set overrides (1 when neither gives one).
fn base_seed(text: &str, sets: &[String]) -> i64 {
    let mut table: toml::Table = text.parse().unwrap_or_default();
    for s in sets {
        let _ = pdes_models::preset::apply_set(&mut table, s);
    }
    pdes_runs::sweep::first_seed(&table)
}

/// Runs one job's runs — (point, seed index) pairs — and returns each one's summary fields,
/// or the error that stopped it, in order: on the GPU (`device`, or the shared one), the
/// runs that can share an engine run side by side in one ([`pdes_runs::sweep::run_all`]).
pub(super) fn run_job(
    plan: &Plan,
    runs: &[(usize, u32)],
    device: Option<std::sync::Arc<pdes_gpu::Gpu>>,
) -> Vec<Result<pdes_runs::sweep::RunOutput, String>> {
    let configs: Vec<Result<pdes_models::config::Config, String>> = runs
        .iter()
        .map(|&(p, s)| {
            config_from_args(&plan.run_args(p, plan.seeds[s as usize])).map_err(|e| e.to_string())
        })
        .collect();
    let on_gpu = configs.iter().any(|c| {
        c.as_ref()
            .is_ok_and(|c| c.engine() == pdes_models::preset::EngineKind::Gpu)
    });
    let gpu = if on_gpu {
        match device.map_or_else(pdes_gpu::Gpu::shared, Ok) {
            Ok(g) => Some(g),
            Err(e) => return runs.iter().map(|_| Err(e.clone())).collect(),
        }
    } else {
        None
    };
    pdes_runs::sweep::run_all(configs, gpu)
}

/// The most points a sweep's grid may have (each point is at least one run).
pub(super) const MAX_POINTS: u64 = 1_000_000;

/// The most runs one sweep process holds (points of its shard × seeds): each run's summary
/// is kept for the aggregates and the final file, a few kilobytes each. Past it, the sweep
/// is refused before any run (10,000 values × 10,000 seeds aborted on a 4 GiB allocation,
/// issue 57 §2); `--shard I/N` splits it over processes.
pub(super) const MAX_RUNS: u64 = 1_000_000;

/// Refuses, before any run, a sweep whose shard (the whole sweep without `--shard`) holds
/// more than [`MAX_RUNS`] runs, saying how many shards would do.
pub(super) fn check_runs(plan: &Plan, shard: Option<(usize, usize)>) -> Result<(), CliError> {
    let points = plan.points.len() as u64;
    let in_shard = match shard {
        Some((i, n)) => (points + (n - 1 - i) as u64) / n as u64, // the p < points with p mod n = i
        None => points,
    };
    let seeds = plan.seeds.len() as u64;
    let runs = in_shard.saturating_mul(seeds);
    if runs <= MAX_RUNS {
        return Ok(());
    }
    let total = points.saturating_mul(seeds);
    let shards = total.div_ceil(MAX_RUNS);
    let g = pdes_models::keys::grouped;
    Err(input(format!(
        "the sweep has {} runs{} ({} points × {} seeds); one sweep process holds at most {} runs — sweep fewer values or seeds, or split it with --shard I/{} (I from 0 to {}) and join the files with sweep-merge",
        g(runs),
        if shard.is_some() {
            " in this shard"
        } else {
            ""
        },
        g(in_shard),
        g(seeds),
        g(MAX_RUNS),
        g(shards),
        g(shards - 1)
    )))
}

/// Refuses, before any run, a grid too large to list and a swept value of another kind
/// than its key takes (a word for a number): `base` is the configuration every point
/// starts from, whose keys carry their kinds.
fn check_grid(varies: &[Vary], base: &pdes_models::preset::Config) -> Result<(), CliError> {
    let count = varies
        .iter()
        .try_fold(1u64, |n, v| n.checked_mul(v.values.len() as u64))
        .unwrap_or(u64::MAX);
    if count > MAX_POINTS {
        let sizes: Vec<String> = varies.iter().map(|v| v.values.len().to_string()).collect();
        return Err(input(format!(
            "--vary: the grid has {} points ({}); a sweep has at most {MAX_POINTS} — sweep fewer values, or split the grid over several sweeps",
            if count == u64::MAX {
                "more than 2^64".to_string()
            } else {
                count.to_string()
            },
            sizes.join(" × ")
        )));
    }
    let table: toml::Table = base.to_toml("").parse().unwrap_or_default();
    for v in varies {
        let Some((section, name)) = v.key.split_once('.') else {
            continue;
        };
        let Some(current) = table.get(section).and_then(|t| t.get(name)) else {
            continue;
        };
        let number = |x: &toml::Value| x.is_integer() || x.is_float();
        for x in &v.values {
            let fits = match current {
                toml::Value::Integer(_) | toml::Value::Float(_) => number(x),
                toml::Value::String(_) => x.is_str(),
                toml::Value::Boolean(_) => x.is_bool(),
                _ => true,
            };
            if !fits {
                let kind = match current {
                    toml::Value::String(_) => "a word",
                    toml::Value::Boolean(_) => "true or false",
                    _ => "a number",
                };
                return Err(input(format!(
                    "--vary {}: {} is not {kind} ({} takes {kind})",
                    v.key,
                    cell(x),
                    v.key
                )));
            }
        }
    }
    Ok(())
}
