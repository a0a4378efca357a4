//! Bad input: one line that names the key (or file) and what it takes, exit 2, nothing written.

use super::refused;
use super::*;

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
            &cli_args(
                &["--algorithm", "sequential"],
                &["model.rows=16384", "model.cols=16384"],
            ),
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
fn a_path_that_names_a_missing_file_is_an_error_not_the_built_in_of_that_name() {
    refused(
        &["run", "/nonexistent/dir/sang2019-causality.toml"],
        "no such file",
    );
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
    let (code, _, err) = run_text(&cli_args(
        &["run", "teaching-diffusion"],
        &[
            "run.algorithm=\"timestepped\"",
            "model.alpha_x=1.7",
            "run.dt=0.2",
        ],
    ));
    assert_eq!(code, 2, "{err}");
    // "… = BOUND (the explicit scheme is unstable above it); got 0.2"
    let bound = err
        .split(" = ")
        .find_map(|part| {
            let number = part.split_whitespace().next()?;
            number.parse::<f64>().ok().map(|_| number)
        })
        .expect("the refusal prints the bound");
    let (code, _, err) = run_text(&cli_args(
        &["run", "teaching-diffusion"],
        &[
            "run.algorithm=\"timestepped\"",
            "model.alpha_x=1.7",
            &format!("run.dt={bound}"),
            "run.end_time=1",
        ],
    ));
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
    let (code, out, err) = run_text(&cli_args(
        &["run", "teaching-diffusion", "--format", "json"],
        &[
            "model.rows=8",
            "model.cols=8",
            "model.alpha_x=1e6",
            "model.alpha_y=1e6",
            "run.end_time=0.001",
        ],
    ));
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

/// A run too large for the CPU names the model's own size keys (the torus's three, its
/// tokens included), and `--algorithm`'s list names each algorithm once.
#[test]
fn a_size_refusal_names_the_models_keys_and_the_algorithm_list_has_no_repeats() {
    refused(
        &cli_args(
            &["run", "teaching-16x16"],
            &["model.rows=16384", "model.cols=16384"],
        ),
        "model.rows × model.cols × model.tokens_per_facility: 16384×16384×1 needs 30.000 GiB",
    );
    let (code, _, err) = run_text(&["run", "--algorithm", "foo"]);
    assert_eq!(code, 2, "{err}");
    // one line that lists the algorithms (clap's own error was five lines)
    assert_eq!(err.lines().count(), 1, "{err}");
    let list = err
        .split_once("possible values: ")
        .map(|(_, l)| l)
        .expect("the algorithms are listed");
    let list = list
        .split(" (")
        .next()
        .unwrap_or_default()
        .trim_end_matches(']');
    let names: Vec<&str> = list.split(", ").collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{list}");
    assert!(names.contains(&"flattened-cpu"), "{list}");
}

/// `pdes-lab fit` on `text` written to a file: (status, stderr).
fn fit_on(name: &str, text: &str) -> (Option<i32>, String) {
    let dir = std::env::temp_dir().join(format!("pdes-fit-echo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(name);
    std::fs::write(&f, text).unwrap();
    let o = pdes().args(["fit", f.to_str().unwrap()]).output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn fit_echoes_a_huge_header_or_a_broken_cell_in_one_short_line() {
    // a header of 200,000 columns (the probe's 2 million made an 18.9 MB error line)
    let header: Vec<String> = (0..200_000).map(|i| format!("c{i}")).collect();
    let row: Vec<&str> = vec!["1"; 200_000];
    let (code, err) = fit_on(
        "wide.csv",
        &format!("{}\n{}\n", header.join(","), row.join(",")),
    );
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.len() < 1000, "{} bytes", err.len());
    assert!(
        err.contains("200,000 columns") && err.contains("(200,000 in all)"),
        "{err}"
    );
    // a cell holding a line break stays on one line, its break written as \n
    let (code, err) = fit_on("cell.csv", "x\n1\n\"2\n3\"\n4\n");
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("2\\n3"), "{err}");
}

#[test]
fn a_command_line_clap_refuses_is_one_line_with_where_the_options_are_listed() {
    // the probe's usage errors (issue 57 §2), each four or five lines before
    let cases: &[&[&str]] = &[
        &["run", "--out", ""],
        &["frobnicate"],
        &["run", "--bogus"],
        &["run", "--format", "xml"],
        &["run", "--engine", "tpu"],
        &["sweep", "--seeds", "many"],
        &["bench", "--repeat", "0"],
        &["fit"],
        &["verify", "--quick=yes"],
        &["sweep-merge"],
        &["run", "a", "b"],
        &["--bogus"],
    ];
    for args in cases {
        let (code, _, err) = run_text(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("pdes-lab: "), "{args:?}: {err}");
        assert!(err.contains("--help` lists"), "{args:?}: {err}");
    }
    // help is still help
    let (code, out, _) = run_text(&["run", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("Usage: pdes-lab run"), "{out}");
}
