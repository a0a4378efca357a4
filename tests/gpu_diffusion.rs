//! The GPU diffusion engines against their CPU twins, on whatever adapter is present (Mesa
//! lavapipe in CI). With PDES_REQUIRE_GPU=1 a missing adapter fails.

mod common_cfg;
use common_cfg::{diffusion_config as config, gpu};
use pdes_lab::gpu::diffusion::GpuDiffusion;
use pdes_lab::gpu::shaders::Reductions;
use pdes_lab::preset::DiffusionConfig;
use pdes_lab::sim::diffusion::{CpuDiffusion, DiffusionEngine};
use pdes_lab::sim::{Budget, Engine};

/// Runs CPU and GPU engines of `cfg` through the same budgets; after each, the time, the
/// step log and every cell must agree (cells to float rounding: the GPU may fuse a
/// multiply-add that the CPU rounds twice, a few ulps of the temperature range).
fn assert_twins(cfg: &DiffusionConfig, budgets: &[Budget]) {
    let Some(g) = gpu() else { return };
    let mut variants = vec![Reductions::Portable];
    if g.device.features().contains(wgpu::Features::SUBGROUP) {
        variants.push(Reductions::Subgroup);
    }
    for r in variants {
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
        let (gl, cl) = (gpu.step_log(), cpu.step_log());
        for (a, c) in gl.iter().zip(cl) {
            assert_eq!((a.t_min, a.bound), (c.t_min, c.bound), "step times");
            // a cell whose change rounds to zero on one side only may differ
            assert!(
                a.events.abs_diff(c.events) <= c.events / 100 + 2,
                "{a:?} vs {c:?}"
            );
        }
        let (gv, cv) = (gpu.temperatures().unwrap(), cpu.temperatures().unwrap());
        let worst = gv
            .iter()
            .zip(&cv)
            .map(|(a, b)| (f64::from(*a) - f64::from(*b)).abs())
            .fold(0.0, f64::max);
        assert!(worst <= 1e-5 * range, "cells differ by {worst} after {b:?}");
        // the app's plot statistics, reduced on the GPU, against the CPU's f64 ones
        let (gm, glo, ghi) = gpu.grid_stats().unwrap();
        let (cm, clo, chi) = pdes_lab::sim::diffusion::grid_stats(&cv);
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

#[test]
fn gpu_hybrid_matches_the_cpu_across_tile_edges() {
    // 300 columns: two 256-wide tiles, so the halo columns inside the grid are exercised
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
