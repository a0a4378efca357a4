//! The replications' part of `pdes-lab verify` (once per verification: the shader uses no
//! workgroup reductions): the GPU's replications equal the CPU's word for word — every
//! replication's clock, queue, servers, random-number counters and tally — after a
//! budget that stops them mid-run and at the end, and so do the summaries — with the draws
//! made each way the device can make them (`DrawsMadeBy`), the times held each way the
//! run's laws allow (`Times`).

use super::config::MmckConfig;
use super::cpu::CpuMmck;
use super::draws::DrawsMadeBy;
use super::gpu::GpuMmck;
use super::times::Times;
use crate::verify::{Case, CheckResult, Options, check_case, compare_reports, gpu_err, timed};
use pdes_core::sim::waiting::{advance_in_slices, advance_settled, when_back};
use pdes_core::sim::{Budget, Engine};
use pdes_gpu::Gpu;
use std::sync::Arc;

/// The cases: paper 003's queue with a replication count that is not a multiple of the
/// workgroup; one server and no waiting room (Erlang's loss system, an empty queue ring)
/// with a warm-up; eight servers and a long waiting room (the ring wraps many times).
pub const CASES: &[Case] = &[
    Case {
        label: "λ=4 μ=1 c=3 k=5, 700 replications × 3000",
        quick: true,
        preset: "cheng2014-mmck",
        sets: &["run.replications=700", "run.customers=3000", "run.seed=9"],
    },
    Case {
        label: "c=1 k=1, warm-up 100, 129 replications × 2000",
        quick: false,
        preset: "cheng2014-mmck",
        sets: &[
            "model.servers=1",
            "model.capacity=1",
            "model.arrival_rate=0.8",
            "run.replications=129",
            "run.customers=2000",
            "run.warmup=100",
        ],
    },
    Case {
        label: "c=8 k=40 λ=7.5, 65 replications × 4000",
        quick: false,
        preset: "cheng2014-mmck",
        sets: &[
            "model.servers=8",
            "model.capacity=40",
            "model.arrival_rate=7.5",
            "run.replications=65",
            "run.customers=4000",
            "run.seed=77",
        ],
    },
];

/// The registry's per-variant checks: none (the replications use no reductions).
pub fn checks(
    _gpu: &Arc<Gpu>,
    _r: pdes_gpu::shaders::Reductions,
    _options: Options,
    _record: &mut dyn FnMut(CheckResult),
) {
}

/// The registry's once-per-verification checks (paper 003's GPU parts: the replications
/// and the mixture log-likelihood).
pub fn check_once(gpu: &Arc<Gpu>, options: Options, record: &mut dyn FnMut(CheckResult)) {
    record(timed(
        "mixture log-likelihood on the GPU (f32) within 1e-5·Σ|ln f| of the CPU's (f64), n = 28,204, k = 1..10".into(),
        || check_mixture(gpu, options),
    ));
    record(timed(crate::fit::verify::label(gpu, options), || {
        crate::fit::verify::check_device_fit(gpu, options)
    }));
    for case in CASES.iter().filter(|c| c.quick || !options.quick) {
        record(check_case::<MmckConfig>(
            format!("mmck replications on the GPU = on the CPU, {}", case.label),
            &[&super::INFO],
            case,
            |cfg| check(gpu, cfg, options),
        ));
    }
}

/// Runs both engines to half the expected length, then to the end; compares every
/// replication after each, and the summaries at the end.
fn check(gpu: &Arc<Gpu>, cfg: &MmckConfig, options: Options) -> Result<Vec<String>, String> {
    pollster::block_on(check_async(gpu, cfg, options))
}

/// The replication checks a browser tab runs at start (the mixture's log-likelihood is the
/// Fit view's, which runs on the CPU in a page): [`CASES`]' quick ones, as a future that
/// yields while the page's device has not answered. The replications use no reductions:
/// one pass, named as [`check_once`] names them.
pub async fn page_checks(gpu: Arc<Gpu>) -> Vec<CheckResult> {
    let options = Options {
        quick: true,
        perturb_gpu: false,
    };
    let mut results = Vec::new();
    for case in CASES.iter().filter(|c| c.quick) {
        let name = format!("mmck replications on the GPU = on the CPU, {}", case.label);
        let found = match crate::verify::config_of(&[&super::INFO], case) {
            Ok(c) => match c.get::<MmckConfig>() {
                Some(cfg) => check_async(&gpu, cfg, options).await,
                None => Err(format!("{}: not an M/M/c/k configuration", case.preset)),
            },
            Err(e) => Err(e),
        };
        results.push(crate::verify::timed_async(name, async { found }).await);
    }
    results
}

