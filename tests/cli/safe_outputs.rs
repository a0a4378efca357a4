//! What a user's files and devices are safe from (issue 35): a sweep that ignores the seeds
//! it was told, a resume or a merge that mixes two sweeps, an output renamed over a device
//! node or a FIFO, two outputs written to one path, a full disk reported as bad input.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::cli_args;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::refused;
pub(super) use super::run_text as pdes;

/// The arguments of a short torus run (T = 20, no warm-up) followed by `more`.
fn short_run<'a>(more: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["run", "--set", "run.end_time=20", "--set", "run.warmup=0"];
    args.extend_from_slice(more);
    args
}

pub(super) fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pdes-safe-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub(super) fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// A tiny torus sweep over `d` values (2 seeds), as CSV to `out`, with extra arguments.
fn sweep(d_values: &str, out: &Path, extra: &[&str]) -> (i32, String, String) {
    let vary = format!("run.d={d_values}");
    let out = s(out);
    let mut args = cli_args(
        &[
            "sweep", "--vary", &vary, "--seeds", "2", "--jobs=2", "--format", "csv", "--out", &out,
        ],
        &[
            "model.rows=8",
            "model.cols=8",
            "run.end_time=50",
            "run.warmup=0",
        ],
    );
    args.extend(extra);
    pdes(&args)
}

#[test]
fn a_swept_seed_is_refused_with_the_way_to_sweep_seeds() {
    let (code, _, err) = pdes(&cli_args(
        &["sweep", "--vary", "run.seed=1,2,3", "--format", "json"],
        &["run.end_time=50", "run.warmup=0"],
    ));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--vary run.seed") && err.contains("--seeds N"),
        "{err}"
    );
}

#[test]
fn seeds_past_the_largest_are_refused_not_wrapped() {
    refused(
        &[
            "sweep",
            "--vary",
            "run.d=0.5,1",
            "--seeds",
            "2",
            "--set",
            "run.seed=9223372036854775807",
        ],
        "past the largest seed",
    );
}

