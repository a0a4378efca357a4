//! The command line as a user meets it: outputs, presets and bad input.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use std::process::Command;

fn pdes() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pdes-lab"))
}

fn out(args: &[&str]) -> std::process::Output {
    pdes().args(args).output().unwrap()
}

#[test]
fn json_output_has_the_documented_fields() {
    let o = out(&[
        "run",
        "--set",
        "run.end_time=100",
        "--set",
        "run.warmup=0",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for k in [
        "model",
        "algorithm",
        "engine",
        "rows",
        "cols",
        "tokens",
        "mean_service",
        "service",
        "d",
        "end_time",
        "seed",
        "events",
        "steps",
        "mean_events_per_step",
        "max_events_per_step",
        "utilization",
        "mean_sojourn",
        "throughput",
        "causality_errors",
        "tokens_in_system",
        "wall_seconds",
        "events_per_second",
        "analytic_utilization",
        "analytic_sojourn",
        "corrected_utilization",
        "exponential_utilization",
        "exponential_sojourn",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    assert_eq!(v["algorithm"], "window");
    assert_eq!(v["tokens_in_system"], 256);
    assert!(v["analytic_utilization"].is_null());
    // shifted service: no exact value of this model, but the exponential model's is given
    // (what the window algorithm's shift departs from, paper 000 Fig. 14)
    let (u, w) = (
        v["exponential_utilization"].as_f64().unwrap(),
        v["exponential_sojourn"].as_f64().unwrap(),
    );
    assert!(u > 0.49 && u < 0.51 && w > 19.0 && w < 21.0, "{u} {w}");
}

#[test]
fn csv_output_is_a_header_and_one_row() {
    let o = out(&[
        "run",
        "park-fishwick-16x16",
        "--set",
        "run.end_time=50",
        "--format",
        "csv",
    ]);
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].split(',').count(), lines[1].split(',').count());
    assert!(lines[0].contains("corrected_utilization"));
}

#[test]
fn algorithm_flag_overrides_the_preset_and_out_writes_a_file() {
    let dir = std::env::temp_dir().join(format!("pdes-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s.json");
    let o = out(&[
        "run",
        "--algorithm",
        "interval-boundary",
        "--set",
        "run.end_time=50",
        "--set",
        "run.warmup=0",
        "--format",
        "json",
        "--out",
        path.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert!(o.stdout.is_empty());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["algorithm"], "interval");
    assert_eq!(v["timestamps"], "boundary");
}

/// Every built-in preset is listed with its description, and a description is whole: the
/// list shows a preset's first comment line only, so a sentence wrapped onto a second line
/// would be cut mid-sentence (the phold preset's was).
#[test]
fn presets_lists_every_builtin_with_a_whole_description() {
    let o = out(&["presets"]);
    let text = String::from_utf8(o.stdout).unwrap();
    for (name, _) in pdes_lab::preset::builtin() {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(*name))
            .expect(name);
        let description = line[name.len()..].trim();
        assert!(description.len() > 10, "{line}");
        assert!(description.ends_with('.'), "cut short: {line}");
    }
}

/// `presets` also says what every bench suite measures (`bench --help` sends users there).
#[test]
fn presets_lists_every_bench_suite_with_what_it_measures() {
    let o = out(&["presets"]);
    let text = String::from_utf8(o.stdout).unwrap();
    let suites = text
        .split("bench suites (pdes-lab bench --suite):\n")
        .nth(1)
        .expect("a bench suites section");
    for name in [
        "torus",
        "floor",
        "sequential-parts",
        "diffusion-ratio",
        "phold",
    ] {
        let line = suites
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .expect(name);
        assert!(line.len() > name.len() + 20, "{line}");
    }
}

/// Every bad input: exit status 2, one line on stderr naming the key or file, no panic,
/// nothing written to --out.
#[test]
fn bad_input_is_refused_with_one_clear_line() {
    let dir = std::env::temp_dir().join(format!("pdes-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad_toml = dir.join("bad.toml");
    std::fs::write(&bad_toml, "[model\nrows = 3").unwrap();
    let bad_toml = bad_toml.to_str().unwrap().to_string();
    let cases: &[(&[&str], &str)] = &[
        (&["--set", "model.colour=3"], "model.colour"),
        (&["--set", "run.speed=3"], "run.speed"),
        (&["--set", "model.rows=\"ten\""], "model.rows"),
        (&["--set", "model.rows=0"], "model.rows"),
        (&["--set", "model.cols=-4"], "model.cols"),
        (
            &["--set", "model.tokens_per_facility=0"],
            "model.tokens_per_facility",
        ),
        (&["--set", "run.d=10"], "run.d"),
        (&["--set", "run.d=0"], "run.d"),
        (
            &["--set", "run.d=-1", "--algorithm", "interval-original"],
            "run.d",
        ),
        (&["--set", "run.end_time=0"], "run.end_time"),
        (&["--set", "run.end_time=-5"], "run.end_time"),
        (&["--set", "model.service=\"exponential\""], "model.service"),
        (&["--set", "model.service=\"gamma\""], "model.service"),
        (&["--set", "run.seed=1.5"], "run.seed"),
        (&["no-such-preset"], "no-such-preset"),
        (&["missing/file.toml"], "missing/file.toml"),
        (&[&bad_toml], "malformed TOML"),
        (
            &[
                "--set",
                "model.rows=16384",
                "--set",
                "model.cols=16384",
                "--algorithm",
                "sequential",
            ],
            "on the CPU, more than the limit of 8 GiB",
        ),
    ];
    let out_file = dir.join("never.json");
    for (args, needle) in cases {
        let mut a = vec!["run"];
        a.extend_from_slice(args);
        a.extend(["--out", out_file.to_str().unwrap()]);
        let o = out(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!out_file.exists(), "{args:?} wrote --out");
    }
}

#[test]
fn a_diffusion_preset_runs_every_algorithm_to_the_end_time() {
    for alg in ["timestepped", "event", "hybrid"] {
        let o = out(&[
            "run",
            "teaching-diffusion",
            "--algorithm",
            alg,
            "--set",
            "model.rows=20",
            "--set",
            "run.end_time=30",
            "--format",
            "json",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["model"], "diffusion");
        assert_eq!(v["algorithm"], alg);
        assert_eq!(v["sim_time"], 30.0);
        assert!(v["steps"].as_u64().unwrap() > 0);
        // heated from the edges: the mean lies strictly between initial and boundary
        let mean = v["mean_temperature"].as_f64().unwrap();
        assert!(mean > 0.0 && mean < 100.0, "{alg}: mean {mean}");
    }
}

#[test]
fn a_torus_algorithm_on_a_diffusion_preset_is_refused_naming_the_key() {
    let o = out(&["run", "teaching-diffusion", "--algorithm", "window"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--algorithm window") && err.contains("timestepped, event, hybrid"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn verify_quick_lists_its_checks_and_passes_on_this_adapter() {
    if pdes_lab_has_no_gpu() {
        return;
    }
    let o = out(&["verify", "--quick"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        text.lines().filter(|l| l.starts_with("PASS ")).count() >= 7,
        "{text}"
    );
    let last = text.lines().last().unwrap();
    assert!(last.contains(" passed, 0 failed on "), "{last}");
    let j = out(&["verify", "--quick", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    assert_eq!(v["failed"], 0);
    assert!(
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["passed"] == true)
    );
}

/// True (with a note) when there is no adapter and PDES_REQUIRE_GPU is not set.
fn pdes_lab_has_no_gpu() -> bool {
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
fn run_text(args: &[&str]) -> (i32, String, String) {
    let o = out(args);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_path_that_names_a_missing_file_is_an_error_not_the_built_in_of_that_name() {
    let (code, _, err) = run_text(&["run", "/nonexistent/dir/sang2019-causality.toml"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no such file"), "{err}");
}

#[test]
fn refusals_state_the_real_rule_and_print_numbers_that_are_accepted() {
    let (code, _, err) = run_text(&["run", "--set", "run.end_time=1e-9"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("run.end_time must be a number from one tick (2^-20 ≈ 0.00000095)"),
        "{err}"
    );
    let (_, _, err) = run_text(&["run", "--set", "model.mean_service=1e-7"]);
    assert!(
        err.contains("model.mean_service must be a number from one tick"),
        "{err}"
    );
    // the printed stability bound is itself accepted
    let (code, _, err) = run_text(&[
        "run",
        "teaching-diffusion",
        "--set",
        "run.algorithm=\"timestepped\"",
        "--set",
        "model.alpha_x=1.7",
        "--set",
        "run.dt=0.2",
    ]);
    assert_eq!(code, 2, "{err}");
    // "… = BOUND (the explicit scheme is unstable above it); got 0.2"
    let bound = err
        .split(" = ")
        .find_map(|part| {
            let number = part.split_whitespace().next()?;
            number.parse::<f64>().ok().map(|_| number)
        })
        .expect("the refusal prints the bound");
    let (code, _, err) = run_text(&[
        "run",
        "teaching-diffusion",
        "--set",
        "run.algorithm=\"timestepped\"",
        "--set",
        "model.alpha_x=1.7",
        "--set",
        &format!("run.dt={bound}"),
        "--set",
        "run.end_time=1",
    ]);
    assert_eq!(code, 0, "dt = {bound}: {err}");
    let (_, _, err) = run_text(&["run", "teaching-diffusion", "--set", "run.dt=16"]);
    assert!(
        err.contains("run.dt must be a number from one tick (2^-20 ≈ 0.00000095) to below 16"),
        "{err}"
    );
}

#[test]
fn an_algorithm_of_another_model_is_named_as_such() {
    let (code, _, err) = run_text(&[
        "run",
        "teaching-diffusion",
        "--algorithm",
        "interval-original",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("not an algorithm of model.kind = \"diffusion\"")
            && err.contains("timestepped, event, hybrid"),
        "{err}"
    );
}

#[test]
fn a_grid_too_fast_for_one_tick_is_refused_instead_of_diverging() {
    let (code, out, err) = run_text(&[
        "run",
        "teaching-diffusion",
        "--set",
        "model.rows=8",
        "--set",
        "model.cols=8",
        "--set",
        "model.alpha_x=1e6",
        "--set",
        "model.alpha_y=1e6",
        "--set",
        "run.end_time=0.001",
        "--format",
        "json",
    ]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("below one tick"), "{err}");
    assert!(!out.contains("null"));
}

#[test]
fn a_set_value_with_a_line_break_is_refused_and_huge_values_are_not_echoed_whole() {
    let (code, _, err) = run_text(&["run", "--set", "run.d=0.5\nrun.seed=3"]);
    assert_eq!(code, 2);
    assert!(err.contains("one line"), "{err}");
    let huge = format!("model.service=\"{}\"", "x".repeat(100_000));
    let (code, _, err) = run_text(&["run", "--set", &huge]);
    assert_eq!(code, 2);
    assert!(err.len() < 400, "{} bytes of error", err.len());
    assert!(err.contains("100000 characters"), "{err}");
}

#[test]
fn bad_destinations_are_refused_before_the_run_and_nothing_is_half_written() {
    let dir = std::env::temp_dir().join(format!("pdes-lab-dest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("ok.csv");
    let (code, _, err) = run_text(&[
        "run",
        "--steps-csv",
        csv.to_str().unwrap(),
        "--out",
        "/nonexistent/dir/x.json",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--out /nonexistent/dir/x.json"), "{err}");
    assert!(!csv.exists(), "the CSV of a refused run was written");
    // a good pair writes both, and leaves no temporary files behind
    let json = dir.join("s.json");
    let (code, _, err) = run_text(&[
        "run",
        "--set",
        "run.end_time=20",
        "--set",
        "run.warmup=0",
        "--steps-csv",
        csv.to_str().unwrap(),
        "--out",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(csv.exists() && json.exists());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_closed_or_full_stdout_is_an_error_not_a_panic() {
    use std::process::Stdio;
    // the reader goes away before anything is written
    let mut child = pdes()
        .args(["presets"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    if !o.status.success() {
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("writing to stdout"), "{err}");
    }
    // a full disk
    let full = std::fs::File::create("/dev/full").unwrap();
    let o = pdes()
        .args(["run", "--set", "run.end_time=10", "--set", "run.warmup=0"])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("writing to stdout") && !err.contains("panicked"),
        "{err}"
    );
    // (a descriptor closed with `>&-` cannot be told from `> /dev/null`: Rust's runtime
    // reopens closed standard descriptors on /dev/null before main)
}

#[test]
fn headless_commands_print_nothing_about_windowing() {
    let o = pdes()
        .env_remove("NODEVICE_SELECT")
        .env_remove("XDG_RUNTIME_DIR")
        .args([
            "run",
            "--engine",
            "gpu",
            "--set",
            "run.end_time=5",
            "--set",
            "run.warmup=0",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("XDG_RUNTIME_DIR"), "{err}");
}

/// The JSON report of `bench --suite SUITE --repeat N --format json` (the run must succeed).
fn bench_json(suite: &str, repeat: &str) -> serde_json::Value {
    let o = out(&[
        "bench", "--suite", suite, "--repeat", repeat, "--format", "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// A bench row's `wall_seconds` is the median of its `n` timed runs, all listed.
fn assert_median_of_runs(r: &serde_json::Value, n: usize) {
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

#[test]
fn an_unknown_suite_lists_every_suite() {
    let (code, _, err) = run_text(&["bench", "--suite", "nope"]);
    assert_eq!(code, 2);
    for s in [
        "torus",
        "headline-short",
        "smoke",
        "diffusion",
        "diffusion-small",
        "diffusion-gpu-2048",
        "diffusion-ratio",
        "diffusion-sweep",
        "open-network",
        "open-smoke",
        "blocked",
        "blocked-halo",
    ] {
        assert!(err.contains(s), "{s}: {err}");
    }
}

/// `bench --suite diffusion-small --repeat 3`: every row but CPU event is timed three times
/// and reports the median of those runs (event runs once: a minute at 2048²).
#[test]
fn diffusion_rows_are_the_median_of_the_repeated_runs() {
    let v = bench_json("diffusion-small", "3");
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.len() >= 9, "{v}");
    for r in rows {
        let want = if r["algorithm"] == "event" { 1 } else { 3 };
        assert_median_of_runs(r, want);
    }
}

/// `bench --suite smoke --repeat 3`: the CPU rows too (sequential is every speedup's
/// denominator) are the median of three timed runs.
#[test]
fn torus_rows_cpu_included_are_the_median_of_the_repeated_runs() {
    let v = bench_json("smoke", "3");
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["engine"] == "cpu"), "{v}");
    for r in rows {
        assert_median_of_runs(r, 3);
    }
}

/// `bench --suite mmck-smoke --repeat 3` (a suite of presets): its CPU row too is the median
/// of three timed runs.
#[test]
fn preset_suite_rows_cpu_included_are_the_median_of_the_repeated_runs() {
    let v = bench_json("mmck-smoke", "3");
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["engine"] == "cpu"), "{v}");
    for r in rows {
        assert_median_of_runs(r, 3);
    }
}

/// `bench --suite sequential-parts-smoke --repeat 3`: every part of the sequential run, each
/// row the median of three timed runs of the same recorded events.
#[test]
fn sequential_parts_rows_cover_every_part_of_one_recorded_run() {
    let v = bench_json("sequential-parts-smoke", "3");
    let rows = v["rows"].as_array().unwrap();
    let parts: Vec<&str> = rows.iter().map(|r| r["part"].as_str().unwrap()).collect();
    assert_eq!(
        parts,
        [
            "sequential",
            "queue alone",
            "state alone, prefetched",
            "state alone, no prefetch",
            "draws alone"
        ],
        "{v}"
    );
    let events = rows[0]["events"].as_u64().unwrap();
    assert!(events > 1_000, "{v}");
    for r in rows {
        assert_eq!(r["events"].as_u64().unwrap(), events, "{r}");
        assert_median_of_runs(r, 3);
    }
}

/// `bench --suite blocked-smoke`: the blocked rows name their geometry and carry the
/// sequential row's statistics as their reference, which they equal (a row that differed
/// would be refused).
#[test]
fn blocked_rows_are_checked_against_sequential() {
    let o = out(&["bench", "--suite", "blocked-smoke", "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let blocked: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| r["engine"] == "gpu-blocked")
        .collect();
    assert_eq!(blocked.len(), 2, "{v}");
    for r in blocked {
        let halo = r["blocked"]["halo"].as_u64().unwrap();
        let (region, tile) = (
            r["blocked"]["region"].as_u64().unwrap(),
            r["blocked"]["tile"].as_u64().unwrap(),
        );
        assert_eq!(tile, region - 2 * halo, "{r}");
        assert_eq!(r["reference"]["events"], r["events"], "{r}");
        assert_eq!(r["reference"]["mean_sojourn"], r["mean_sojourn"], "{r}");
        assert_eq!(r["causality_errors"], 0, "{r}");
    }
}

/// The README's key list is the keys' table itself (regenerate it with
/// `PDES_WRITE_README_KEYS=1 cargo test --release --test cli readme`).
#[test]
fn the_readmes_key_list_is_the_keys_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let (begin, end) = ("<!-- keys:begin -->\n", "<!-- keys:end -->");
    let a = readme.find(begin).expect("the README marks its key list") + begin.len();
    let b = readme.find(end).expect("the README ends its key list");
    let table = pdes_lab::models::keys::markdown(&pdes_lab::models::registry::key_tables());
    if std::env::var_os("PDES_WRITE_README_KEYS").is_some() {
        std::fs::write(path, format!("{}{table}{}", &readme[..a], &readme[b..])).unwrap();
        return;
    }
    assert_eq!(
        readme[a..b],
        table,
        "README.md's key list differs from the keys' table: regenerate it (see this test's doc)"
    );
}

/// Issue 36: whatever is wrong with a value — sign, size, type, spelling — the refusal is
/// one line that names the key, the valid values in words and what was given; a duplicated
/// key is named with its line.
#[test]
fn every_refusal_says_the_key_the_range_in_words_and_what_was_given() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--set", "model.rows=-1"],
            "model.rows must be a whole number from 1 to 16,384; got -1",
        ),
        (
            &["--set", "model.rows=18446744073709551616"],
            "model.rows must be a whole number from 1 to 16,384; got 18446744073709551616",
        ),
        (
            &["--set", "model.rows=1.5"],
            "model.rows must be a whole number from 1 to 16,384; got 1.5",
        ),
        (
            &["--set", "model.service=5"],
            "model.service must be \"exponential\" or \"shifted\"; got 5",
        ),
        (
            &["--set", "run.algorithm=\"foo\""],
            "run.algorithm must be \"sequential\", \"window\" or \"interval\"; got \"foo\"",
        ),
        (
            &["--set", "run.seed=-3"],
            "run.seed must be a whole number from 0 to 9,223,372,036,854,775,807; got -3",
        ),
        (
            &["teaching-sir", "--set", "model.wrap=3"],
            "model.wrap must be true or false; got 3",
        ),
        (
            &["teaching-sir", "--set", "model.neighbour_weight=1e-300"],
            "model.neighbour_weight must be a number from 0 to 1 with at most three decimals (the state is kept in exact thousandths); got 1e-300",
        ),
        (
            &["teaching-phold", "--set", "model.lps=0"],
            "model.lps must be a whole number from 1 to 16,777,216; got 0",
        ),
        (
            &["teaching-mmck", "--set", "model.capacity=2"],
            "model.capacity must be a whole number from model.servers = 3 to 256 (those in service count); got 2",
        ),
    ];
    for (args, line) in cases {
        let mut a = vec!["run"];
        a.extend_from_slice(args);
        let (code, _, err) = run_text(&a);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.trim_end().ends_with(line), "{args:?}: {err}");
    }
    let dir = std::env::temp_dir().join(format!("pdes-dup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dup = dir.join("dup.toml");
    std::fs::write(&dup, "[model]\nkind = \"torus\"\nrows = 16\nrows = 17\n").unwrap();
    let (code, _, err) = run_text(&["run", dup.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.trim_end()
            .ends_with("malformed TOML at line 4: duplicate key (`rows`)"),
        "{err}"
    );
}

/// A run too large for the CPU names the model's own size keys (the open network has no
/// rows or cols), and `--algorithm`'s list names each algorithm once.
#[test]
fn a_size_refusal_names_the_models_keys_and_the_algorithm_list_has_no_repeats() {
    let (code, _, err) = run_text(&[
        "run",
        "teaching-open",
        "--set",
        "model.lines=16384",
        "--set",
        "model.servers_per_line=16384",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("model.lines × model.servers_per_line: 16384×16384 needs 24.000 GiB"),
        "{err}"
    );
    let (code, _, err) = run_text(&["run", "--algorithm", "foo"]);
    assert_eq!(code, 2, "{err}");
    let list = err
        .lines()
        .find(|l| l.contains("possible values"))
        .expect("clap lists the algorithms");
    let names: Vec<&str> = list
        .split_once(": ")
        .map_or("", |(_, l)| l.trim_end_matches(']'))
        .split(", ")
        .collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{list}");
    assert!(names.contains(&"flattened-cpu"), "{list}");
}

/// Issue 33: `pdes-lab gui BAD.toml` does not stop at the bad preset — it says why on
/// stderr and goes on to open the window on the default preset (here, with no display, it
/// then stops at that, in its own line).
#[test]
fn gui_with_a_bad_preset_goes_on_to_the_window_with_the_reason() {
    let dir = std::env::temp_dir().join(format!("pdes-gui-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dup = dir.join("dup.toml");
    std::fs::write(&dup, "[model]\nrows = 16\nrows = 17\n").unwrap();
    let o = pdes()
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .args(["gui", dup.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].ends_with("malformed TOML at line 3: duplicate key (`rows`)"),
        "{err}"
    );
    assert!(lines[1].contains("no display found"), "{err}");
}
