//! M/M/c/k replications (paper 003 §4): the GPU's replications are the CPU's bit for bit,
//! the estimates cover the exact steady state at the rate their intervals promise, and bad
//! input is refused with the key and the range.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::common_cfg;
use common_cfg::gpu;
use pdes_lab::models::mmck::config::MmckConfig;
use pdes_lab::models::mmck::cpu::CpuMmck;
use pdes_lab::models::mmck::draws::DrawsMadeBy;
use pdes_lab::models::mmck::gpu::GpuMmck;
use pdes_lab::models::mmck::spread::SpreadMmck;
use pdes_lab::models::mmck::times::Times;
use pdes_lab::sim::{Budget, Engine};

fn config(sets: &[&str]) -> MmckConfig {
    pdes_lab::preset::config_with("cheng2014-mmck", sets)
        .unwrap()
        .get::<MmckConfig>()
        .unwrap()
        .clone()
}

/// `got`'s summary is `want`'s field for field, but the engine's name and its threads.
fn assert_same_summary(want: &pdes_lab::sim::Report, got: &pdes_lab::sim::Report, when: &str) {
    for (k, v) in &want.fields {
        if !["engine", "threads"].contains(&k.as_str()) {
            assert_eq!(got.fields.get(k), Some(v), "{when}: {k}");
        }
    }
}

/// Both engines under the same budgets, the GPU's draws made each way the device can make
/// them (by producers beside the replications, with each ring that fits, and by their own
/// threads) and its times held each way the laws allow (one-word offsets, word pairs):
/// every replication equal after each budget. Returns the ways of holding times run.
fn assert_same(cfg: &MmckConfig, budgets: &[Budget]) -> Vec<Times> {
    let Some(g) = gpu() else { return Vec::new() };
    let ways = DrawsMadeBy::every(&g.limits);
    assert!(ways.len() >= 2, "no producers on this adapter: {ways:?}");
    let mut held = Vec::new();
    for draws in ways {
        for times in Times::every(&cfg.shape(), draws) {
            let mut cpu = CpuMmck::new(cfg);
            let mut gpu = GpuMmck::with_way(g.clone(), cfg, draws, times).unwrap();
            for (i, b) in budgets.iter().enumerate() {
                cpu.advance(*b).unwrap();
                gpu.advance(*b).unwrap();
                let (c, w) = (cpu.replications(), gpu.replications().unwrap());
                for r in 0..c.len() {
                    assert_eq!(
                        c[r], w[r],
                        "{draws:?}, {times:?}, budget {i} ({b:?}): replication {r}"
                    );
                }
            }
            assert!(cpu.finished() && gpu.finished());
            held.push(times);
        }
    }
    held
}

/// One-word times at the edge of their bound (times.rs, `Times::fits`): one slow server
/// and a waiting room of three, so overloaded that the room is nearly always full and a
/// customer's stay nears the (k − c + 1) · 32 mean services the offsets must hold, and
/// arrivals fast enough that a phase's span nears its limit too.
#[test]
fn gpu_replications_equal_the_cpus_with_times_near_the_bound_of_one_word() {
    let cfg = config(&[
        "model.servers=1",
        "model.capacity=4",
        "model.service_rate=0.07",
        "model.arrival_rate=0.65",
        "run.replications=70",
        "run.customers=1500",
        "run.seed=11",
    ]);
    let shape = cfg.shape();
    assert!(Times::fits(&shape, 30) && !Times::fits(&shape, 128));
    assert!(!Times::fits(
        &config(&[
            "model.servers=1",
            "model.capacity=4",
            "model.service_rate=0.06"
        ])
        .shape(),
        1
    ));
    let held = assert_same(&cfg, &[Budget::Until(1 << 33), Budget::Finish]);
    assert!(
        gpu().is_none() || held.contains(&Times::Offsets),
        "{held:?}"
    );
}

#[test]
fn gpu_replications_equal_the_cpus_event_by_event_with_a_long_queue() {
    let cfg: MmckConfig = common_cfg::verify_case(
        &[&pdes_lab::models::mmck::INFO],
        pdes_lab::models::mmck::verify::CASES,
        "c=8 k=40 λ=7.5, 65 replications × 4000",
    );
    let mut budgets = vec![Budget::Steps(1); 3];
    budgets.extend([Budget::Steps(1000), Budget::Until(1 << 28), Budget::Finish]);
    assert_same(&cfg, &budgets);
}

