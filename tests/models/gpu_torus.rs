//! The GPU torus engine against its CPU twins, on whatever adapter is present (Mesa
//! lavapipe in CI). With PDES_REQUIRE_GPU=1 a missing adapter fails; otherwise the tests
//! say they were skipped.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::common_cfg;
use common_cfg::{config, gpu};
use pdes_lab::models::torus::config::TorusConfig;
use pdes_lab::models::torus::cpu::{CpuEngine, CpuTorus, TorusEngine};
use pdes_lab::models::torus::gpu::{GpuTorus, ReplicaRun};
use pdes_lab::models::torus::state::TorusState;
use pdes_lab::sim::{Budget, Engine};

/// The CPU state with what the GPU keeps per workgroup (or not at all) cleared.
fn comparable(s: &TorusState, cfg: &TorusConfig) -> TorusState {
    pdes_lab::models::torus::verify::comparable_state(s, cfg)
}

fn cpu_engine(cfg: &TorusConfig) -> CpuEngine {
    CpuEngine {
        cpu: CpuTorus::new(cfg),
        config: cfg.clone(),
    }
}

/// Asserts two states are equal, naming the first facility or token that differs (the
/// whole state is far too long to print).
fn assert_same_state(gpu: &TorusState, cpu: &TorusState, what: &str) {
    let diffs = pdes_lab::models::torus::verify::compare_torus_states(cpu, gpu);
    assert!(diffs.is_empty(), "{what}: {diffs:?}");
}

/// Runs both engines under the same budgets and checks they agree after each.
fn assert_same_path(cfg: &TorusConfig, budgets: &[Budget]) -> (CpuEngine, GpuTorus) {
    let gpu = gpu().expect("checked by caller");
    assert_same_path_with(cfg, budgets, GpuTorus::new(gpu, cfg).unwrap())
}

fn assert_same_path_with(
    cfg: &TorusConfig,
    budgets: &[Budget],
    mut g: GpuTorus,
) -> (CpuEngine, GpuTorus) {
    let mut cpu = cpu_engine(cfg);
    for (i, b) in budgets.iter().enumerate() {
        cpu.advance(*b).unwrap();
        g.advance(*b).unwrap();
        assert_eq!(g.totals().steps, cpu.totals().steps, "budget {i}: steps");
        assert_eq!(g.totals().events, cpu.totals().events, "budget {i}: events");
        assert_eq!(g.step_log(), cpu.step_log(), "budget {i}: step log");
        assert_eq!(g.now(), cpu.now(), "budget {i}: now");
        assert_eq!(g.finished(), cpu.finished(), "budget {i}: finished");
        let gs = g.download_state().unwrap();
        assert_same_state(
            &gs,
            &comparable(cpu.cpu.state(), cfg),
            &format!("budget {i}"),
        );
    }
    (cpu, g)
}

#[test]
fn gpu_window_matches_cpu_sequential_exactly() {
    if gpu().is_none() {
        return;
    }
    let cfg = config(&[
        "model.rows=40",
        "model.cols=24",
        "model.tokens_per_facility=2",
        "run.end_time=600",
    ]);
    let (_, mut g) = assert_same_path(
        &cfg,
        &[
            Budget::Steps(5),
            Budget::Until(pdes_lab::time::to_ticks(100.0)),
            Budget::Finish,
        ],
    );
    assert!(g.finished());
    // And against the sequential ground truth: same final state, same statistics.
    let mut seq_cfg = cfg.clone();
    seq_cfg.run.algorithm = pdes_lab::models::queueing::Algorithm::Sequential;
    let mut seq = cpu_engine(&seq_cfg);
    seq.advance(Budget::Finish).unwrap();
    assert_same_state(
        &g.download_state().unwrap(),
        &comparable(seq.cpu.state(), &cfg),
        "vs sequential",
    );
    let (sg, ss) = (g.summary().unwrap(), seq.summary().unwrap());
    assert_eq!(sg.events, ss.events);
    assert_eq!(sg.utilization.to_bits(), ss.utilization.to_bits());
    assert_eq!(sg.mean_sojourn.to_bits(), ss.mean_sojourn.to_bits());
    assert_eq!(sg.tokens_in_system, 1920);
    assert_eq!(sg.causality_errors, 0);
}

