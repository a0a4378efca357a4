//! The flattened DEVS coordinator on the GPU against its CPU twin (and so against the
//! sequential PDEVS simulator, which the unit tests hold the twin to), on whatever adapter
//! is present (Mesa lavapipe in CI). With PDES_REQUIRE_GPU=1 a missing adapter fails.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::common_cfg;
use common_cfg::gpu;
use pdes_lab::models::devs::config::DevsConfig;
use pdes_lab::models::devs::gpu::GpuDevs;
use pdes_lab::models::devs::live::CpuDevs;
use pdes_lab::models::devs::ticks;
use pdes_lab::models::devs::verify::compare_cells;
use pdes_lab::sim::{Budget, Engine};

fn config(preset: &str, sets: &[&str]) -> DevsConfig {
    let c = pdes_lab::preset::config_with(preset, sets).unwrap();
    c.get::<DevsConfig>().unwrap().clone()
}

/// Both engines through the same budgets: after each, the same time, step log and cells.
fn assert_twins(cfg: &DevsConfig, budgets: &[Budget]) {
    let Some(g) = gpu() else { return };
    for r in pdes_lab::verify::variants(&g) {
        let mut cpu = CpuDevs::new(cfg);
        let mut gpu = GpuDevs::with_reductions(g.clone(), cfg, r).unwrap();
        for b in budgets {
            cpu.advance(*b).unwrap();
            gpu.advance(*b).unwrap();
            assert_eq!(gpu.now(), cpu.now(), "{r:?}: time after {b:?}");
            assert_eq!(
                gpu.step_log(),
                cpu.step_log(),
                "{r:?}: step log after {b:?}"
            );
            assert_eq!(gpu.log(), cpu.sim().log(), "{r:?}: DEVS log after {b:?}");
            assert_eq!(
                compare_cells(&cpu, &gpu).unwrap(),
                Vec::<String>::new(),
                "{r:?}: after {b:?}"
            );
        }
        assert!(gpu.finished() && cpu.finished());
    }
}

#[test]
fn gpu_sir_equals_the_cpu_twin_on_a_grid_that_is_no_multiple_of_the_workgroup() {
    // 37×53 = 1961 cells: the last workgroup is partial (the authors' min kernel read
    // uninitialised shared memory there)
    let cfg = config(
        "teaching-sir",
        &["model.rows=37", "model.cols=53", "run.end_time=90"],
    );
    assert_twins(
        &cfg,
        &[
            Budget::Steps(1),
            Budget::Steps(5),
            Budget::Until(ticks(40)),
            Budget::Finish,
        ],
    );
}

#[test]
fn gpu_benchmark_with_work_and_a_wrapping_von_neumann_grid_equals_the_cpu_twin() {
    let cfg = config(
        "teaching-devs-benchmark",
        &[
            "model.rows=19",
            "model.cols=300",
            "model.neighbourhood=\"von-neumann\"",
            "model.wrap=true",
            "model.work=11",
            "run.end_time=37",
        ],
    );
    assert_twins(&cfg, &[Budget::Steps(2), Budget::Finish]);
    // and the benchmark's law holds on the GPU: every cell equals T mod 2
    let Some(g) = gpu() else { return };
    let mut e = GpuDevs::new(g, &cfg).unwrap();
    e.advance(Budget::Finish).unwrap();
    let r = e.report().unwrap();
    assert_eq!(r.fields["cells_equal_time_mod_2"], 19 * 300);
    assert_eq!(r.fields["steps"], 37);
}

#[test]
fn the_sequential_simulator_refuses_the_gpu() {
    let Some(g) = gpu() else { return };
    let cfg = config("teaching-sir", &["run.algorithm=\"sequential\""]);
    let e = GpuDevs::new(g, &cfg).err().unwrap();
    assert!(e.to_string().contains("run.algorithm"), "{e}");
}