/// Paper 003's queue with a warm-up (the tally restarts mid-run) and a replication count
/// that leaves the last workgroup partly empty.
#[test]
fn gpu_replications_equal_the_cpus_with_a_warm_up() {
    let cfg = config(&[
        "run.replications=97",
        "run.customers=3000",
        "run.warmup=500",
        "run.seed=123456789012",
    ]);
    assert_same(&cfg, &[Budget::Until(1 << 27), Budget::Finish]);
}

/// A warm-up that ends past the first dispatch (4,681 events at c = 3), after dispatches of
/// one event: a dispatch counts departures from its own start (mmck.wgsl), so it must find
/// the warm-up's end wherever it began.
#[test]
fn gpu_replications_equal_the_cpus_when_the_warm_up_ends_in_a_later_dispatch() {
    let cfg = config(&[
        "run.replications=33",
        "run.customers=6000",
        "run.warmup=3000",
        "run.seed=5",
    ]);
    let mut budgets = vec![Budget::Steps(1); 5];
    budgets.extend([Budget::Steps(5000), Budget::Finish]);
    assert_same(&cfg, &budgets);
}

/// Replications split over three devices (the one GPU opened three times: what a host of
/// three would do), in uneven shares, under the same budgets: every replication equals the
/// CPU's, and so does the summary, field for field but the engine's wall clock.
#[test]
fn replications_split_over_several_devices_are_the_cpus() {
    if gpu().is_none() {
        return;
    }
    let cfg = config(&["run.replications=100", "run.customers=2000", "run.seed=31"]);
    let devices: Vec<_> = (0..3)
        .map(|_| std::sync::Arc::new(pdes_lab::gpu::Gpu::open(0).unwrap()))
        .collect();
    let mut cpu = CpuMmck::new(&cfg);
    let mut spread = SpreadMmck::new(&devices, &cfg).unwrap();
    for b in [Budget::Steps(7), Budget::Until(1 << 27), Budget::Finish] {
        cpu.advance(b).unwrap();
        spread.advance(b).unwrap();
        assert_eq!(spread.replications().unwrap(), cpu.replications(), "{b:?}");
        assert_eq!(spread.now(), cpu.now(), "{b:?}");
    }
    assert!(spread.finished());
    assert_same_summary(&cpu.report().unwrap(), &spread.report().unwrap(), "the end");
}

/// A run larger than one buffer or dispatch holds goes in parts on the one GPU (here parts
/// of 7, the last shorter): every replication equals the CPU's, and so does the summary.
#[test]
fn replications_in_parts_on_one_gpu_are_the_cpus() {
    let Some(g) = gpu() else { return };
    let cfg = config(&["run.replications=50", "run.customers=2000", "run.seed=37"]);
    let mut cpu = CpuMmck::new(&cfg);
    let mut parts = SpreadMmck::chunked_by(&g, &cfg, 7).unwrap();
    for b in [Budget::Steps(5), Budget::Finish] {
        cpu.advance(b).unwrap();
        parts.advance(b).unwrap();
        assert_eq!(parts.replications().unwrap(), cpu.replications(), "{b:?}");
    }
    assert_same_summary(&cpu.report().unwrap(), &parts.report().unwrap(), "the end");
    // what decides the parts: a run within one engine's reach is one engine
    assert!(GpuMmck::most_in_one(&g, &cfg, 50) >= 50);
}

/// The records a part of a run starts from are written on the GPU (a template copied, each
/// replication's first arrival drawn there): every one is the CPU's replication at time 0,
/// over more than one workgroup and from a first replication other than 0.
#[test]
fn the_records_written_on_the_gpu_at_time_0_are_the_cpus() {
    let Some(g) = gpu() else { return };
    let cfg = config(&["run.replications=900", "run.seed=23"]);
    let shape = cfg.shape();
    let part = GpuMmck::part(g, &cfg, 300..900).unwrap();
    let want: Vec<_> = (300..900)
        .map(|r| pdes_lab::models::mmck::Replication::new(&shape, r))
        .collect();
    assert_eq!(part.replications().unwrap(), want);
}

/// The summary's sums added up on the GPU, a block per 256 replications, are the CPU's
/// exact sums over the same replications, mid-run (some past the warm-up, some finished)
/// and at the end, over several blocks and a last one part full.
#[test]
fn the_sums_added_up_on_the_gpu_are_the_cpus() {
    let Some(g) = gpu() else { return };
    let cfg = config(&[
        "run.replications=600",
        "run.customers=310",
        "run.warmup=300",
        "run.seed=43",
    ]);
    let mut cpu = CpuMmck::new(&cfg);
    let mut gpu_run = GpuMmck::new(g, &cfg).unwrap();
    for b in [Budget::Steps(700), Budget::Steps(25), Budget::Finish] {
        cpu.advance(b).unwrap();
        gpu_run.advance(b).unwrap();
        let want = pdes_lab::models::mmck::summary::Pooled::of(&cfg.shape(), cpu.replications());
        assert_eq!(gpu_run.pooled().unwrap(), want, "{b:?}");
    }
}