#[test]
fn gpu_interval_original_matches_cpu_including_causality_errors() {
    if gpu().is_none() {
        return;
    }
    let cfg = config(&[
        "model.rows=64", // 6144 facilities: three scan segments of 2048
        "model.cols=96",
        "model.service=\"exponential\"",
        "run.algorithm=\"interval\"",
        "run.timestamps=\"original\"",
        "run.d=0.5",
        "run.end_time=800",
    ]);
    let (mut cpu, mut g) = assert_same_path(
        &cfg,
        &[
            Budget::Until(pdes_lab::time::to_ticks(400.0)),
            Budget::Finish,
        ],
    );
    let (sc, sg) = (cpu.summary().unwrap(), g.summary().unwrap());
    assert!(sc.causality_errors > 0);
    assert_eq!(sg.causality_errors, sc.causality_errors);
    assert_eq!(sg.utilization.to_bits(), sc.utilization.to_bits());
    assert_eq!(sg.mean_sojourn.to_bits(), sc.mean_sojourn.to_bits());
    // The facilities the GPU marks as having had an error are exactly those the CPU counted.
    let marked: Vec<bool> = g.error_steps().unwrap().iter().map(|&s| s > 0).collect();
    let counted: Vec<bool> = cpu
        .cpu
        .state()
        .facilities
        .iter()
        .map(|f| f.causality_errors > 0)
        .collect();
    // step 0 cannot hold an error (all arrivals at t = 0 are in order), so 0 means "none"
    assert_eq!(marked, counted);
}

#[test]
fn gpu_interval_boundary_matches_cpu() {
    if gpu().is_none() {
        return;
    }
    let cfg = config(&[
        "model.rows=16",
        "model.cols=20",
        "model.service=\"exponential\"",
        "model.mean_service=5",
        "run.algorithm=\"interval\"",
        "run.timestamps=\"boundary\"",
        "run.d=1",
        "run.end_time=400",
    ]);
    let (mut cpu, mut g) = assert_same_path(&cfg, &[Budget::Steps(3), Budget::Finish]);
    let (sc, sg) = (cpu.summary().unwrap(), g.summary().unwrap());
    assert_eq!(
        sg.corrected_utilization.map(f64::to_bits),
        sc.corrected_utilization.map(f64::to_bits)
    );
    assert_eq!(sg.mean_sojourn.to_bits(), sc.mean_sojourn.to_bits());
}

#[test]
fn gpu_refuses_a_network_larger_than_the_adapter_allows() {
    let Some(gpu) = gpu() else { return };
    let cfg = config(&["model.rows=16384", "model.cols=16384"]);
    let err = GpuTorus::new(gpu, &cfg)
        .err()
        .expect("must not fit")
        .to_string();
    assert!(
        err.contains("16384×16384") && err.contains("limit"),
        "{err}"
    );
}

#[test]
fn gpu_refuses_sequential() {
    let Some(gpu) = gpu() else { return };
    let cfg = config(&["run.algorithm=\"sequential\""]);
    let err = GpuTorus::new(gpu, &cfg)
        .err()
        .expect("sequential is CPU-only")
        .to_string();
    assert!(err.contains("--engine cpu"), "{err}");
}

