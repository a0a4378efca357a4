//! Runs a user must never lose silently (issue 57 §2): a closed standard output, a sweep too
//! large for one process, a FIFO with or without a reader, a full disk under a sweep's CSV,
//! an output file that cannot be changed — each said before or instead of a lost result.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use super::refused;
use super::safe_outputs::{dir, pdes, s};
use crate::cli_args;
use std::process::Command;

/// `pdes-lab ARGS` started with its standard output closed (`>&-`): (status, stderr).
fn with_stdout_closed(args: &[&str]) -> (i32, String) {
    let o = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" \"$@\" >&-")
        .arg(env!("CARGO_BIN_EXE_pdes-lab"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_closed_standard_output_is_refused_not_silently_lost() {
    let d = dir("closed-stdout");
    let data = d.join("x.csv");
    std::fs::write(&data, "x\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n").unwrap();
    let data = s(&data);
    // the probe's commands (issue 57 §2): each exited 0 with its output lost
    for args in [
        &["run", "teaching-16x16", "--format", "json"][..],
        &["presets"],
        &["fit", &data, "--components", "1..2"],
        &cli_args(
            &["sweep", "--vary", "run.d=0.5,1"],
            &["run.end_time=50", "run.warmup=0"],
        ),
    ] {
        let (code, err) = with_stdout_closed(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains("standard output is closed"), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    // stdout on /dev/null, as a shell's `>/dev/null` opens it, is a destination like any
    let o = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" presets >/dev/null")
        .arg(env!("CARGO_BIN_EXE_pdes-lab"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn a_sweep_of_too_many_runs_is_refused_before_any_run_with_the_shards_that_would_do() {
    let d = dir("huge-sweep");
    let out = d.join("rows.csv");
    let (_, err) = refused(
        &cli_args(
            &[
                "sweep",
                "--vary",
                "run.d=0.1:0.9:10000",
                "--seeds",
                "10000",
                "--format",
                "csv",
                "--out",
                &s(&out),
            ],
            &["model.rows=2", "model.cols=2"],
        ),
        "100,000,000 runs",
    );
    assert!(err.contains("at most 1,000,000"), "{err}");
    assert!(err.contains("--shard I/100"), "{err}");
    assert!(!out.exists(), "a file was started");
    // a shard of it that fits is not refused for its size
    let (code, _, err) = pdes(&cli_args(
        &[
            "sweep",
            "--vary",
            "run.d=0.1:0.9:10000",
            "--seeds",
            "10000",
            "--shard",
            "0/100",
        ],
        &["model.rows=2", "model.cols=2", "run.end_time=-1"],
    ));
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("runs;"), "refused for its size: {err}");
}

#[test]
fn a_fifo_with_no_reader_is_said_at_once_and_the_output_waits_for_one() {
    use std::io::{BufRead, Read};
    let d = dir("fifo-no-reader");
    let fifo = d.join("out.fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_pdes-lab"))
        .args(cli_args(&["run"], &["run.end_time=20", "run.warmup=0"]))
        .args(["--format", "json", "--out"])
        .arg(&fifo)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // the note comes before the run, while no one reads
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(
        line.contains("no reader yet") && line.contains("wait"),
        "{line}"
    );
    // a reader then gets the whole result
    let mut text = String::new();
    std::fs::File::open(&fifo)
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    assert!(text.contains("\"utilization\""), "{text}");
    assert!(child.wait().unwrap().success());
}

/// Waits until a thread of this process is blocked opening a FIFO (Linux's
/// `wait_for_partner` in /proc), so that the reader is there before the command looks for
/// one: on a loaded machine the reader's thread had not reached its `open` yet, and the
/// command rightly said "no reader". Where /proc does not say, it goes on after 10 s.
fn wait_until_a_thread_opens_a_fifo() {
    for _ in 0..2000 {
        let waiting = std::fs::read_dir("/proc/self/task")
            .into_iter()
            .flatten()
            .flatten()
            .any(|t| {
                std::fs::read_to_string(t.path().join("wchan"))
                    .is_ok_and(|w| w.trim() == "wait_for_partner")
            });
        if waiting {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn a_fifo_with_a_reader_gets_the_whole_output() {
    use std::io::Read;
    let d = dir("fifo-reader");
    let fifo = d.join("out.fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let f = fifo.clone();
    // the reader opens first (it blocks until a writer comes): the check's probe must not
    // look like the end of the output to it
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::fs::File::open(&f)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        text
    });
    wait_until_a_thread_opens_a_fifo();
    let (code, _, err) = pdes(&cli_args(
        &["run", "--format", "json", "--out", &s(&fifo)],
        &["run.end_time=20", "run.warmup=0"],
    ));
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("no reader"), "{err}");
    let text = reader.join().unwrap();
    assert!(text.contains("\"utilization\""), "the reader got: {text:?}");
}

#[test]
fn a_sweep_csv_on_a_full_disk_keeps_only_whole_rows_and_resume_completes_it() {
    let d = dir("full-disk-sweep");
    let f = d.join("rows.csv");
    let mut args = cli_args(
        &[
            "sweep",
            "--vary",
            "run.d=0.5,1,2",
            "--seeds",
            "2",
            "--jobs=1",
            "--format",
            "csv",
        ],
        &[
            "model.rows=8",
            "model.cols=8",
            "run.end_time=50",
            "run.warmup=0",
        ],
    );
    // the path follows --out: last on the command line
    args.push("--out");
    // a file-size limit of 1 KiB stands in for a full disk (its writes fail with EFBIG;
    // the signal that would kill the process is ignored, as a full disk sends none)
    let o = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 2; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_pdes-lab"))
        .args(&args)
        .arg(&f)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(text.ends_with('\n'), "a cut row is left: {text:?}");
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let width = r.headers().unwrap().len();
    let whole = r
        .records()
        .map(|x| x.unwrap().len())
        .filter(|n| *n == width)
        .count();
    assert_eq!(whole, text.lines().count() - 1, "{text}");
    assert!(whole < 6, "the limit did not cut the file: {whole} rows");
    // without the limit, --resume completes it
    let mut resume: Vec<&str> = args.to_vec();
    let out = s(&f);
    resume.extend([out.as_str(), "--resume"]);
    let (code, _, err) = pdes(&resume);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&f).unwrap();
    assert_eq!(text.lines().count(), 1 + 6, "{text}");
}

#[test]
fn an_immutable_out_file_is_refused_before_the_run() {
    let d = dir("immutable");
    let f = d.join("summary.json");
    std::fs::write(&f, "kept\n").unwrap();
    // chattr +i needs root and a file system with the attribute: elsewhere nothing to test
    let immutable = Command::new("chattr")
        .arg("+i")
        .arg(&f)
        .status()
        .is_ok_and(|s| s.success());
    if !immutable {
        eprintln!("SKIPPED: chattr +i is not available here");
        return;
    }
    let (code, _, err) = pdes(&cli_args(
        &["run", "--out", &s(&f)],
        &["model.rows=2048", "model.cols=2048"],
    ));
    let _ = Command::new("chattr").arg("-i").arg(&f).status();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be changed"), "{err}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "kept\n");
}
