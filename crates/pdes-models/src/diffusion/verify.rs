//! The diffusion grid's part of `pdes-lab verify`: grids that are not multiples of the
//! 256 × 10 tile, and the check that the GPU engine gives the CPU twin's summary, step log
//! and every cell bit for bit.

use super::cpu::{CpuDiffusion, DiffusionEngine};
use super::gpu::GpuDiffusion;
use crate::diffusion::config::DiffusionConfig;
use crate::verify::{Case, CheckResult, Options, check_cases, compare_engines_async, gpu_err};
use pdes_core::sim::waiting::when_back;
use pdes_gpu::Gpu;
use pdes_gpu::shaders::Reductions;
use std::sync::Arc;

/// Every case with `r` (the registry's `verify`).
pub fn checks(
    gpu: &Arc<Gpu>,
    r: Reductions,
    options: Options,
    record: &mut dyn FnMut(CheckResult),
) {
    check_cases(
        "diffusion",
        &[&super::INFO],
        CASES,
        r,
        options,
        record,
        |cfg: &DiffusionConfig| check_diffusion(gpu, cfg, r, options),
    );
}

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

fn check_diffusion(
    gpu: &Arc<Gpu>,
    cfg: &DiffusionConfig,
    r: Reductions,
    options: Options,
) -> Result<Vec<String>, String> {
    pollster::block_on(check_async(gpu, cfg, r, options))
}

/// The diffusion checks a browser tab runs at start: [`CASES`]' quick ones with each
/// reduction variant, as a future that yields while the page's device has not answered.
pub async fn page_checks(gpu: Arc<Gpu>) -> Vec<CheckResult> {
    crate::verify::page_cases(
        gpu,
        "diffusion",
        &[&super::INFO],
        CASES,
        |gpu, cfg: DiffusionConfig, r, options| async move {
            check_async(&gpu, &cfg, r, options).await
        },
    )
    .await
}

/// [`check_diffusion`] as a future (see [`page_checks`]).
async fn check_async(
    gpu: &Arc<Gpu>,
    cfg: &DiffusionConfig,
    r: Reductions,
    options: Options,
) -> Result<Vec<String>, String> {
    let mut cpu = CpuDiffusion::new(cfg);
    let mut g = GpuDiffusion::with_reductions(gpu.clone(), cfg, r).map_err(gpu_err)?;
    let mut diffs = compare_engines_async(&mut cpu, &mut g, cfg.end_ticks(), options).await?;
    let (cv, gv) = (
        cpu.temperatures().map_err(gpu_err)?,
        when_back(|| g.temperatures()).await.map_err(gpu_err)?,
    );
    let differing: Vec<usize> = (0..cv.len().min(gv.len()))
        .filter(|&i| cv[i].to_bits() != gv[i].to_bits())
        .collect();
    if let Some(&i) = differing.first() {
        let cols = cfg.model.cols as usize;
        diffs.push(format!(
            "cells: {} of {} differ; first ({}, {}): CPU {:e}, GPU {:e}",
            differing.len(),
            cv.len(),
            i / cols,
            i % cols,
            cv[i],
            gv[i]
        ));
    }
    Ok(diffs)
}