/// Both workgroup-reduction variants (shared memory, subgroups) give the CPU's path: the
/// subgroup one wherever the adapter has the feature (lavapipe does).
#[test]
fn both_reduction_variants_match_the_cpu() {
    let Some(gpu) = gpu() else { return };
    use pdes_lab::gpu::shaders::Reductions;
    let cfg = config(&[
        "model.rows=33",
        "model.cols=47",
        "model.service=\"exponential\"",
        "run.algorithm=\"interval\"",
        "run.timestamps=\"original\"",
        "run.d=0.5",
        "run.end_time=300",
    ]);
    let mut variants = vec![Reductions::Portable];
    if gpu.device.features().contains(wgpu::Features::SUBGROUP) {
        variants.push(Reductions::Subgroup);
    } else {
        eprintln!("adapter without SUBGROUP: only the portable reductions are tested");
    }
    for r in variants {
        let g = GpuTorus::with_reductions(gpu.clone(), &cfg, r).unwrap();
        let (mut cpu, mut g) = assert_same_path_with(&cfg, &[Budget::Steps(9), Budget::Finish], g);
        let (sc, sg) = (cpu.summary().unwrap(), g.summary().unwrap());
        assert_eq!(sg.causality_errors, sc.causality_errors, "{r:?}");
        assert_eq!(
            sg.mean_sojourn.to_bits(),
            sc.mean_sojourn.to_bits(),
            "{r:?}"
        );
        assert_eq!(sg.utilization.to_bits(), sc.utilization.to_bits(), "{r:?}");
    }
}

/// Replicas: several seeds side by side in one engine give, replica by replica, exactly
/// the runs the CPU twin gives alone — step log (each replica has its own windows), state,
/// summary — for every algorithm, including the causality errors of interval/original.
#[test]
fn replicas_side_by_side_each_match_their_own_cpu_run() {
    let Some(gpu) = gpu() else { return };
    for (alg, extra) in [
        ("window", "model.service=\"shifted\""),
        ("interval/original", "model.service=\"exponential\""),
        ("interval/boundary", "model.service=\"exponential\""),
    ] {
        let mut sets = vec![
            "model.rows=64".to_string(),
            "model.cols=64".to_string(), // 4096 facilities: whole segments per replica
            "model.tokens_per_facility=2".to_string(),
            extra.to_string(),
            "run.d=1.5".to_string(),
            "run.end_time=300".to_string(),
        ];
        match alg.split_once('/') {
            Some((algorithm, timestamps)) => {
                sets.push(format!("run.algorithm=\"{algorithm}\""));
                sets.push(format!("run.timestamps=\"{timestamps}\""));
            }
            None => sets.push(format!("run.algorithm=\"{alg}\"")),
        }
        let cfg = config(&sets.iter().map(String::as_str).collect::<Vec<_>>());
        let seeds = [7u64, 8, 1234567890123];
        let mut g = GpuTorus::replicas(gpu.clone(), &cfg, &seeds).unwrap();
        g.advance(Budget::Finish).unwrap();
        assert!(g.finished(), "{alg}: every replica reaches the end");
        let summaries = g.replica_summaries().unwrap();
        let states = g.download_states().unwrap();
        let mut logs = Vec::new();
        for (r, &seed) in seeds.iter().enumerate() {
            let mut one = cfg.clone();
            one.run.seed = seed;
            let mut cpu = common_cfg::run_cpu(&one);
            assert_eq!(
                g.replica_log(r),
                cpu.step_log(),
                "{alg}, seed {seed}: step log"
            );
            assert_same_state(
                &states[r],
                &comparable(cpu.cpu.state(), &one),
                &format!("{alg}, seed {seed}"),
            );
            let mut want = cpu.summary().unwrap();
            want.engine = summaries[r].engine;
            assert_eq!(summaries[r], want, "{alg}, seed {seed}: summary");
            logs.push(cpu.step_log().to_vec());
        }
        if alg == "interval/original" {
            assert!(
                summaries.iter().any(|s| s.causality_errors > 0),
                "{alg}: errors happen"
            );
        }
        if alg == "window" {
            // different seeds, different windows: the replicas really stepped on their own
            // (their step logs differ; with 4096 facilities their step counts may not)
            assert!(
                logs.windows(2).all(|w| w[0] != w[1]),
                "{alg}: two seeds stepped alike"
            );
        }
    }
}

