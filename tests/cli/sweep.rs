//! `pdes-lab sweep` and `sweep-merge` through the command line: shards join into the
//! unsharded sweep row for row, an interrupted CSV is completed by --resume without
//! rerunning what it has, failing points are reported while the sweep goes on, bad specs
//! are refused, aggregates are the means of the runs, and the figure is written.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::cli_args;
use crate::common_cfg;
use std::process::Command;

fn pdes(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_pdes-lab"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("pdes-sweep-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A small torus sweep: 2 values of d × 3 of the seed count = 6 points... (the grid of the
/// tests: d over 3 values, rows over 2, 2 seeds: 12 runs).
fn grid() -> Vec<&'static str> {
    cli_args(
        &[
            "sweep",
            "--vary",
            "run.d=0.25,0.5,1",
            "--vary",
            "model.rows=8,12",
            "--seeds",
            "2",
            "--jobs=2",
        ],
        &["run.end_time=100", "run.warmup=0"],
    )
}

/// The CSV's rows without the wall-clock columns (which differ between any two runs).
fn deterministic(csv_text: &str) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_reader(csv_text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| {
            !["wall_seconds", "events_per_second", "row_digest"].contains(&header[i].as_str())
        })
        .collect();
    let mut rows = vec![keep.iter().map(|&i| header[i].clone()).collect()];
    for rec in r.records() {
        let rec = rec.unwrap();
        rows.push(keep.iter().map(|&i| rec[i].to_string()).collect());
    }
    rows
}

#[test]
fn the_shards_merged_are_the_unsharded_sweep_row_for_row() {
    let d = dir("shards");
    let whole = d.join("whole.csv");
    let mut args = grid();
    let w = whole.to_str().unwrap().to_string();
    args.extend(["--format", "csv", "--out", &w]);
    let (code, _, err) = pdes(&args);
    assert_eq!(code, 0, "{err}");
    let mut parts = Vec::new();
    for i in 0..3 {
        let p = d.join(format!("part{i}.csv")).to_str().unwrap().to_string();
        let shard = format!("{i}/3");
        let mut a = grid();
        a.extend(["--format", "csv", "--out", &p, "--shard", &shard]);
        let (code, _, err) = pdes(&a);
        assert_eq!(code, 0, "{err}");
        parts.push(p);
    }
    let merged = d.join("merged.csv").to_str().unwrap().to_string();
    let mut m = vec!["sweep-merge", "--out", &merged];
    m.extend(parts.iter().map(String::as_str));
    let (code, _, err) = pdes(&m);
    assert_eq!(code, 0, "{err}");
    let a = deterministic(&std::fs::read_to_string(&whole).unwrap());
    let b = deterministic(&std::fs::read_to_string(&merged).unwrap());
    assert_eq!(a.len(), 13, "header + 6 points × 2 seeds");
    assert_eq!(a, b);
    // a missing shard is named as such, and overlapping ones are refused
    let (code, _, err) = pdes(&["sweep-merge", &parts[0], &parts[1]]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("a shard is missing"), "{err}");
    let (code, _, err) = pdes(&["sweep-merge", &parts[0], &parts[0]]);
    assert_eq!(code, 2);
    assert!(err.contains("appears twice"), "{err}");
}

#[test]
fn resume_completes_an_interrupted_csv_without_rerunning_its_rows() {
    let d = dir("resume");
    let whole = d.join("whole.csv").to_str().unwrap().to_string();
    let mut args = grid();
    args.extend(["--format", "csv", "--out", &whole]);
    assert_eq!(pdes(&args).0, 0);
    let text = std::fs::read_to_string(&whole).unwrap();
    // what an interruption leaves: the header, some whole lines, a cut one
    let lines: Vec<&str> = text.lines().collect();
    let cut = &lines[5][..lines[5].len() / 2];
    let partial = format!("{}\n{cut}", lines[..5].join("\n"));
    let p = d.join("partial.csv").to_str().unwrap().to_string();
    std::fs::write(&p, partial).unwrap();
    let mut args = grid();
    args.extend(["--format", "csv", "--out", &p, "--resume"]);
    let (code, _, err) = pdes(&args);
    assert_eq!(code, 0, "{err}");
    let done = std::fs::read_to_string(&p).unwrap();
    assert_eq!(deterministic(&done), deterministic(&text));
    // the four whole rows were kept as they were, wall-clock figures included
    let kept: Vec<&str> = done.lines().collect();
    for l in &lines[1..5] {
        assert!(kept.contains(l), "row rerun or lost: {l}");
    }
}

#[test]
fn a_failing_point_is_reported_with_its_parameters_and_the_sweep_goes_on() {
    // shifted service needs d < M = 10: d = 20 fails, the others run
    let (code, out, err) = pdes(&cli_args(
        &["sweep", "--vary", "run.d=0.5,20,1", "--format", "json"],
        &["run.end_time=50", "run.warmup=0"],
    ));
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("1 of 3 runs failed") && err.contains("run.d=20"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["failed"], 1);
    assert_eq!(v["points"].as_array().unwrap().len(), 2);
    assert!(v["runs"][1]["error"].as_str().unwrap().contains("run.d"));
}