/// `bench --suite devs-smoke`: sequential, flattened CPU and GPU rows, each accepted only
/// when it equals the sequential reference field for field.
#[test]
fn the_smoke_suite_holds_every_row_to_the_sequential_reference() {
    if gpu().is_none() {
        return;
    }
    let rows = common_cfg::bench_rows("devs-smoke", &[]);
    assert_eq!(rows.len(), 6);
    for r in &rows {
        let reference = rows.iter().find(|x| x["group"] == r["group"]).unwrap();
        assert_eq!(
            r["summary"]["transitions"], reference["summary"]["transitions"],
            "{r}"
        );
        assert_eq!(
            r["summary"]["messages"], reference["summary"]["messages"],
            "{r}"
        );
        assert_eq!(r["steps"], 50);
    }
    assert_eq!(
        &common_cfg::row_engines(&rows)[..3],
        [
            ("sequential", "cpu"),
            ("flattened", "cpu"),
            ("flattened", "gpu")
        ]
    );
}

/// The display pass draws the state from the buffer the steps' parity names, after an odd
/// and an even number of steps: its words (the value, and the value with its flips undone)
/// equal the CPU twin's, for SIR and the benchmark.
#[test]
fn the_display_pass_draws_the_buffer_that_holds_the_state() {
    use pdes_lab::gpu::LiveEngine;
    let Some(g) = gpu() else { return };
    for preset in ["teaching-sir", "teaching-devs-benchmark"] {
        let cfg = config(
            preset,
            &["model.rows=19", "model.cols=23", "run.end_time=60"],
        );
        let mut cpu = CpuDevs::new(&cfg);
        let mut gpu = GpuDevs::new(g.clone(), &cfg).unwrap();
        let buf = g.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 8 * 19 * 23,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        for steps in [7, 4] {
            cpu.advance(Budget::Steps(steps)).unwrap();
            gpu.advance(Budget::Steps(steps)).unwrap();
            gpu.write_display(&g, &buf);
            let bytes = pdes_lab::gpu::kit::read_buffers(&g, &[&buf]).unwrap();
            let shader: &[[u32; 2]] = bytemuck::cast_slice(&bytes[0]);
            assert_eq!(
                shader,
                &cpu.display_words().unwrap()[..],
                "{preset} after {} steps",
                gpu.log().len()
            );
        }
    }
}

/// A batch may queue more passes than steps are due (the host cannot always know how many
/// are): the passes after the first with no step due must do nothing — not a step, not a
/// log entry, not a change to the sets of accumulators the next batch reads — and the
/// next batch goes on from the last step taken. Two such batches, then the rest of the
/// run, against the CPU twin.
#[test]
fn passes_with_no_step_due_change_nothing_and_the_next_batch_goes_on() {
    use pdes_lab::gpu::batches::Batched;
    let Some(g) = gpu() else { return };
    let cfg = config(
        "teaching-sir",
        &["model.rows=21", "model.cols=29", "run.end_time=40"],
    );
    for r in pdes_lab::verify::variants(&g) {
        let mut cpu = CpuDevs::new(&cfg);
        let mut gpu = GpuDevs::with_reductions(g.clone(), &cfg, r).unwrap();
        cpu.advance(Budget::Steps(1)).unwrap();
        gpu.advance(Budget::Steps(1)).unwrap();
        // every step moves time by one: the next three are due by t1 + 3, of ten passes
        let t1 = gpu.log()[0].t;
        assert_eq!(
            gpu.run(10, t1 + 3).unwrap(),
            3,
            "{r:?}: steps taken of 10 passes"
        );
        cpu.advance(Budget::Steps(3)).unwrap();
        assert_eq!(gpu.log(), cpu.sim().log(), "{r:?}: after the first batch");
        assert_eq!(
            gpu.run(9, t1 + 5).unwrap(),
            2,
            "{r:?}: steps taken of 9 passes"
        );
        cpu.advance(Budget::Steps(2)).unwrap();
        assert_eq!(gpu.log(), cpu.sim().log(), "{r:?}: after the second batch");
        assert_eq!(gpu.now(), cpu.now(), "{r:?}: time after the second batch");
        cpu.advance(Budget::Finish).unwrap();
        gpu.advance(Budget::Finish).unwrap();
        assert_eq!(gpu.log(), cpu.sim().log(), "{r:?}: DEVS log at the end");
        assert_eq!(
            compare_cells(&cpu, &gpu).unwrap(),
            Vec::<String>::new(),
            "{r:?}: cells at the end"
        );
    }
}
