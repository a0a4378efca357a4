//! The DEVS part of `pdes-lab verify`: the flattened coordinator on the GPU against its CPU
//! twin on grids that are not multiples of the workgroup (the authors' published GPU min
//! kernel read uninitialised shared memory in a partial last block), both rules, both
//! neighbourhoods, with and without wrapping — step logs, times, reports, and every cell's
//! state, last and next time after each budget.

use super::config::{DevsAlgorithm, DevsConfig};
use super::gpu::{GpuDevs, Snapshot};
use super::live::CpuDevs;
use crate::config::ModelInfo;
use crate::twins::Twins;
use crate::verify::{Case, CheckResult, Options, gpu_err};
use pdes_core::sim::waiting::when_back;
use pdes_core::time::Ticks;
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

/// The DEVS engines for the harness (`crate::twins`): the flattened coordinator on the GPU
/// against its CPU twin, then every cell (both rules: the benchmark's registry entry carries
/// the checks).
pub struct DevsTwins;

impl Twins for DevsTwins {
    type Config = DevsConfig;
    type Cpu = CpuDevs;
    type Gpu = GpuDevs;
    const KIND: &'static str = "devs";
    const CASES: &'static [Case] = CASES;

    const MODELS: &'static [&'static ModelInfo] = &[&super::SIR_INFO, &super::BENCHMARK_INFO];

    fn pairs(
        gpu: &Arc<Gpu>,
        cfg: &DevsConfig,
        r: Reductions,
    ) -> Result<Vec<(String, CpuDevs, GpuDevs)>, String> {
        let mut twin = cfg.clone();
        twin.algorithm = DevsAlgorithm::Flattened;
        let g = GpuDevs::with_reductions(gpu.clone(), &twin, r).map_err(gpu_err)?;
        Ok(vec![(String::new(), CpuDevs::new(&twin), g)])
    }

    fn end(cfg: &DevsConfig) -> Ticks {
        super::ticks(cfg.end_time)
    }

    async fn compare_states(
        _: &DevsConfig,
        cpu: &CpuDevs,
        g: &mut GpuDevs,
    ) -> Result<Vec<String>, String> {
        let snap = when_back(|| g.snapshot()).await.map_err(gpu_err)?;
        Ok(compare_snapshot(cpu, &snap))
    }
}

/// Nothing beyond the per-variant checks (the registry's `verify_once`).
pub fn check_once(_: &Arc<Gpu>, _: Options, _: &mut dyn FnMut(CheckResult)) {}

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
