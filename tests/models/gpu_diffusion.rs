//! The GPU diffusion engines against their CPU twins, on whatever adapter is present (Mesa
//! lavapipe in CI). With PDES_REQUIRE_GPU=1 a missing adapter fails.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::common_cfg;
use common_cfg::{diffusion_config as config, gpu};
use pdes_lab::models::diffusion::config::DiffusionConfig;
use pdes_lab::models::diffusion::cpu::{CpuDiffusion, DiffusionEngine};
use pdes_lab::models::diffusion::gpu::GpuDiffusion;
use pdes_lab::sim::{Budget, Engine};

/// Runs CPU and GPU engines of `cfg` through the same budgets; after each, the time, the
/// step log and every cell must agree bit for bit (the shader keeps products out of fused
/// multiply-adds and decides the hybrid step by products, not by its divide).
fn assert_twins(cfg: &DiffusionConfig, budgets: &[Budget]) {
    let Some(g) = gpu() else { return };
    for r in pdes_lab::verify::variants(&g) {
        let gpu = GpuDiffusion::with_reductions(g.clone(), cfg, r).unwrap();
        assert_twins_with(cfg, gpu, budgets);
    }
}

fn assert_twins_with(cfg: &DiffusionConfig, mut gpu: GpuDiffusion, budgets: &[Budget]) {
    let mut cpu = CpuDiffusion::new(cfg);
    let range = (cfg.model.boundary - cfg.model.initial).abs();
    for b in budgets {
        cpu.advance(*b).unwrap();
        gpu.advance(*b).unwrap();
        assert_eq!(gpu.now(), cpu.now(), "time after {b:?}");
        assert_eq!(gpu.totals().steps, cpu.totals().steps, "steps after {b:?}");
        assert_eq!(gpu.step_log(), cpu.step_log(), "step log after {b:?}");
        let (gv, cv) = (gpu.temperatures().unwrap(), cpu.temperatures().unwrap());
        let differing = gv
            .iter()
            .zip(&cv)
            .filter(|(a, b)| a.to_bits() != b.to_bits())
            .count();
        assert_eq!(differing, 0, "cells differ after {b:?}");
        // the app's plot statistics, reduced on the GPU in f32, against the CPU's f64 ones
        let (gm, glo, ghi) = gpu.grid_stats().unwrap();
        let (cm, clo, chi) = pdes_lab::models::diffusion::cpu::grid_stats(&cv);
        assert!((gm - cm).abs() <= 1e-5 * range, "mean {gm} vs {cm}");
        assert!((glo - clo).abs() <= 1e-5 * range && (ghi - chi).abs() <= 1e-5 * range);
    }
    assert!(gpu.finished() && cpu.finished());
}

#[test]
fn gpu_timestepped_matches_the_cpu() {
    // 37×53 = 1961 cells: not a multiple of the workgroup, not square
    let cfg = config(&[
        "model.rows=37",
        "model.cols=53",
        "model.beta=0.25",
        "run.algorithm=\"timestepped\"",
        "run.dt=0.05",
        "run.end_time=20.03",
    ]);
    assert_twins(
        &cfg,
        &[
            Budget::Steps(1),
            Budget::Steps(37),
            Budget::Until(pdes_lab::time::to_ticks(7.5)),
            Budget::Finish,
        ],
    );
}

/// Rows of whole vec4s take the quad kernels (`step4`, `plan4`): 37 × 260 is 65 quads per
/// row, so one 64-quad tile and a partial one across, and 37 rows, two 16-row tiles and a
/// partial one down.
#[test]
fn gpu_timestepped_matches_the_cpu_on_the_quad_kernels() {
    use pdes_lab::models::diffusion::verify::DiffusionTwins;
    use pdes_lab::models::twins::Twins;
    let cfg: DiffusionConfig = common_cfg::verify_case(
        DiffusionTwins::MODELS,
        DiffusionTwins::CASES,
        "timestepped 37×260 (quad kernels)",
    );
    assert_twins(&cfg, &[Budget::Steps(1), Budget::Steps(37), Budget::Finish]);
}

/// Hybrid on rows of whole vec4s runs fused (`step4h`: each step also reduces the new grid's
/// rates, from new values it recomputes beside and above and below its strip): 70 × 132 is
/// three 32-row tiles down (the last partial) and one partial 64-quad tile across.
#[test]
fn gpu_fused_hybrid_matches_the_cpu_across_tile_rows() {
    let cfg = config(&[
        "model.rows=70",
        "model.cols=132",
        "model.alpha_x=0.7",
        "model.beta=0.5",
        "run.algorithm=\"hybrid\"",
        "run.quantum=0.25",
        "run.end_time=25",
    ]);
    assert_twins(&cfg, &[Budget::Steps(1), Budget::Steps(40), Budget::Finish]);
}

#[test]
fn gpu_hybrid_matches_the_cpu_across_tile_edges() {
    // 300 columns: two 256-wide scalar tiles, and 75 quads (two 64-quad tiles) for the quad
    // kernels this grid takes; 13 rows, inside one tile
    let cfg = config(&[
        "model.rows=13",
        "model.cols=300",
        "model.beta=-0.5",
        "run.algorithm=\"hybrid\"",
        "run.quantum=0.5",
        "run.end_time=30",
    ]);
    assert_twins(&cfg, &[Budget::Steps(5), Budget::Finish]);
}

#[test]
fn gpu_hybrid_matches_the_cpu() {
    let cfg = config(&[
        "model.rows=37",
        "model.cols=53",
        "model.alpha_y=0.5",
        "run.algorithm=\"hybrid\"",
        "run.quantum=0.25",
        "run.end_time=40",
    ]);
    assert_twins(
        &cfg,
        &[
            Budget::Steps(1),
            Budget::Steps(300),
            Budget::Until(pdes_lab::time::to_ticks(15.0)),
            Budget::Finish,
        ],
    );
}
