//! The replications' `pdes-lab bench` suites, run by the shared preset-suite runner: each
//! group's CPU row (every core) is the reference and its GPU row must equal it field for
//! field (the engines are exact twins), after `pdes-lab verify --quick` has passed.

use crate::BenchSuite;
use crate::{BenchOptions, PresetCase, run_preset_suite};
use pdes_core::Error as CliError;

/// The replications' suites (the registry's list).
pub const SUITES: &[BenchSuite] = &[
    BenchSuite {
        name: "mmck",
        help: "paper 003's M/M/c/k replications (7,168 × 50,000 customers) and 8× as many, CPU (all cores) against the GPU (needs a real GPU)",
    },
    BenchSuite {
        name: "mixture",
        help: "paper 003 Table 1: fitting normal mixtures of k = 1..10 to the shipped sample's first 500 … 7,051 values and the whole sample repeated 2× and 4×, log-likelihood on the CPU (f64, all cores) against the GPU (f32)",
    },
    BenchSuite {
        name: "mixture-round",
        help: "the cost of one round of a fit: B mixtures of k = 10 evaluated over the shipped sample (7,051 values) in one pass, B = 1 … 120, µs per round on the GPU and the CPU (the round trip's floor and each point's share), and a task's work alone (B mixtures over one chunk of 512 values, one thread)",
    },
    BenchSuite {
        name: "mixture-smoke",
        help: "one small mixture fit (k = 1..3, n = 500) on the CPU and the GPU (for tests)",
    },
    BenchSuite {
        name: "mmck-smoke",
        help: "a tiny M/M/c/k replication run on the CPU and the GPU (for tests)",
    },
];

/// The cases of suite `name`.
fn cases(name: &str) -> Vec<PresetCase> {
    let case = |group, sets| PresetCase {
        group,
        preset: "cheng2014-mmck",
        sets,
    };
    match name {
        "mmck" => vec![
            case("7168 x 50000", &["run.engine=\"cpu\""]),
            case("7168 x 50000", &["run.engine=\"gpu\""]),
            case(
                "57344 x 50000",
                &["run.replications=57344", "run.engine=\"cpu\""],
            ),
            case(
                "57344 x 50000",
                &["run.replications=57344", "run.engine=\"gpu\""],
            ),
        ],
        _ => vec![
            case(
                "100 x 500",
                &[
                    "run.replications=100",
                    "run.customers=500",
                    "run.engine=\"cpu\"",
                ],
            ),
            case(
                "100 x 500",
                &[
                    "run.replications=100",
                    "run.customers=500",
                    "run.engine=\"gpu\"",
                ],
            ),
        ],
    }
}

/// Runs suite `name`.
pub fn run(name: &str, options: &BenchOptions) -> Result<(), CliError> {
    match name {
        "mixture" | "mixture-smoke" => mixture(name, options),
        "mixture-round" => mixture_round(name, options),
        _ => run_preset_suite(name, &cases(name), options),
    }
}

/// One size of the mixture suite: the same fits on both engines.
#[derive(Debug, serde::Serialize)]
struct MixtureRow {
    n: u64,
    components: String,
    cpu_seconds: f64,
    gpu_seconds: f64,
    speedup: f64,
    cpu_evaluations: u64,
    gpu_evaluations: u64,
    cpu_us_per_evaluation: f64,
    gpu_us_per_evaluation: f64,
    cpu_rounds: u64,
    gpu_rounds: u64,
    gpu_us_per_round: f64,
    cpu_chosen: usize,
    gpu_chosen: usize,
    cpu_bic: Vec<f64>,
    gpu_bic: Vec<f64>,
}

/// Paper 003 Table 1's shape: total time to fit k = 1..10 at each n, CPU against GPU.
fn mixture(name: &str, options: &BenchOptions) -> Result<(), CliError> {
    use pdes_models::fit::{self, Data, Search, data::LGD_N};
    let verification = Some(crate::verification_gate()?);
    let gpu = pdes_gpu::Gpu::shared().map_err(CliError::Run)?;
    let whole = Data::synthetic_lgd(LGD_N);
    let (sizes, ks): (Vec<Data>, std::ops::RangeInclusive<usize>) = if name == "mixture" {
        let mut v: Vec<Data> = [500, 1000, 2000, 4000, LGD_N]
            .iter()
            .map(|&n| Data::synthetic_lgd(n))
            .collect();
        v.push(whole.repeated(2));
        v.push(whole.repeated(4));
        (v, 1..=10)
    } else {
        (vec![Data::synthetic_lgd(500)], 1..=3)
    };
    let mut rows = Vec::new();
    let mut table = format!(
        "{:>6} {:>10} {:>10} {:>8} {:>12} {:>10} {:>12}  BIC's k (cpu/gpu)\n",
        "n", "cpu s", "gpu s", "ratio", "cpu µs/eval", "gpu rounds", "gpu µs/round"
    );
    for data in &sizes {
        let run = |g: Option<std::sync::Arc<pdes_gpu::Gpu>>| {
            fit::report(data, ks.clone(), g, Search::default()).map_err(CliError::Run)
        };
        let cpu = run(None)?;
        let g = run(Some(gpu.clone()))?;
        let evals = |r: &fit::Report| r.fits.iter().map(|f| f.evaluations).sum::<u64>();
        let (ce, ge) = (evals(&cpu), evals(&g));
        let row = MixtureRow {
            n: data.n(),
            components: format!("{}..{}", ks.start(), ks.end()),
            cpu_seconds: cpu.wall_seconds,
            gpu_seconds: g.wall_seconds,
            speedup: cpu.wall_seconds / g.wall_seconds,
            cpu_evaluations: ce,
            gpu_evaluations: ge,
            cpu_us_per_evaluation: cpu.wall_seconds * 1e6 / ce as f64,
            gpu_us_per_evaluation: g.wall_seconds * 1e6 / ge as f64,
            cpu_rounds: cpu.rounds,
            gpu_rounds: g.rounds,
            gpu_us_per_round: g.wall_seconds * 1e6 / g.rounds.max(1) as f64,
            cpu_chosen: cpu.chosen_components,
            gpu_chosen: g.chosen_components,
            cpu_bic: cpu.fits.iter().map(|f| f.bic).collect(),
            gpu_bic: g.fits.iter().map(|f| f.bic).collect(),
        };
        let line = format!(
            "{:>6} {:>10.3} {:>10.3} {:>8.2} {:>12.1} {:>10} {:>12.1}  {}/{}\n",
            row.n,
            row.cpu_seconds,
            row.gpu_seconds,
            row.speedup,
            row.cpu_us_per_evaluation,
            row.gpu_rounds,
            row.gpu_us_per_round,
            row.cpu_chosen,
            row.gpu_chosen
        );
        eprint!("{line}");
        table += &line;
        rows.push(row);
    }
    crate::write_report(name, options, &rows, &table, verification)
}