/// The initial state is written on the GPU (torus_init.wgsl), not uploaded: before any
/// step, every replica's facilities and tokens are those `TorusState::new` builds for its
/// own seed and d — one token or several queued, shifted service (whose shift is each
/// replica's d) and exponential, with interval/original's last arrivals.
#[test]
fn the_initial_state_written_on_the_gpu_is_the_cpus() {
    let Some(gpu) = gpu() else { return };
    for (tokens, service, algorithm) in [
        (1, "shifted", "window"),
        (3, "shifted", "window"),
        (2, "exponential", "interval"),
    ] {
        let cfg = config(&[
            "model.rows=64",
            "model.cols=32", // 2048 facilities: whole segments per replica
            &format!("model.tokens_per_facility={tokens}"),
            &format!("model.service=\"{service}\""),
            &format!("run.algorithm=\"{algorithm}\""),
            "run.timestamps=\"original\"",
            "run.d=0.5",
            "run.end_time=100",
        ]);
        let runs =
            [(7u64, 0.5), (8, 1.5), (1234567890123, 0.25)].map(|(seed, d)| ReplicaRun { seed, d });
        let g = GpuTorus::replica_runs(gpu.clone(), &cfg, &runs).unwrap();
        let states = g.download_states().unwrap();
        for (r, run) in runs.iter().enumerate() {
            let one = run.apply(&cfg);
            let cpu = TorusState::new(&one.model, one.service_law(), one.run.seed)
                .with_warmup(one.run.warmup_ticks());
            assert_same_state(
                &states[r],
                &comparable(&cpu, &one),
                &format!("P = {tokens}, {service}, {algorithm}, replica {r}"),
            );
        }
    }
}

/// A torus whose facilities do not fill whole segments cannot share an engine; one seed can.
#[test]
fn replicas_need_whole_segments_per_torus() {
    let Some(gpu) = gpu() else { return };
    let cfg = config(&["model.rows=40", "model.cols=24"]);
    let err = GpuTorus::replicas(gpu.clone(), &cfg, &[1, 2])
        .err()
        .expect("refused");
    let segment = pdes_lab::gpu::stepped::ScanItems::EIGHT.segment();
    assert!(
        err.to_string()
            .contains(&format!("not a multiple of {segment}")),
        "{err}"
    );
    assert!(GpuTorus::replicas(gpu, &cfg, &[1]).is_ok());
}

/// The heatmap's outline marks exactly the facilities whose events the next step processes:
/// as many as that step's events, the same on the CPU, in the GPU's downloaded state and in
/// the GPU's own display pass — for the window, both interval rules and (CPU) sequential.
#[test]
fn the_next_step_outline_marks_the_facilities_the_next_step_processes() {
    use pdes_lab::engines::LiveEngine;
    use pdes_lab::models::torus::state::NEXT_STEP_BIT;
    let Some(g) = gpu() else { return };
    for alg in [
        "window",
        "interval/original",
        "interval/boundary",
        "sequential",
    ] {
        let mut sets = vec![
            "model.rows=24".to_string(),
            "model.cols=40".to_string(),
            "run.d=2".to_string(),
        ];
        match alg.split_once('/') {
            Some((a, t)) => {
                sets.push(format!("run.algorithm=\"{a}\""));
                sets.push(format!("run.timestamps=\"{t}\""));
                sets.push("model.service=\"exponential\"".into());
            }
            None => sets.push(format!("run.algorithm=\"{alg}\"")),
        }
        let cfg = config(&sets.iter().map(String::as_str).collect::<Vec<_>>());
        let mut cpu = cpu_engine(&cfg);
        cpu.advance(Budget::Until(pdes_lab::time::to_ticks(37.0)))
            .unwrap();
        let words = cpu.display_words().unwrap();
        let marked = words.iter().filter(|w| w[0] & NEXT_STEP_BIT != 0).count() as u64;
        let before = cpu.totals();
        cpu.advance(Budget::Steps(1)).unwrap();
        let step_events = cpu.totals().events - before.events;
        assert_eq!(
            marked, step_events,
            "{alg}: marked facilities = the next step's events"
        );
        assert!(marked >= 1, "{alg}");
        if alg == "sequential" {
            continue;
        }
        let mut gt = GpuTorus::new(g.clone(), &cfg).unwrap();
        gt.advance(Budget::Until(pdes_lab::time::to_ticks(37.0)))
            .unwrap();
        assert_eq!(
            gt.display_words().unwrap(),
            words,
            "{alg}: GPU state's words"
        );
        let buf = g.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 8 * words.len() as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        gt.write_display(&buf);
        let bytes = pdes_lab::gpu::kit::read_buffers(&g, &[&buf]).unwrap();
        let shader: &[[u32; 2]] = bytemuck::cast_slice(&bytes[0]);
        assert_eq!(shader, &words[..], "{alg}: the GPU display pass");
    }
}

