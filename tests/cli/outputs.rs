//! What the commands write: summaries, presets, verify, files and streams, the window's start.

use super::*;

#[test]
fn json_output_has_the_documented_fields() {
    let o = out(&cli_args(
        &["run", "--format", "json"],
        &["run.end_time=100", "run.warmup=0"],
    ));
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
    let o = out(&cli_args(
        &[
            "run",
            "--algorithm",
            "interval-boundary",
            "--format",
            "json",
            "--out",
            path.to_str().unwrap(),
        ],
        &["run.end_time=50", "run.warmup=0"],
    ));
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

#[test]
fn a_diffusion_preset_runs_every_algorithm_to_the_end_time() {
    for alg in ["timestepped", "event", "hybrid"] {
        let o = out(&cli_args(
            &[
                "run",
                "teaching-diffusion",
                "--algorithm",
                alg,
                "--format",
                "json",
            ],
            &["model.rows=20", "run.end_time=30"],
        ));
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
    let (code, _, err) = run_text(&cli_args(
        &[
            "run",
            "--steps-csv",
            csv.to_str().unwrap(),
            "--out",
            json.to_str().unwrap(),
        ],
        &["run.end_time=20", "run.warmup=0"],
    ));
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
        .args(cli_args(
            &["run", "--engine", "gpu"],
            &["run.end_time=5", "run.warmup=0"],
        ))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("XDG_RUNTIME_DIR"), "{err}");
}

/// The guide's key list (docs/src/cli.md) is the keys' table itself (regenerate it with
/// `PDES_WRITE_README_KEYS=1 cargo test --release --test cli key_list`).
#[test]
fn the_guides_key_list_is_the_keys_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/src/cli.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let (begin, end) = ("<!-- keys:begin -->\n", "<!-- keys:end -->");
    let a = readme.find(begin).expect("the guide marks its key list") + begin.len();
    let b = readme.find(end).expect("the guide ends its key list");
    let table = pdes_lab::models::keys::markdown(&pdes_lab::models::registry::key_tables());
    if std::env::var_os("PDES_WRITE_README_KEYS").is_some() {
        std::fs::write(path, format!("{}{table}{}", &readme[..a], &readme[b..])).unwrap();
        return;
    }
    assert_eq!(
        readme[a..b],
        table,
        "docs/src/cli.md's key list differs from the keys' table: regenerate it (see this test's doc)"
    );
}

/// Issue 33: `pdes-lab gui BAD.toml` does not stop at the bad preset where there is a
/// window to show the default in; without a display (issue 57 §2) it says the preset's
/// error alone, in one line, with the usage exit status.
#[test]
fn gui_with_a_bad_preset_and_no_display_says_the_preset_error_alone() {
    let dir = std::env::temp_dir().join(format!("pdes-gui-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dup = dir.join("dup.toml");
    std::fs::write(&dup, "[model]\nrows = 16\nrows = 17\n").unwrap();
    for preset in [dup.to_str().unwrap(), "no-such-preset"] {
        let o = pdes()
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .args(["gui", preset])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!err.contains("no display found"), "{err}");
    }
    let o = pdes()
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .args(["gui", dup.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.trim_end()
            .ends_with("malformed TOML at line 3: duplicate key (`rows`)"),
        "{err}"
    );
}

/// Issue 57 §1: a run's `wall_seconds` is the user's wait, from the command's start to its
/// result (the device's and the engine's set-up included); the engine's own time is
/// `engine_seconds`, and the rate is the engine's.
#[test]
fn wall_seconds_is_the_commands_time_and_engine_seconds_the_engines() {
    let o = out(&[
        "run",
        "teaching-16x16",
        "--set",
        "run.end_time=300",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let (wall, engine) = (
        v["wall_seconds"].as_f64().unwrap(),
        v["engine_seconds"].as_f64().unwrap(),
    );
    assert!(
        engine > 0.0 && wall > engine,
        "wall {wall}, engine {engine}"
    );
    let rate = v["events_per_second"].as_f64().unwrap();
    let events = v["events"].as_f64().unwrap();
    assert!(
        (rate - events / engine).abs() <= 1e-9 * rate,
        "{rate} vs {events} / {engine}"
    );
}