/// One batch size of the mixture-round suite.
#[derive(Debug, serde::Serialize)]
struct RoundRow {
    engine: &'static str,
    mixtures: usize,
    rounds: usize,
    median_us: f64,
    min_us: f64,
    max_us: f64,
}

/// The mixture-round suite's "task" row: each mixture over the first [`CHUNK`] values
/// alone, on the calling thread — the work of a task of a one-mixture round, so that a
/// CPU round's time less this is what spreading it over the cores costs.
///
/// [`CHUNK`]: pdes_models::fit::data::CHUNK
struct FirstChunk<'a>(&'a pdes_models::fit::Data);

impl pdes_models::fit::Loglik for FirstChunk<'_> {
    fn logliks(&self, mixes: &[pdes_models::fit::Mixture]) -> Result<Vec<f64>, String> {
        use pdes_models::fit::blocks::{Components, weighted_loglik};
        let n = pdes_models::fit::data::CHUNK.min(self.0.values.len());
        Ok(mixes
            .iter()
            .map(|m| weighted_loglik(&Components::of(m), &self.0.values[..n], &self.0.counts[..n]))
            .collect())
    }

    fn speculate(&self) -> bool {
        false
    }
}

/// µs per round against the batch's size: what a fit's round costs where (the floor of
/// "Fits in rounds", bench/NOTES.md).
fn mixture_round(name: &str, options: &BenchOptions) -> Result<(), CliError> {
    use pdes_models::fit::{Data, Loglik, Mixture, data::LGD_N, gpu::GpuLoglik};
    let verification = Some(crate::verification_gate()?);
    let gpu = pdes_gpu::Gpu::shared().map_err(CliError::Run)?;
    let data = Data::synthetic_lgd(LGD_N);
    let on_gpu = GpuLoglik::new(gpu, &data).map_err(CliError::Run)?;
    let mixture = |i: usize| Mixture {
        weights: vec![0.1; 10],
        means: (0..10)
            .map(|j| (j as f64 + 0.5) / 10.0 + 1e-3 * i as f64)
            .collect(),
        sds: vec![0.05; 10],
    };
    let mut rows = Vec::new();
    let mut table = format!(
        "{:>4} {:>9} {:>7} {:>12} {:>10} {:>10}\n",
        "", "mixtures", "rounds", "median µs", "min µs", "max µs"
    );
    for mixtures in [1usize, 3, 12, 48, 120] {
        let batch: Vec<Mixture> = (0..mixtures).map(mixture).collect();
        let one_task = FirstChunk(&data);
        let engines: [(&'static str, &dyn Loglik, usize); 3] = [
            ("gpu", &on_gpu, 1000),
            ("cpu", &data, 30),
            ("task", &one_task, 30),
        ];
        for (engine, e, rounds) in engines {
            let mut times = Vec::with_capacity(rounds);
            for i in 0..rounds + rounds / 10 {
                let t = std::time::Instant::now();
                e.logliks(&batch).map_err(CliError::Run)?;
                // the first tenth warms up (pipelines, buffers, caches)
                if i >= rounds / 10 {
                    times.push(t.elapsed().as_secs_f64() * 1e6);
                }
            }
            times.sort_by(f64::total_cmp);
            let row = RoundRow {
                engine,
                mixtures,
                rounds,
                median_us: times[times.len() / 2],
                min_us: times[0],
                max_us: times[times.len() - 1],
            };
            let line = format!(
                "{:>4} {:>9} {:>7} {:>12.1} {:>10.1} {:>10.1}\n",
                row.engine, row.mixtures, row.rounds, row.median_us, row.min_us, row.max_us
            );
            eprint!("{line}");
            table += &line;
            rows.push(row);
        }
    }
    crate::write_report(name, options, &rows, &table, verification)
}