/// With `run.warmup` the GPU's per-workgroup sums cut at the warm-up exactly as the CPU's
/// per-facility ones, for the three step rules (boundary stamps differ from departure times,
/// original makes causality errors).
#[test]
fn the_warmup_cut_is_the_same_on_the_gpu() {
    let Some(gpu) = gpu() else { return };
    for (alg, service) in [
        ("run.timestamps=\"original\"", "model.service=\"shifted\""),
        (
            "run.timestamps=\"original\"",
            "model.service=\"exponential\"",
        ),
        (
            "run.timestamps=\"boundary\"",
            "model.service=\"exponential\"",
        ),
    ] {
        let window = service.contains("shifted");
        let algorithm = if window {
            "run.algorithm=\"window\""
        } else {
            "run.algorithm=\"interval\""
        };
        let cfg = config(&[
            "model.rows=24",
            "model.cols=20",
            service,
            algorithm,
            alg,
            "run.d=0.75",
            "run.end_time=400",
            "run.warmup=123.5",
        ]);
        let mut cpu = cpu_engine(&cfg);
        let mut g = GpuTorus::new(gpu.clone(), &cfg).unwrap();
        cpu.advance(Budget::Finish).unwrap();
        g.advance(Budget::Finish).unwrap();
        let (sc, sg) = (cpu.summary().unwrap(), g.summary().unwrap());
        assert_eq!(sg, sc, "{algorithm} {alg} {service}");
        assert_eq!(sc.sim_time, 400.0 - 123.5);
        // the cut is not vacuous: without it the statistics differ
        let mut whole = cfg.clone();
        whole.run.warmup = 0.0;
        let mut g0 = GpuTorus::new(gpu.clone(), &whole).unwrap();
        g0.advance(Budget::Finish).unwrap();
        let s0 = g0.summary().unwrap();
        assert_ne!(s0.throughput.to_bits(), sg.throughput.to_bits());
        assert_ne!(s0.utilization.to_bits(), sg.utilization.to_bits());
    }
}