/// The GPU's summary, its sums added up on the GPU part by part (no record read back), is
/// the CPU's, field for field, mid-run and
/// at the end. Mid-run every replication has had 700 events and about 300 departures (λ = 4
/// against c·μ = 3: many arrivals are blocked): some have passed the warm-up of 300 and
/// count, some have not; at 725 events, some have had their 310 customers, some not.
#[test]
fn the_gpu_summary_summed_part_by_part_is_the_cpus() {
    let Some(g) = gpu() else { return };
    let cfg = config(&[
        "run.replications=50",
        "run.customers=310",
        "run.warmup=300",
        "run.seed=41",
    ]);
    let mut cpu = CpuMmck::new(&cfg);
    let mut parts = SpreadMmck::chunked_by(&g, &cfg, 16).unwrap();
    let mut seen = Vec::new();
    for b in [Budget::Steps(700), Budget::Steps(25), Budget::Finish] {
        cpu.advance(b).unwrap();
        parts.advance(b).unwrap();
        assert_same_summary(
            &cpu.report().unwrap(),
            &parts.report().unwrap(),
            &format!("{b:?}"),
        );
        let measured = cpu
            .replications()
            .iter()
            .filter(|r| r.departures >= 300)
            .count();
        let finished = cpu
            .replications()
            .iter()
            .filter(|r| r.departures >= 310)
            .count();
        seen.push((measured, finished));
    }
    // the mid-run points are the mixed ones the test is about
    assert!(
        seen[0].0 > 0 && seen[0].0 < 50,
        "measured at 700 events: {seen:?}"
    );
    assert!(
        seen[1].1 > 0 && seen[1].1 < 50,
        "finished at 725 events: {seen:?}"
    );
}

/// The grand mean's interval is honest: on a held configuration the exact L lies inside
/// its 99% interval (the 95% one widened by t.995/t.975).
#[test]
fn the_exact_l_lies_inside_the_99_percent_interval_of_the_grand_mean() {
    let cfg = config(&[
        "run.replications=400",
        "run.customers=20000",
        "run.warmup=1000",
        "run.seed=2026",
    ]);
    let mut e = CpuMmck::new(&cfg);
    e.advance(Budget::Finish).unwrap();
    let s = e.summary();
    let half95 = (s.ci95_high - s.ci95_low) / 2.0;
    let half99 = half95 * 2.5758 / 1.9659; // normal-ish ratio at 399 degrees of freedom
    let err = (s.mean_number_in_system - s.analytic_number_in_system).abs();
    assert!(
        err < half99,
        "L̂ = {} ± {half99} (99%), exact {}",
        s.mean_number_in_system,
        s.analytic_number_in_system
    );
    assert!(half95 > 0.0 && half95 < 0.01, "{half95}");
    // the pooled measures land near their exact values too
    assert!((s.blocking_probability - s.analytic_blocking_probability).abs() < 0.005);
    assert!((s.utilization - s.analytic_utilization).abs() < 0.005);
    assert!((s.mean_system_time - s.analytic_system_time).abs() < 0.01);
}

/// Over many independent seeds the 95% interval covers the exact L about 95% of the time
/// (200 seeds: a binomial count, expected 190, standard deviation 3.1).
#[test]
fn the_95_percent_interval_covers_the_exact_value_at_about_its_nominal_rate() {
    let mut covered = 0;
    for seed in 0..200 {
        let cfg = config(&[
            "model.servers=2",
            "model.capacity=4",
            "model.arrival_rate=1.5",
            "run.replications=20",
            "run.customers=4000",
            "run.warmup=400",
            &format!("run.seed={seed}"),
        ]);
        let mut e = CpuMmck::new(&cfg);
        e.advance(Budget::Finish).unwrap();
        let s = e.summary();
        covered += u32::from((s.ci95_low..=s.ci95_high).contains(&s.analytic_number_in_system));
    }
    assert!((180..=199).contains(&covered), "covered {covered} of 200");
}

