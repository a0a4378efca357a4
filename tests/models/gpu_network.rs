//! The network's GPU engine against its CPU twin and against sequential, on whatever adapter
//! is present (Mesa lavapipe in CI; `pdes-lab verify` repeats the cases on the user's GPU).
//! With PDES_REQUIRE_GPU=1 a missing adapter fails.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::common_cfg::{bench_rows, gpu, row_engines};
use pdes_lab::engines::LiveEngine;
use pdes_lab::gpu::shaders::Reductions;
use pdes_lab::models::network::config::NetworkConfig;
use pdes_lab::models::network::engine::NetEngine;
use pdes_lab::models::network::gpu::GpuNetwork;
use pdes_lab::models::network::verify::compare_network_states;
use pdes_lab::sim::{Budget, Engine};
use pdes_lab::verify::{CheckResult, Options, compare_reports};

/// A network configuration from the preset `name` with `sets` applied.
fn network(name: &str, sets: &[&str]) -> NetworkConfig {
    let (_, text) = pdes_lab::preset::load_text(name).unwrap();
    let mut table: toml::Table = text.parse().unwrap();
    for s in sets {
        pdes_lab::preset::apply_set(&mut table, s).unwrap();
    }
    pdes_lab::preset::Config::from_table(&table)
        .unwrap()
        .get::<NetworkConfig>()
        .cloned()
        .expect("a network preset")
}

/// The CPU twin and the GPU engine (its pool starting at `pool` slots) under the same
/// budgets: after each, the same step log, time and state (by token identity, not slot);
/// at the end the same report.
fn assert_same_path(cfg: &NetworkConfig, pool: u32) -> Option<(NetEngine, GpuNetwork)> {
    let g = gpu()?;
    let mut gpu_engine =
        GpuNetwork::with_options(g.clone(), cfg, Reductions::for_device(&g.device), pool).unwrap();
    let mut cpu = NetEngine::new(cfg);
    let end = cfg.end_ticks();
    for (i, b) in [
        Budget::Steps(3),
        Budget::Until(end / 3),
        Budget::Steps(40),
        Budget::Finish,
    ]
    .iter()
    .enumerate()
    {
        cpu.advance(*b).unwrap();
        gpu_engine.advance(*b).unwrap();
        assert_eq!(
            gpu_engine.step_log(),
            cpu.step_log(),
            "budget {i}: step log"
        );
        assert_eq!(gpu_engine.now(), cpu.now(), "budget {i}: now");
        let (state, _) = gpu_engine.download_state().unwrap();
        let diffs = compare_network_states(cpu.state(), &state);
        assert!(diffs.is_empty(), "budget {i}: {diffs:?}");
    }
    assert!(gpu_engine.finished());
    let diffs = compare_reports(&cpu.report().unwrap(), &gpu_engine.report().unwrap());
    assert!(diffs.is_empty(), "{diffs:?}");
    Some((cpu, gpu_engine))
}

/// A network of single-server stations only (the random preset): every server lives in its
/// station's record and the servers' array is empty — the CPU twin's run, read back at every
/// budget.
#[test]
fn single_server_stations_only_run_on_the_gpu_as_on_the_cpu() {
    let cfg = network("random-network", &["run.end_time=40"]);
    assert_same_path(&cfg, 4096);
}

/// The clinic of issue 55 as written (window, d = 0.5), on the GPU: its CPU twin's run
/// while the token pool grows from one slot.
#[test]
fn the_clinic_runs_on_the_gpu_as_on_the_cpu_while_the_pool_grows() {
    let cfg = network("clinic", &["run.end_time=2000", "run.warmup=200"]);
    let Some((cpu, g)) = assert_same_path(&cfg, 1) else {
        return;
    };
    assert!(cpu.summary().unwrap().exits > 1000);
    assert!(
        g.pool_growths >= 3,
        "1 slot → ≥ 8 takes 3 doublings, saw {}",
        g.pool_growths
    );
}

/// Interval/original on a network whose services can be shorter than d: causality errors,
/// counted alike, and the heatmap's words (tokens present, latest error step) alike.
#[test]
fn interval_original_counts_the_same_causality_errors_on_the_gpu() {
    let cfg = network(
        "clinic-exponential",
        &[
            "run.algorithm=\"interval\"",
            "run.timestamps=\"original\"",
            "run.d=1.5",
            "run.end_time=1500",
            "run.warmup=0",
        ],
    );
    let Some((cpu, g)) = assert_same_path(&cfg, 4) else {
        return;
    };
    assert!(cpu.summary().unwrap().causality_errors > 0);
    assert_eq!(g.display_words().unwrap(), cpu.display_words().unwrap());
}