#[test]
fn resume_refuses_the_file_of_another_sweep_and_keeps_it() {
    let d = dir("resume-other");
    let f = d.join("a.csv");
    assert_eq!(sweep("0.5,2", &f, &[]).0, 0);
    let before = std::fs::read_to_string(&f).unwrap();
    let (code, _, err) = sweep("3,6", &f, &["--resume"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("belongs to another sweep"), "{err}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), before);
    // another --set is another sweep too
    let (code, _, err) = sweep("0.5,2", &f, &["--resume", "--set", "model.mean_service=5"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn out_over_an_existing_file_replaces_it_whole() {
    let d = dir("replace");
    let f = d.join("a.csv");
    assert_eq!(sweep("0.5,2", &f, &[]).0, 0);
    assert_eq!(sweep("1,3", &f, &[]).0, 0);
    let text = std::fs::read_to_string(&f).unwrap();
    let headers = text.lines().filter(|l| l.starts_with("sweep,")).count();
    assert_eq!(headers, 1, "{text}");
    assert_eq!(text.lines().count(), 1 + 2 * 2, "{text}");
}

/// Two shards of one sweep (`--shard I/2`) into `d`.
fn shards(d: &Path, d_values: &str, tag: &str) -> Vec<String> {
    (0..2)
        .map(|i| {
            let p = d.join(format!("{tag}{i}.csv"));
            let shard = format!("{i}/2");
            let (code, _, err) = sweep(d_values, &p, &["--shard", &shard]);
            assert_eq!(code, 0, "{err}");
            s(&p)
        })
        .collect()
}

#[test]
fn merge_refuses_shards_of_two_sweeps_and_writes_nothing() {
    let d = dir("merge-two");
    let a = shards(&d, "0.5,2", "a");
    let b = shards(&d, "3,6", "b");
    let out = s(&d.join("merged.csv"));
    refused(
        &["sweep-merge", "--out", &out, &a[0], &b[1]],
        "another sweep",
    );
    assert!(!Path::new(&out).exists());
    // the right pair merges
    let (code, _, err) = pdes(&["sweep-merge", "--out", &out, &a[0], &a[1]]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 5);
}

#[test]
fn merge_refuses_an_incomplete_set_naming_the_points_and_writes_nothing() {
    let d = dir("merge-missing");
    let a = shards(&d, "0.5,1,2", "a");
    let out = s(&d.join("merged.csv"));
    let (code, _, err) = pdes(&["sweep-merge", "--out", &out, &a[0]]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("points short: 1 (0 of 2 seeds)"), "{err}");
    assert!(!Path::new(&out).exists());
}

#[test]
fn merge_refuses_a_corrupt_or_cut_row_naming_the_shard() {
    let d = dir("merge-corrupt");
    let a = shards(&d, "0.5,2", "a");
    let text = std::fs::read_to_string(&a[1]).unwrap();
    // point "zz": the second column of the first row
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut cells: Vec<String> = lines[1].split(',').map(str::to_string).collect();
    cells[1] = "zz".into();
    lines[1] = cells.join(",");
    std::fs::write(&a[1], lines.join("\n") + "\n").unwrap();
    let (code, _, err) = pdes(&["sweep-merge", &a[0], &a[1]]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&a[1]) && err.contains("line 2 was changed"),
        "{err}"
    );
    // a shard cut in the middle of its last line
    let cut = &text[..text.len() - 10];
    std::fs::write(&a[1], cut).unwrap();
    let (code, _, err) = pdes(&["sweep-merge", &a[0], &a[1]]);
    assert_eq!(code, 2, "{err}");
    // cut inside its digest (the last cell): caught by the digest; cut earlier: a short line
    assert!(
        err.contains("a cut line") || err.contains("line 3 was changed or cut"),
        "{err}"
    );
}

/// Shard `path` with cell `column` of its data line `line` (1: the first row) set to `value`.
fn edit_cell(path: &str, line: usize, column: &str, value: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    let i = header.iter().position(|h| h == column).unwrap();
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&header).unwrap();
    for (n, rec) in r.records().enumerate() {
        let mut cells: Vec<String> = rec.unwrap().iter().map(str::to_string).collect();
        if n + 1 == line {
            cells[i] = value.to_string();
        }
        w.write_record(&cells).unwrap();
    }
    std::fs::write(path, w.into_inner().unwrap()).unwrap();
}

#[test]
fn merge_refuses_an_edited_seed_d_or_statistic_naming_file_and_line() {
    // the probe's three edits (issue 57 §2): each merged "complete" before
    for (column, value) in [("seed", "9"), ("run.d", "0.75"), ("utilization", "banana")] {
        let d = dir(&format!("merge-edited-{}", column.replace('.', "-")));
        let a = shards(&d, "0.5,2", "a");
        let out = s(&d.join("merged.csv"));
        // the untouched shards merge
        let (code, _, err) = pdes(&["sweep-merge", "--out", &out, &a[0], &a[1]]);
        assert_eq!(code, 0, "{err}");
        std::fs::remove_file(&out).unwrap();
        edit_cell(&a[1], 2, column, value);
        let (code, _, err) = pdes(&["sweep-merge", "--out", &out, &a[0], &a[1]]);
        assert_eq!(code, 2, "{column}: {err}");
        assert!(
            err.contains(&a[1]) && err.contains("line 3 was changed"),
            "{column}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!Path::new(&out).exists(), "{column}: written");
    }
}

#[test]
fn resume_runs_an_edited_row_again_rather_than_adopting_it() {
    let d = dir("resume-edited");
    let f = d.join("a.csv");
    assert_eq!(sweep("0.5,2", &f, &[]).0, 0);
    let whole = std::fs::read_to_string(&f).unwrap();
    edit_cell(&s(&f), 1, "utilization", "banana");
    let (code, _, err) = sweep("0.5,2", &f, &["--resume"]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(!text.contains("banana"), "{text}");
    // the run again gives the row it had (the wall-clock cells aside)
    let utilization = |t: &str| -> Vec<String> {
        let mut r = csv::Reader::from_reader(t.as_bytes());
        let i = r
            .headers()
            .unwrap()
            .iter()
            .position(|h| h == "utilization")
            .unwrap();
        r.records().map(|x| x.unwrap()[i].to_string()).collect()
    };
    assert_eq!(utilization(&text), utilization(&whole));
}

#[test]
fn a_device_node_stays_a_device_and_a_full_one_is_a_write_failure() {
    use std::os::unix::fs::FileTypeExt;
    let (code, _, err) = pdes(&short_run(&[
        "--out",
        "/dev/null",
        "--steps-csv",
        "/dev/null",
    ]));
    assert_eq!(code, 0, "{err}");
    let m = std::fs::metadata("/dev/null").unwrap();
    assert!(m.file_type().is_char_device(), "/dev/null was replaced");
    if Path::new("/dev/full").exists() {
        let (code, _, err) = pdes(&short_run(&["--out", "/dev/full"]));
        assert_eq!(code, 1, "{err}");
        assert!(
            std::fs::metadata("/dev/full")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }
}

#[test]
fn a_fifo_as_out_is_written_to_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let d = dir("fifo");
    let fifo = d.join("pipe");
    let ok = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(ok.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let (code, _, err) = pdes(&short_run(&["--format", "json", "--out", &s(&fifo)]));
    assert_eq!(code, 0, "{err}");
    let text = reader.join().unwrap();
    assert!(text.contains("\"events\""), "{text}");
    let m = std::fs::symlink_metadata(&fifo).unwrap();
    assert!(m.file_type().is_fifo(), "the FIFO was replaced by a file");
}

#[test]
fn two_outputs_to_one_path_are_refused() {
    let d = dir("same");
    let f = s(&d.join("x.csv"));
    refused(
        &short_run(&["--out", &f, "--steps-csv", &f]),
        "--out and --steps-csv name the same file",
    );
    assert!(!Path::new(&f).exists());
}

#[test]
fn a_sweep_of_a_word_for_a_number_is_refused_before_any_run() {
    let (code, out, err) = pdes(&["sweep", "--vary", "run.d=0.5,abc", "--format", "csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--vary run.d: abc is not a number"), "{err}");
    assert!(out.is_empty(), "runs were written: {out}");
}

#[test]
fn a_grid_too_large_to_list_is_refused_with_its_count() {
    refused(
        &[
            "sweep",
            "--vary",
            "run.d=0.1:10:10000",
            "--vary",
            "model.mean_service=1:20:10000",
        ],
        "the grid has 100000000 points (10000 × 10000)",
    );
}

#[test]
fn a_preset_that_is_not_a_file_is_named_for_what_it_is() {
    let d = dir("not-a-file");
    refused(&["run", &s(&d)], "is a folder, not a preset file");
    let fifo = d.join("preset.toml");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    // refused without opening it: a FIFO with no writer would block the read forever
    refused(&["run", &s(&fifo)], "is not a regular file");
    refused(&["run", "/dev/zero"], "is not a regular file");
}

#[test]
fn a_closed_stderr_keeps_the_exit_status() {
    let exe = env!("CARGO_BIN_EXE_pdes-lab");
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("'{exe}' run --set model.rows=0 2>&-"))
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
}

#[test]
fn the_window_without_a_display_says_so_in_one_line() {
    let o = Command::new(env!("CARGO_BIN_EXE_pdes-lab"))
        .arg("gui")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("no display found") && err.contains("pdes-lab run"),
        "{err}"
    );
}

#[test]
fn an_array_larger_than_the_sweep_merges_its_empty_shards() {
    let d = dir("empty-shards");
    // the README's SLURM line with --array larger than the grid: 5 shards over 2 points
    let parts: Vec<String> = (0..5)
        .map(|i| {
            let p = d.join(format!("part{i}.csv"));
            let shard = format!("{i}/5");
            let (code, _, err) = sweep("0.5,2", &p, &["--shard", &shard, "--resume"]);
            assert_eq!(code, 0, "shard {i}: {err}");
            s(&p)
        })
        .collect();
    let empty = std::fs::read_to_string(&parts[4]).unwrap();
    assert!(empty.contains("this shard holds no points"), "{empty}");
    let merged = s(&d.join("merged.csv"));
    let mut args = vec!["sweep-merge", "--out", &merged];
    args.extend(parts.iter().map(String::as_str));
    let (code, _, err) = pdes(&args);
    assert_eq!(code, 0, "{err}");
    let whole = d.join("whole.csv");
    assert_eq!(sweep("0.5,2", &whole, &[]).0, 0);
    let (a, b) = (
        std::fs::read_to_string(&merged).unwrap(),
        std::fs::read_to_string(&whole).unwrap(),
    );
    assert_eq!(a.lines().count(), b.lines().count(), "{a}\n{b}");
    assert_eq!(a.lines().next(), b.lines().next());
    // an empty shard of another sweep is refused like any other shard
    let other = d.join("other4.csv");
    assert_eq!(sweep("3,6", &other, &["--shard", "4/5"]).0, 0);
    let mut args = vec!["sweep-merge", &parts[0], &parts[1], &parts[2], &parts[3]];
    let o = s(&other);
    args.push(&o);
    let (code, _, err) = pdes(&args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("an empty shard of another sweep"), "{err}");
}

#[test]
fn a_fit_never_prints_a_stand_in_as_a_likelihood_and_caps_k_at_the_distinct_values() {
    let d = dir("fit");
    let huge = d.join("huge.csv");
    std::fs::write(&huge, "x\n1e300\n2e300\n3e300\n1.5e300\n2.5e300\n").unwrap();
    // data of extreme scale are fitted in standard units and reported in their own: the
    // one-component fit is the sample's mean and sd, ln L an ordinary number
    let (code, out, err) = pdes(&["fit", &s(&huge), "--components", "1..2", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let one = &v["fits"][0];
    assert!(
        (one["means"][0].as_f64().unwrap() / 2e300 - 1.0).abs() < 1e-6,
        "{one}"
    );
    assert!(
        (one["sds"][0].as_f64().unwrap() / 0.5f64.sqrt() / 1e300 - 1.0).abs() < 1e-6,
        "{one}"
    );
    for f in v["fits"].as_array().unwrap() {
        let lnl = f["loglik"].as_f64().unwrap();
        assert!(
            lnl.is_finite() && lnl.abs() < 1e6,
            "a stand-in printed as ln L: {f}"
        );
    }
    let two = d.join("two.csv");
    std::fs::write(&two, "x\n1\n2\n1\n2\n1\n2\n").unwrap();
    let (code, out, err) = pdes(&["fit", &s(&two), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("so k stops at 2"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["fits"].as_array().unwrap().len(), 2);
    refused(
        &["fit", &s(&two), "--components", "3..4"],
        "2 distinct values, fewer than the 3 components",
    );
}

#[test]
fn fit_data_are_refused_for_what_they_are_with_the_files_row() {
    let d = dir("fit-data");
    let ragged = d.join("ragged.csv");
    std::fs::write(&ragged, "x,y\n1,2\n3\n4,5\n").unwrap();
    refused(
        &["fit", &s(&ragged), "--column", "x"],
        "row 3 has 1 fields, the first row 2",
    );
    let nan = d.join("nan.csv");
    std::fs::write(&nan, "x\n1\n2\nNaN\n").unwrap();
    let (code, _, err) = pdes(&["fit", &s(&nan)]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("row 4: \"NaN\" is not a finite number"),
        "{err}"
    );
    refused(&["fit", "/dev/zero"], "not a regular file");
}
