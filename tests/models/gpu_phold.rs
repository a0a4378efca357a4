//! PHOLD's window on the GPU against its CPU twin (and so against sequential, which the
//! unit tests hold the twin to), on whatever adapter is present (Mesa lavapipe in CI).
//! With PDES_REQUIRE_GPU=1 a missing adapter fails.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::common_cfg;
use common_cfg::gpu;
use pdes_lab::engines::LiveEngine;
use pdes_lab::models::phold::config::{PholdAlgorithm, PholdConfig};
use pdes_lab::models::phold::cpu::CpuPhold;
use pdes_lab::models::phold::gpu::GpuPhold;
use pdes_lab::sim::{Budget, Engine};

fn config(sets: &[&str]) -> PholdConfig {
    let c = pdes_lab::preset::config_with("teaching-phold", sets).unwrap();
    c.get::<PholdConfig>().unwrap().clone()
}

/// Both engines through the same budgets: after each, the same time, step log, pending
/// events and LP counts; at the end the same report.
fn assert_twins(cfg: &PholdConfig, budgets: &[Budget]) {
    let Some(g) = gpu() else { return };
    for r in pdes_lab::verify::variants(&g) {
        let mut cpu = CpuPhold::new(cfg);
        let mut gpu = GpuPhold::with_reductions(g.clone(), cfg, r).unwrap();
        for b in budgets {
            Engine::advance(&mut cpu, *b).unwrap();
            gpu.advance(*b).unwrap();
            assert_eq!(gpu.now(), Engine::now(&cpu), "{r:?}: time after {b:?}");
            assert_eq!(gpu.step_log(), cpu.step_log(), "{r:?}: log after {b:?}");
            assert_eq!(
                gpu.download_state().unwrap(),
                cpu.state,
                "{r:?}: after {b:?}"
            );
            // the last step's messages to another LP
            assert_eq!(
                gpu.last_step_remote(),
                cpu.last_step_remote(),
                "{r:?}: remote messages after {b:?}"
            );
            // the heatmap words: pending events per LP, the next window's LPs marked, the
            // LP counts
            assert_eq!(
                gpu.display_words().unwrap(),
                cpu.display_words().unwrap(),
                "{r:?}: heatmap after {b:?}"
            );
        }
        assert!(gpu.finished());
        let (rc, rg) = (Engine::report(&mut cpu).unwrap(), gpu.report().unwrap());
        assert!(
            pdes_lab::verify::compare_reports(&rc, &rg).is_empty(),
            "{r:?}"
        );
        // the hover's one-counter readback
        let lp = cfg.lps / 2;
        assert_eq!(gpu.lp_events(lp).unwrap(), cpu.state.counts[lp as usize]);
    }
}

#[test]
fn the_gpu_window_equals_the_cpu_twin_under_step_and_time_budgets() {
    // 1031 × 3 events: not a multiple of a workgroup's 2,048 tokens
    let cfg = config(&["model.lps=1031", "model.population=3", "run.end_time=30"]);
    assert_twins(
        &cfg,
        &[
            Budget::Steps(1),
            Budget::Steps(7),
            Budget::Until(pdes_lab::time::to_ticks(12.5)),
            Budget::Finish,
        ],
    );
}

#[test]
fn local_traffic_and_a_long_lookahead_match_too() {
    let cfg = config(&[
        "model.lps=2000",
        "model.remote=0.05",
        "model.lookahead=1",
        "model.mean=0.5",
        "run.end_time=40",
        "run.seed=123456789012",
    ]);
    assert_twins(&cfg, &[Budget::Steps(3), Budget::Finish]);
}

/// A step's least pending time travels to the next pass as a 32-bit offset from the step's
/// bound; where the next event lies 4,096 time units or more past it (2^32 ticks), the
/// next pass reduces the workgroups' exact least times instead. Three sparse tokens with a
/// mean delay near the largest allowed take that path at many steps.
#[test]
fn next_events_beyond_a_32_bit_offset_from_the_bound_match_too() {
    let cfg = config(&[
        "model.lps=3",
        "model.population=1",
        "model.lookahead=0.5",
        "model.mean=4000",
        "run.end_time=200000",
    ]);
    assert_twins(&cfg, &[Budget::Steps(5), Budget::Finish]);
}

/// Where an adapter allows fewer workgroups in one dimension than a step or a display pass
/// needs (65,535 on many: 2^27 events are 65,536 workgroups and the bookkeeper), the passes
/// run as a 2-D dispatch. A device limited to 8 a dimension makes every pass 2-D here: the
/// same run, heatmap words and LP counts as the CPU twin.
#[test]
fn passes_wider_than_a_dispatch_dimension_run_as_a_2d_grid() {
    let Some(_) = gpu() else { return };
    let narrow = std::sync::Arc::new(
        pdes_lab::gpu::Gpu::with_limits(|l| wgpu::Limits {
            max_compute_workgroups_per_dimension: 8,
            ..l
        })
        .unwrap(),
    );
    // 16,000 events: 8 workgroups of 2,048 and the bookkeeper (2 rows of 8); the display's
    // 63 (8 rows) and the heatmap cells' (2 rows or more)
    let cfg = config(&["model.lps=8000", "model.population=2", "run.end_time=20"]);
    let mut cpu = CpuPhold::new(&cfg);
    let mut gpu = GpuPhold::new(narrow, &cfg).unwrap();
    for b in [Budget::Steps(3), Budget::Finish] {
        Engine::advance(&mut cpu, b).unwrap();
        gpu.advance(b).unwrap();
        assert_eq!(gpu.step_log(), cpu.step_log(), "log after {b:?}");
        assert_eq!(gpu.download_state().unwrap(), cpu.state, "after {b:?}");
        assert_eq!(
            gpu.display_words().unwrap(),
            cpu.display_words().unwrap(),
            "heatmap after {b:?}"
        );
    }
}

#[test]
fn sequential_is_refused_on_the_gpu_with_the_reason() {
    let Some(g) = gpu() else { return };
    let mut cfg = config(&[]);
    cfg.algorithm = PholdAlgorithm::Sequential;
    let err = GpuPhold::new(g, &cfg).err().expect("refused").to_string();
    assert!(
        err.contains("run.algorithm") && err.contains("CPU only"),
        "{err}"
    );
}