/// [`check`] as a future (see [`page_checks`]): every way the device can make the draws,
/// the differences of each after a line naming it.
async fn check_async(
    gpu: &Arc<Gpu>,
    cfg: &MmckConfig,
    options: Options,
) -> Result<Vec<String>, String> {
    let mut diffs = Vec::new();
    for draws in DrawsMadeBy::every(&gpu.limits) {
        for times in Times::every(&cfg.shape(), draws) {
            let found = check_way(gpu, cfg, options, draws, times).await?;
            if !found.is_empty() {
                diffs.push(format!(
                    "with the draws made by {}, the times as {}:",
                    draws.name(),
                    times.name()
                ));
                diffs.extend(found);
            }
        }
    }
    Ok(diffs)
}

/// [`check_async`] for one way of making the draws and holding the times.
async fn check_way(
    gpu: &Arc<Gpu>,
    cfg: &MmckConfig,
    options: Options,
    draws: DrawsMadeBy,
    times: Times,
) -> Result<Vec<String>, String> {
    let mut cpu = CpuMmck::new(cfg);
    let mut g = GpuMmck::with_way(gpu.clone(), cfg, draws, times).map_err(gpu_err)?;
    let half = pdes_core::time::to_ticks(cfg.expected_length() / 2.0);
    let mut diffs = Vec::new();
    for budget in [Budget::Until(half), Budget::Finish] {
        // in slices: in a page the CPU twin shares the one thread with the window's frames
        let end = pdes_core::time::to_ticks(crate::config::ModelConfig::end_time(cfg));
        advance_in_slices(&mut cpu, budget, end)
            .await
            .map_err(gpu_err)?;
        advance_settled(&mut g, budget).await.map_err(gpu_err)?;
        let c = cpu.replications();
        let w = when_back(|| g.replications()).await.map_err(gpu_err)?;
        let differ: Vec<usize> = (0..c.len()).filter(|&i| c[i] != w[i]).collect();
        if let Some(&i) = differ.first() {
            diffs.push(format!(
                "{budget:?}: {} replications differ; first {i}: CPU {:?}, GPU {:?}",
                differ.len(),
                c[i],
                w[i]
            ));
        }
    }
    let mut gpu_report = when_back(|| g.report()).await.map_err(gpu_err)?;
    if options.perturb_gpu {
        gpu_report.perturb_work();
    }
    diffs.extend(
        compare_reports(&cpu.report().map_err(gpu_err)?, &gpu_report)
            .into_iter()
            .filter(|d| !d.starts_with("engine:")),
    );
    if !when_back(|| g.standing())
        .await
        .map_err(gpu_err)?
        .finished()
    {
        diffs.push("the GPU replications did not all finish".into());
    }
    Ok(diffs)
}

/// The GPU's f32 log-likelihood of the shipped sample repeated 4× against the CPU's f64,
/// for mixtures of 1..10 components, within [`crate::fit::gpu::TOLERANCE`].
fn check_mixture(gpu: &Arc<Gpu>, options: Options) -> Result<Vec<String>, String> {
    use crate::fit::{Data, Loglik, Mixture, data::LGD_N, gpu::GpuLoglik};
    let data = Data::synthetic_lgd(LGD_N).repeated(4);
    let g = GpuLoglik::new(gpu.clone(), &data)?;
    let mut diffs = Vec::new();
    for k in 1..=10usize {
        let mix = Mixture {
            weights: (1..=k)
                .map(|j| j as f64 / (k * (k + 1) / 2) as f64)
                .collect(),
            means: (0..k).map(|j| (j as f64 + 0.5) / k as f64).collect(),
            sds: vec![0.25 / k as f64; k],
        };
        let cpu = data.loglik(&mix);
        let mut on_gpu = Loglik::loglik(&g, &mix)?;
        if options.perturb_gpu {
            on_gpu += 1.0;
        }
        let bound = crate::fit::gpu::TOLERANCE * data.abs_loglik(&mix);
        if (cpu - on_gpu).abs() > bound {
            diffs.push(format!(
                "k = {k}: loglik CPU {cpu}, GPU {on_gpu} (bound {bound:.3e})"
            ));
        }
    }
    Ok(diffs)
}
