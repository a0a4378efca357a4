//! The DEVS part of `pdes-lab verify`: the flattened coordinator on the GPU against its CPU
//! twin on grids that are not multiples of the workgroup (the authors' published GPU min
//! kernel read uninitialised shared memory in a partial last block), both rules, both
//! neighbourhoods, with and without wrapping — step logs, times, reports, and every cell's
//! state, last and next time after each budget.

use super::config::{DevsAlgorithm, DevsConfig};
use super::gpu::{GpuDevs, Snapshot};
use super::live::CpuDevs;
use crate::verify::{Case, CheckResult, Options, check_cases, compare_engines_async, gpu_err};
use pdes_core::sim::Engine;
use pdes_core::sim::waiting::when_back;
use pdes_gpu::Gpu;
use pdes_gpu::shaders::Reductions;
use std::sync::Arc;

/// The cases.
const CASES: &[Case] = &[
    Case {
        label: "SIR 37×53 Moore, 120 steps",
        preset: "teaching-sir",
        sets: &["model.rows=37", "model.cols=53", "run.end_time=120"],
        quick: true,
    },
    Case {
        label: "benchmark 37×53 von Neumann wrapping, work 7, 61 steps",
        preset: "teaching-devs-benchmark",
        sets: &[
            "model.rows=37",
            "model.cols=53",
            "model.neighbourhood=\"von-neumann\"",
            "model.wrap=true",
            "model.work=7",
            "run.end_time=61",
        ],
        quick: true,
    },
    Case {
        label: "SIR 101×67 von Neumann wrapping, rates 0.9/0.5/0.1/0.25, 300 steps",
        preset: "teaching-sir",
        sets: &[
            "model.rows=101",
            "model.cols=67",
            "model.neighbourhood=\"von-neumann\"",
            "model.wrap=true",
            "model.infection_rate=0.9",
            "model.contact_rate=0.5",
            "model.recovery_rate=0.1",
            "model.neighbour_weight=0.25",
            "run.end_time=300",
        ],
        quick: false,
    },
    Case {
        label: "SIR 320×320 (the peer's size), 1000 steps",
        preset: "trabes-sir",
        sets: &["model.rows=320", "model.cols=320"],
        quick: false,
    },
];

/// Every case with reductions `r` (the registry's `verify`).
pub fn checks(
    gpu: &Arc<Gpu>,
    r: Reductions,
    options: Options,
    record: &mut dyn FnMut(CheckResult),
) {
    check_cases(
        "devs",
        &[&super::SIR_INFO, &super::BENCHMARK_INFO],
        CASES,
        r,
        options,
        record,
        |cfg: &DevsConfig| check(gpu, cfg, r, options),
    );
}

/// Nothing beyond the per-variant checks (the registry's `verify_once`).
pub fn check_once(_: &Arc<Gpu>, _: Options, _: &mut dyn FnMut(CheckResult)) {}

/// The GPU engine against the CPU twin under the shared budgets, then every cell.
fn check(
    gpu: &Arc<Gpu>,
    cfg: &DevsConfig,
    r: Reductions,
    options: Options,
) -> Result<Vec<String>, String> {
    pollster::block_on(check_async(gpu, cfg, r, options))
}

/// The DEVS checks a browser tab runs at start (both rules: the benchmark's registry entry
/// carries them, as it carries [`checks`]): [`CASES`]' quick ones with each reduction
/// variant, as a future that yields while the page's device has not answered.
pub async fn page_checks(gpu: Arc<Gpu>) -> Vec<CheckResult> {
    crate::verify::page_cases(
        gpu,
        "devs",
        &[&super::SIR_INFO, &super::BENCHMARK_INFO],
        CASES,
        |gpu, cfg: DevsConfig, r, options| async move { check_async(&gpu, &cfg, r, options).await },
    )
    .await
}

/// [`check`] as a future (see [`page_checks`]).
async fn check_async(
    gpu: &Arc<Gpu>,
    cfg: &DevsConfig,
    r: Reductions,
    options: Options,
) -> Result<Vec<String>, String> {
    let mut twin_cfg = cfg.clone();
    twin_cfg.algorithm = DevsAlgorithm::Flattened;
    let mut cpu = CpuDevs::new(&twin_cfg);
    let mut g = GpuDevs::with_reductions(gpu.clone(), &twin_cfg, r).map_err(gpu_err)?;
    let end = super::ticks(cfg.end_time);
    let mut diffs = compare_engines_async(&mut cpu, &mut g, end, options).await?;
    if diffs.is_empty() {
        let snap = when_back(|| g.snapshot()).await.map_err(gpu_err)?;
        diffs.extend(compare_snapshot(&cpu, &snap));
    }
    if !g.finished() {
        diffs.push("the GPU run did not finish".into());
    }
    Ok(diffs)
}

/// The first cell whose state, last or next time differs, and how many differ.
pub fn compare_cells(cpu: &CpuDevs, g: &GpuDevs) -> Result<Vec<String>, String> {
    let snap = g.snapshot().map_err(gpu_err)?;
    Ok(compare_snapshot(cpu, &snap))
}

/// [`compare_cells`] against cells already read back.
fn compare_snapshot(cpu: &CpuDevs, snap: &Snapshot) -> Vec<String> {
    let sim = cpu.sim();
    let differ: Vec<usize> = (0..sim.cells().len())
        .filter(|&i| {
            sim.cells()[i] != snap.cells[i] || [sim.last()[i], sim.next()[i]] != snap.times[i]
        })
        .collect();
    differ
        .first()
        .map(|&i| {
            format!(
                "{} cells differ; first {i}: CPU {:?} last {} next {}, GPU {:?} (last, next) {:?}",
                differ.len(),
                sim.cells()[i],
                sim.last()[i],
                sim.next()[i],
                snap.cells[i],
                snap.times[i]
            )
        })
        .into_iter()
        .collect()
}
