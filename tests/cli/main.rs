//! The command line as a user meets it: outputs (`outputs.rs`), bad input (`refusals.rs`),
//! the bench harness (`bench.rs`), sweeps and their shards (`sweep.rs`), and what outputs
//! and inputs must never damage or hang on (`safe_outputs.rs`), one test binary.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

pub(crate) use std::process::Command;

/// The binary under test.
pub(crate) fn pdes() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pdes-lab"))
}

/// `args` followed by `--set KEY=VALUE` for each of `sets`.
pub(crate) fn cli_args<'a>(args: &[&'a str], sets: &[&'a str]) -> Vec<&'a str> {
    let mut all = args.to_vec();
    for set in sets {
        all.extend(["--set", set]);
    }
    all
}

/// Runs it with `args`.
pub(crate) fn out(args: &[&str]) -> std::process::Output {
    pdes().args(args).output().unwrap()
}

/// True (with a note) when there is no adapter and PDES_REQUIRE_GPU is not set.
pub(crate) fn pdes_lab_has_no_gpu() -> bool {
    match pdes_lab::gpu::Gpu::shared() {
        Ok(_) => false,
        Err(e) if std::env::var("PDES_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("PDES_REQUIRE_GPU=1 but no GPU adapter: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED: no GPU adapter ({e})");
            true
        }
    }
}

/// (status code, stdout, stderr)
pub(crate) fn run_text(args: &[&str]) -> (i32, String, String) {
    let o = out(args);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Runs `pdes-lab args`, which must be refused as bad input (exit status 2) with a message
/// containing `needle`; returns (stdout, stderr).
pub(crate) fn refused(args: &[&str], needle: &str) -> (String, String) {
    let (code, out, err) = run_text(args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(needle), "{err}");
    (out, err)
}

/// The JSON report of `bench --suite SUITE --repeat N --format json` (the run must succeed).
pub(crate) fn bench_json(suite: &str, repeat: &str) -> serde_json::Value {
    let o = out(&[
        "bench", "--suite", suite, "--repeat", repeat, "--format", "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// A bench row's `wall_seconds` is the median of its `n` timed runs, all listed.
pub(crate) fn assert_median_of_runs(r: &serde_json::Value, n: usize) {
    let mut runs: Vec<f64> = r["wall_seconds_runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_f64().unwrap())
        .collect();
    assert_eq!(runs.len(), n, "{r}");
    runs.sort_by(f64::total_cmp);
    assert_eq!(r["wall_seconds"].as_f64().unwrap(), runs[n / 2], "{r}");
}

#[path = "../common_cfg/mod.rs"]
mod common_cfg;

mod bench;
mod docs;
mod lost_runs;
mod outputs;
mod refusals;
mod safe_outputs;
mod sweep;
mod tune;