/// Every case of the network's verification, quick and full, passes on this adapter.
#[test]
fn every_network_verify_case_passes() {
    let Some(g) = gpu() else { return };
    let mut results: Vec<CheckResult> = Vec::new();
    let options = Options {
        quick: false,
        perturb_gpu: false,
    };
    let info = &pdes_lab::models::network::INFO;
    (info.verify)(&g, Reductions::for_device(&g.device), options, &mut |r| {
        results.push(r)
    });
    (info.verify_once)(&g, options, &mut |r| results.push(r));
    assert!(results.len() >= 10, "{} checks", results.len());
    let failed: Vec<_> = results.iter().filter(|r| !r.passed).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The memory plan that decides whether a network fits names every binding at the size the
/// run creates — before and after the pool grows — so that the adapter's limit per binding
/// is checked against what is made (a stale plan once let a million stations through to a
/// validation panic on an adapter of 128 MiB per binding).
#[test]
fn the_memory_plan_is_the_size_of_every_binding() {
    let Some(g) = gpu() else { return };
    let cfg = network("clinic", &["run.end_time=3000"]);
    let mut engine =
        GpuNetwork::with_options(g.clone(), &cfg, Reductions::for_device(&g.device), 1).unwrap();
    let plan = |pool| -> Vec<u64> {
        pdes_lab::models::network::gpu::memory_plan(&cfg, pool)
            .iter()
            .map(|(_, b)| *b)
            .collect()
    };
    assert_eq!(engine.binding_bytes(), plan(engine.pool_capacity()));
    engine.advance(Budget::Finish).unwrap();
    assert!(
        engine.pool_growths > 0,
        "the pool was to grow from one slot"
    );
    assert_eq!(engine.binding_bytes(), plan(engine.pool_capacity()));
}

/// A network whose stations need a larger binding than the adapter allows is refused with
/// the buffer, its size and the limit (not a panic at the bind group).
#[test]
fn a_network_beyond_the_binding_limit_is_refused_with_the_limit() {
    let Some(_) = gpu() else { return };
    let small = std::sync::Arc::new(
        pdes_lab::gpu::Gpu::with_limits(|l| wgpu::Limits {
            max_storage_buffer_binding_size: 1 << 20,
            ..l
        })
        .unwrap(),
    );
    // 10,000 stations of 128 bytes and their servers: 1.5 MiB in one binding
    let cfg = network(
        "random-network",
        &[
            "model.shape={ kind = \"random\", stations = 10000, degree = 4, tokens_per_station = 1, service = { kind = \"shifted\", shift = 0.5, mean = 1.0 } }",
        ],
    );
    let err = GpuNetwork::new(small, &cfg).err().expect("refused");
    let text = err.to_string();
    assert!(
        text.contains("segment counts, stations and servers") && text.contains("1.0 MiB"),
        "{text}"
    );
}

/// `bench --suite network-smoke`: the window rows, CPU and GPU, are accepted only when they
/// equal the sequential reference field for field (the runner refuses one that does not),
/// and each says so.
#[test]
fn the_smoke_suite_holds_both_windows_to_the_sequential_reference() {
    if gpu().is_none() {
        return; // the suite has a GPU row (PDES_REQUIRE_GPU=1 makes this a failure)
    }
    let rows = bench_rows("network-smoke", &["--repeat", "1"]);
    assert_eq!(
        row_engines(&rows),
        [("sequential", "cpu"), ("window", "cpu"), ("window", "gpu")]
    );
    for r in &rows {
        // the summary's wall-clock fields are the row's, not left at 0
        assert_eq!(r["summary"]["wall_seconds"], r["wall_seconds"], "{r}");
        assert!(
            r["summary"]["events_per_second"].as_f64().unwrap() > 0.0,
            "{r}"
        );
    }
    for r in &rows[1..] {
        let check = r["check"].as_str().unwrap();
        assert!(
            check.starts_with("equal field for field to sequential cpu"),
            "{check}"
        );
        for k in ["events", "utilization", "mean_sojourn", "stations"] {
            assert_eq!(r["summary"][k], rows[0]["summary"][k], "{k}");
        }
    }
}