#[test]
fn bad_specs_are_refused_with_the_flag_the_key_and_the_reason() {
    for (args, needle) in [
        (
            vec!["sweep", "--vary", "run.speed=1,2"],
            "--vary run.speed=1,2: run.speed is not a key",
        ),
        (vec!["sweep", "--vary", "run.d=0:1:3:log"], "START > 0"),
        (vec!["sweep", "--vary", "run.d=1:2:x"], "N \"x\""),
        (vec!["sweep"], "nothing to sweep"),
        (
            vec!["sweep", "--vary", "run.d=1,2", "--shard", "3/3"],
            "--shard 3/3",
        ),
        (
            vec!["sweep", "--vary", "run.d=1,2", "--vary", "run.d=3"],
            "swept twice",
        ),
        (
            vec![
                "sweep",
                "teaching-diffusion",
                "--vary",
                "run.quantum=0.1,0.2",
                "--seeds",
                "3",
            ],
            "has no run.seed",
        ),
        (
            vec!["sweep", "--vary", "run.d=1,2", "--resume"],
            "--resume: needs --format csv",
        ),
        (
            vec!["sweep", "--vary", "run.d=1,2", "--plot", "fig.pdf"],
            "a .png or a .svg",
        ),
    ] {
        let (code, _, err) = pdes(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn aggregates_are_the_means_of_the_runs_and_the_figure_is_drawn() {
    let d = dir("plot");
    let png = d.join("fig.png").to_str().unwrap().to_string();
    let (code, out, err) = pdes(&cli_args(
        &[
            "sweep",
            "--vary",
            "run.d=0.25:1:3:log",
            "--seeds",
            "3",
            "--format",
            "json",
            "--plot",
            &png,
        ],
        &["run.end_time=100", "run.warmup=0"],
    ));
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 9);
    for (p, point) in v["points"].as_array().unwrap().iter().enumerate() {
        assert_eq!(point["n"], 3);
        let us: Vec<f64> = runs
            .iter()
            .filter(|r| r["point"] == p)
            .map(|r| r["utilization"].as_f64().unwrap())
            .collect();
        let mean = us.iter().sum::<f64>() / 3.0;
        let got = point["estimates"]["utilization"]["mean"].as_f64().unwrap();
        assert!((got - mean).abs() < 1e-12, "point {p}: {got} vs {mean}");
        assert!(point["estimates"]["utilization"]["ci95"].as_f64().unwrap() > 0.0);
    }
    assert_eq!(v["sweep"]["vary"][0]["values"][1], 0.5);
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert!(
        bytes.len() > 10_000,
        "an empty figure? {} bytes",
        bytes.len()
    );
}

/// The rows of `pdes-lab sweep ARGS --engine ENGINE --format csv` without the wall-clock
/// and engine cells.
fn sweep_rows(args: &[&str], engine: &str) -> Vec<Vec<String>> {
    let mut all = args.to_vec();
    all.extend(["--engine", engine, "--format", "csv"]);
    let (code, out, err) = pdes(&all);
    assert_eq!(code, 0, "{engine}: {err}");
    deterministic(&out)
        .into_iter()
        .map(|r| {
            r.into_iter()
                .filter(|c| c != "gpu" && c != "cpu")
                .collect::<Vec<_>>()
        })
        .collect::<Vec<_>>()
}

#[test]
fn a_gpu_sweep_gives_the_cpu_sweeps_numbers() {
    if common_cfg::gpu().is_none() {
        return;
    }
    let args = cli_args(
        &["sweep", "park-fishwick-open", "--vary", "run.d=0.5,1"],
        &[
            "model.shape={ kind = \"tandem\", lines = 4, servers_per_line = 16, exit_probability = 0.25, arrival_rate = 0.1, service = { kind = \"exponential\", mean = 5.0 } }",
            "run.end_time=300",
        ],
    );
    assert_eq!(sweep_rows(&args, "gpu"), sweep_rows(&args, "cpu"));
}

/// On the GPU the 64×64 points' seeds and values of d run side by side in one engine (64×64
/// = whole segments per replica); 63×64 cannot, and runs its seeds one by one. Either way
/// every row is the CPU's.
#[test]
fn a_gpu_sweep_with_seeds_in_one_engine_gives_the_cpu_sweeps_numbers() {
    if common_cfg::gpu().is_none() {
        return;
    }
    let args = cli_args(
        &[
            "sweep",
            "--vary",
            "run.d=0.5,2",
            "--vary",
            "model.rows=64,63",
            "--seeds",
            "3",
        ],
        &["model.cols=64", "run.end_time=150", "run.warmup=0"],
    );
    let gpu = sweep_rows(&args, "gpu");
    assert_eq!(gpu.len(), 1 + 4 * 3);
    assert_eq!(gpu, sweep_rows(&args, "cpu"));
}

/// `--devices 0,0` opens the one GPU twice (two devices, what a 2-GPU host would have):
/// each is verified before it takes a run, the runs go to both, and the rows are those of
/// the sweep on one device.
#[test]
fn a_sweep_spread_over_two_devices_gives_the_one_device_rows() {
    if common_cfg::gpu().is_none() {
        return;
    }
    let args = cli_args(
        &[
            "sweep",
            "--vary",
            "run.d=0.5,1,2",
            "--seeds",
            "2",
            "--engine",
            "gpu",
            "--format",
            "csv",
        ],
        &["run.end_time=150", "run.warmup=0"],
    );
    let (code, one, err) = pdes(&args);
    assert_eq!(code, 0, "{err}");
    let mut spread = args.to_vec();
    spread.extend(["--devices", "0,0", "--jobs", "2"]);
    let (code, two, err) = pdes(&spread);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err.matches("GPU = CPU:").count(),
        2,
        "each device verified: {err}"
    );
    assert_eq!(deterministic(&two), deterministic(&one));
}

#[test]
fn devices_that_cannot_take_the_runs_are_refused_before_any_run() {
    let base = ["sweep", "--vary", "run.d=0.5", "--format", "csv"];
    let refused = |extra: &[&str], says: &[&str]| {
        let mut args = base.to_vec();
        args.extend(extra);
        let (code, out, err) = pdes(&args);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(out.is_empty(), "{extra:?}: {out}");
        for s in says {
            assert!(err.contains(s), "{extra:?}: {err}");
        }
    };
    refused(&["--devices", "all"], &["--devices", "CPU", "--engine gpu"]);
    refused(&["--devices", "first"], &["--devices", "\"first\"", "0,1"]);
    refused(&["--devices", "0,"], &["--devices", "0,1"]);
    if common_cfg::gpu().is_some() {
        refused(
            &["--engine", "gpu", "--devices", "7"],
            &["--devices", "device 7", "this host has"],
        );
    }
    // a run: on the CPU, or of a model whose run does not split, over several devices
    for (args, says) in [
        (
            &["run", "cheng2014-mmck", "--devices", "0"][..],
            &["--devices", "CPU", "--engine gpu"][..],
        ),
        (
            &[
                "run",
                "teaching-16x16",
                "--engine",
                "gpu",
                "--devices",
                "0,0",
            ][..],
            &[
                "--devices",
                "this model (torus network) takes one GPU",
                "sweep --devices",
            ][..],
        ),
        (
            &["run", "clinic", "--engine", "gpu", "--devices", "0,0"][..],
            &["--devices", "this model (your own network) takes one GPU"][..],
        ),
    ] {
        let (code, out, err) = pdes(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        for s in says {
            assert!(err.contains(s), "{args:?}: {err}");
        }
    }
}

/// `--y` naming no field of the summaries is refused before any run (exit 2, nothing on
/// stdout), with the fields it could name.
#[test]
fn an_unknown_statistic_is_refused_before_the_sweep_runs() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_pdes-lab"))
        .args([
            "sweep",
            "teaching-16x16",
            "--vary",
            "run.d=0.5,1",
            "--set",
            "run.end_time=300",
            "--y",
            "nonexistent",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(o.stdout.is_empty(), "a run was reported");
    assert!(
        err.contains("--y nonexistent: not a numeric field of the runs' summaries (they have: ")
            && err.contains("mean_sojourn"),
        "{err}"
    );
}

/// Issue 33: the figure preset redraws Sang et al.'s Figs. 14–15 out of the box — at every
/// d the M = 20 curve lies below M = 10 (the larger M, the smaller the shift), utilization
/// rises with d, and the time per visit stays below 2M.
#[test]
fn the_fig14_15_preset_has_the_papers_shape_out_of_the_box() {
    let (code, out, err) = pdes(&["sweep", "sang2019-fig14-15", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut by: std::collections::BTreeMap<(String, String), (f64, f64)> = Default::default();
    for p in v["points"].as_array().unwrap() {
        let d = p["values"]["run.d"].to_string();
        let m = p["values"]["model.mean_service"].to_string();
        let u = p["estimates"]["utilization"]["mean"].as_f64().unwrap();
        let s = p["estimates"]["mean_sojourn"]["mean"].as_f64().unwrap();
        by.insert((d, m), (u, s));
    }
    let ds = ["0.5", "1", "2", "4", "8"];
    let mut last = (0.0, 0.0);
    for d in ds {
        let (u10, s10) = by[&(d.to_string(), "10".to_string())];
        let (u20, s20) = by[&(d.to_string(), "20".to_string())];
        assert!(u20 < u10, "d = {d}: M = 20 {u20} is not below M = 10 {u10}");
        assert!(s10 < 20.0 && s20 < 40.0, "d = {d}: sojourns {s10}, {s20}");
        assert!(
            u10 > last.0 && u20 > last.1,
            "d = {d}: utilization does not rise"
        );
        last = (u10, u20);
    }
}