#[test]
fn bad_input_is_refused_with_the_key_and_the_range() {
    for (set, message) in [
        (
            "model.servers=0",
            "model.servers must be a whole number from 1 to 64; got 0",
        ),
        (
            "model.capacity=2",
            "model.capacity must be a whole number from model.servers = 3 to 256 (those in service count); got 2",
        ),
        (
            "model.arrival_rate=0",
            "model.arrival_rate must be a number from 0.01 to 1,000 (at most 100 · model.servers · model.service_rate); got 0",
        ),
        (
            "model.service_rate=0.01",
            "model.arrival_rate must be a number from 0.01 to 100 · model.servers · model.service_rate = 3 (a queue offered more than 100 times what its servers complete spends its run on lost arrivals: each is an event); got 4",
        ),
        (
            "run.replications=0",
            "run.replications must be a whole number from 1 to 16,777,216; got 0",
        ),
        (
            "run.warmup=50000",
            "run.warmup must be a whole number from 0 to below run.customers = 50000 (some departures must be measured); got 50000",
        ),
    ] {
        let err = pdes_lab::preset::config_with("cheng2014-mmck", &[set]).unwrap_err();
        assert_eq!(err, message, "{set}");
    }
    // more replications than one dispatch of this adapter holds: refused before allocating
    let Some(g) = gpu() else { return };
    let limit = u64::from(g.limits.max_compute_workgroups_per_dimension) * 64;
    let n = (limit + 1).min(1 << 24);
    if n > limit {
        let cfg = config(&[&format!("run.replications={n}"), "run.customers=10"]);
        let err = GpuMmck::new(g, &cfg).err().expect("refused").to_string();
        assert!(
            err.contains("run.replications must be a whole number from 1 to ")
                && err.contains("on this adapter"),
            "{err}"
        );
    }
}

/// A time budget moves the clock to its limit (every event before it is processed), on
/// both engines: the window advances replications by a span per frame from `now()`, and a
/// clock stuck at the laggard's last event stalled it.
#[test]
fn a_time_budget_moves_now_to_its_limit() {
    let cfg = config(&["run.replications=256", "run.customers=2000"]);
    let mut cpu = CpuMmck::new(&cfg);
    let limit = 10 << 20; // 10 time units
    cpu.advance(Budget::Until(limit)).unwrap();
    assert_eq!(cpu.now(), limit);
    cpu.advance(Budget::Until(limit + (1 << 19))).unwrap();
    assert_eq!(cpu.now(), limit + (1 << 19));
    let Some(g) = gpu() else { return };
    let mut gpu = GpuMmck::new(g, &cfg).unwrap();
    gpu.advance(Budget::Until(limit)).unwrap();
    assert_eq!(gpu.now(), limit);
}

/// `bench --suite mmck-smoke`: the GPU row is accepted only when it equals the CPU row field
/// for field, and replications report no steps (null, not 0).
#[test]
fn the_smoke_suite_compares_the_engines_and_reports_no_steps() {
    if gpu().is_none() {
        return;
    }
    let rows = common_cfg::bench_rows("mmck-smoke", &[]);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1]["engine"], "gpu");
    assert_eq!(rows[0]["work"], rows[1]["work"]);
    assert_eq!(
        rows[0]["summary"]["mean_number_in_system"],
        rows[1]["summary"]["mean_number_in_system"]
    );
    for r in &rows {
        assert!(r["steps"].is_null() && r["us_per_step"].is_null(), "{r}");
    }
}

/// `--devices`: each device's share that one dispatch of that device cannot hold runs there
/// in parts (two "devices" that allow one workgroup a dispatch dimension, 600 replications:
/// shares of 300, more than one dispatch holds): every replication and the summary are the
/// CPU's. (10⁷ replications over two H200s were refused "at most 4,194,240" while one H200
/// ran them.)
#[test]
fn a_share_larger_than_a_dispatch_runs_in_parts_on_its_device() {
    let Some(_) = gpu() else { return };
    let narrow = std::sync::Arc::new(
        pdes_lab::gpu::Gpu::with_limits(|l| wgpu::Limits {
            max_compute_workgroups_per_dimension: 1,
            ..l
        })
        .unwrap(),
    );
    let cfg = config(&["run.replications=600", "run.customers=300", "run.seed=43"]);
    assert!(
        GpuMmck::most_in_one(&narrow, &cfg, 300) < 300,
        "the share must exceed a dispatch"
    );
    let mut cpu = CpuMmck::new(&cfg);
    let mut spread = SpreadMmck::new(&[narrow.clone(), narrow], &cfg).unwrap();
    cpu.advance(Budget::Finish).unwrap();
    spread.advance(Budget::Finish).unwrap();
    assert_eq!(spread.replications().unwrap(), cpu.replications());
    assert_same_summary(&cpu.report().unwrap(), &spread.report().unwrap(), "the end");
}
