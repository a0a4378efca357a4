//! The diffusion grid's part of `pdes-lab verify`: grids that are not multiples of the
//! 256 × 10 tile, and the check that the GPU engine gives the CPU twin's summary, step log
//! and every cell bit for bit.

use super::cpu::{CpuDiffusion, DiffusionEngine};
use super::gpu::GpuDiffusion;
use crate::config::ModelInfo;
use crate::diffusion::config::DiffusionConfig;
use crate::twins::Twins;
use crate::verify::{Case, CheckResult, Options, gpu_err};
use pdes_core::sim::waiting::when_back;
use pdes_core::time::Ticks;
use pdes_gpu::Gpu;
use pdes_gpu::shaders::Reductions;
use std::sync::Arc;

/// Every case with `r` (the registry's `verify`).
/// Nothing beyond the per-variant checks (the registry's `verify_once`).
pub fn check_once(_: &Arc<Gpu>, _: Options, _: &mut dyn FnMut(CheckResult)) {}

/// The diffusion configurations: grids that are not multiples of the 256 × 10 tile, and
/// grids of whole vec4 rows (the quad kernels' 64-quad × 16-row tiles, partial ones too).
const CASES: &[Case] = &[
    Case {
        label: "timestepped 37×260 (quad kernels)",
        preset: "teaching-diffusion",
        sets: &[
            "model.rows=37",
            "model.cols=260",
            "model.beta=0.25",
            "model.alpha_y=0.5",
            "run.algorithm=\"timestepped\"",
            "run.dt=0.05",
            "run.end_time=10.03",
        ],
        quick: true,
    },
    Case {
        label: "timestepped 37×53",
        preset: "teaching-diffusion",
        sets: &[
            "model.rows=37",
            "model.cols=53",
            "model.beta=0.25",
            "run.algorithm=\"timestepped\"",
            "run.dt=0.05",
            "run.end_time=20.03",
        ],
        quick: true,
    },
    Case {
        label: "hybrid 37×53",
        preset: "teaching-diffusion",
        sets: &[
            "model.rows=37",
            "model.cols=53",
            "run.algorithm=\"hybrid\"",
            "run.end_time=30",
        ],
        quick: true,
    },
    Case {
        // the bench's 100² hybrid row: cells ahead of the front shrink towards underflow
        // (where the H100 once differed: it flushes subnormals; now none can arise)
        label: "hybrid 100×100 to T=50 (underflow ahead of the front)",
        preset: "teaching-diffusion",
        sets: &[
            "model.rows=100",
            "model.cols=100",
            "run.algorithm=\"hybrid\"",
            "run.quantum=0.5",
            "run.end_time=50",
        ],
        quick: true,
    },
    Case {
        label: "hybrid 13×301 anisotropic",
        preset: "teaching-diffusion",
        sets: &[
            "model.rows=13",
            "model.cols=301",
            "model.alpha_x=0.7",
            "model.alpha_y=1.3",
            "model.beta=0.5",
            "run.algorithm=\"hybrid\"",
            "run.quantum=0.25",
            "run.end_time=25",
        ],
        quick: false,
    },
];

/// The diffusion engines for the harness (`crate::twins`): the GPU engine against its CPU
/// twin, then every cell's temperature bit for bit.
pub struct DiffusionTwins;

impl Twins for DiffusionTwins {
    type Config = DiffusionConfig;
    type Cpu = CpuDiffusion;
    type Gpu = GpuDiffusion;
    const KIND: &'static str = "diffusion";
    const CASES: &'static [Case] = CASES;

    const MODELS: &'static [&'static ModelInfo] = &[&super::INFO];

    fn pairs(
        gpu: &Arc<Gpu>,
        cfg: &DiffusionConfig,
        r: Reductions,
    ) -> Result<Vec<(String, CpuDiffusion, GpuDiffusion)>, String> {
        let g = GpuDiffusion::with_reductions(gpu.clone(), cfg, r).map_err(gpu_err)?;
        Ok(vec![(String::new(), CpuDiffusion::new(cfg), g)])
    }

    fn end(cfg: &DiffusionConfig) -> Ticks {
        cfg.end_ticks()
    }

    async fn compare_states(
        cfg: &DiffusionConfig,
        cpu: &CpuDiffusion,
        g: &mut GpuDiffusion,
    ) -> Result<Vec<String>, String> {
        let (cv, gv) = (
            cpu.temperatures().map_err(gpu_err)?,
            when_back(|| g.temperatures()).await.map_err(gpu_err)?,
        );
        let differing: Vec<usize> = (0..cv.len().min(gv.len()))
            .filter(|&i| cv[i].to_bits() != gv[i].to_bits())
            .collect();
        let cols = cfg.model.cols as usize;
        Ok(differing
            .first()
            .map(|&i| {
                format!(
                    "cells: {} of {} differ; first ({}, {}): CPU {:e}, GPU {:e}",
                    differing.len(),
                    cv.len(),
                    i / cols,
                    i % cols,
                    cv[i],
                    gv[i]
                )
            })
            .into_iter()
            .collect())
    }
}