#[test]
fn the_next_step_is_found_exactly_when_it_lies_beyond_the_atomic_offset() {
    // finish_step takes the next t_min from one atomic word holding the least
    // (departure − t_min) in 32 bits of ticks; a gap of 2^32 ticks (4096 time units) or
    // more does not fit and falls back to reducing every segment's partials. A torus this
    // small with services this long has such gaps: both paths must match the CPU.
    if gpu().is_none() {
        return;
    }
    for alg in [
        &["run.algorithm=\"window\""][..],
        &["run.algorithm=\"interval\"", "run.timestamps=\"original\""],
    ] {
        let mut keys = vec![
            "model.rows=2",
            "model.cols=2",
            "model.tokens_per_facility=1",
            "model.service=\"shifted\"",
            "model.mean_service=4000",
            "run.d=0.5",
            "run.end_time=200000",
        ];
        keys.extend_from_slice(alg);
        let cfg = config(&keys);
        let (cpu, _) = assert_same_path(
            &cfg,
            &[
                Budget::Steps(7),
                Budget::Until(pdes_lab::time::to_ticks(90000.0)),
                Budget::Finish,
            ],
        );
        let log = cpu.step_log();
        let far = pdes_lab::time::to_ticks(4096.0);
        let (wide, narrow) = log.windows(2).fold((0, 0), |(w, n), p| {
            if p[1].t_min - p[0].t_min >= far {
                (w + 1, n)
            } else {
                (w, n + 1)
            }
        });
        assert!(
            wide > 0 && narrow > 0,
            "{alg:?}: {wide} wide gaps, {narrow} narrow"
        );
    }
}

#[test]
fn long_runs_with_batches_encoded_ahead_match_the_cpu() {
    // Thousands of steps: the batch loop reaches full batches of 1024 steps, and each full
    // batch is encoded while the previous one runs. Budgets that stop mid-run (a step count,
    // a time) leave a prepared batch behind; the next advance must still hold at its limit.
    if gpu().is_none() {
        return;
    }
    let cfg = config(&[
        "model.rows=32",
        "model.cols=32",
        "run.d=0.1",
        "run.end_time=500",
    ]);
    let (cpu, g) = assert_same_path(
        &cfg,
        &[
            Budget::Steps(2500),
            Budget::Until(pdes_lab::time::to_ticks(300.0)),
            Budget::Finish,
        ],
    );
    assert!(g.finished());
    assert!(
        cpu.totals().steps > 3 * 1024,
        "{} steps",
        cpu.totals().steps
    );
}

#[test]
fn thin_tori_whose_neighbours_coincide_match_the_cpu() {
    // A facility's mailbox has one slot per direction, each with one possible sender. On a
    // torus one row high, up and down lead back to the facility itself; two rows high, both
    // lead to the same neighbour: every slot must still have its own sender.
    if gpu().is_none() {
        return;
    }
    for (rows, cols) in [(1, 7), (2, 5), (6, 1), (1, 1), (2, 2)] {
        let (r, c) = (format!("model.rows={rows}"), format!("model.cols={cols}"));
        let cfg = config(&[
            r.as_str(),
            c.as_str(),
            "model.tokens_per_facility=3",
            "run.end_time=400",
        ]);
        assert_same_path(&cfg, &[Budget::Steps(9), Budget::Finish]);
    }
}

/// The scan's longer segments (4096 facilities, which the engine picks only from 2048² up)
/// give the CPU twin's path too: every rule, on a torus of two segments, the second partial.
#[test]
fn segments_of_4096_match_the_cpu() {
    let Some(gpu) = gpu() else { return };
    for alg in [
        &["run.algorithm=\"window\"", "model.service=\"shifted\""][..],
        &["run.algorithm=\"interval\"", "run.timestamps=\"original\""],
        &["run.algorithm=\"interval\"", "run.timestamps=\"boundary\""],
    ] {
        let mut keys = vec![
            "model.rows=70", // 7000 facilities
            "model.cols=100",
            "model.tokens_per_facility=2",
            "run.d=0.5",
            "run.end_time=150",
        ];
        keys.extend_from_slice(alg);
        let cfg = config(&keys);
        let g = GpuTorus::with_scan_items(
            gpu.clone(),
            &cfg,
            pdes_lab::gpu::shaders::Reductions::for_device(&gpu.device),
            pdes_lab::gpu::stepped::ScanItems::SIXTEEN,
        )
        .unwrap();
        assert_same_path_with(&cfg, &[Budget::Steps(40), Budget::Finish], g);
    }
}
