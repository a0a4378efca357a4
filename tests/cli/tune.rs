//! `pdes-lab tune` (issue 55 §5): the largest d within the tolerance, with the exact value or
//! sequential runs as the reference; refusals in one line.

use super::*;

fn advice(args: &[&str]) -> serde_json::Value {
    let (code, stdout, stderr) = run_text(args);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

/// The clinic's window is exact: every d up to the shortest service (0.5) has no bias
/// against sequential runs of the same seeds, so the largest is recommended.
#[test]
fn the_clinics_window_is_exact_up_to_its_shortest_service() {
    let a = advice(&cli_args(
        &[
            "tune", "clinic", "--seeds", "3", "--points", "3", "--format", "json",
        ],
        &["run.end_time=2000", "run.warmup=200"],
    ));
    assert_eq!(a["reference"], "sequential");
    assert!(
        (a["largest_valid_d"].as_f64().unwrap() - 0.5).abs() < 1e-6,
        "{a}"
    );
    assert!(
        (a["recommended_d"].as_f64().unwrap() - 0.5).abs() < 1e-6,
        "{a}"
    );
    for p in a["points"].as_array().unwrap() {
        assert_eq!(p["bias"].as_f64(), Some(0.0), "{p}");
    }
    let gains: Vec<f64> = a["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["events_per_step"].as_f64().unwrap())
        .collect();
    assert!(
        gains[2] > gains[0],
        "a wider window runs more events a step: {gains:?}"
    );
}

/// The torus's shifted service changes the model with d: the bias against the exponential
/// network's exact value grows, and a loose tolerance recommends a d below the largest.
#[test]
fn the_torus_advice_stops_where_the_bias_leaves_the_tolerance() {
    let a = advice(&[
        "tune",
        "teaching-16x16",
        "--set",
        "run.end_time=3000",
        "--seeds",
        "4",
        "--points",
        "4",
        "--tolerance",
        "5%",
        "--format",
        "json",
    ]);
    assert_eq!(a["reference"], "exact");
    let points = a["points"].as_array().unwrap();
    let last = points.last().unwrap();
    assert_eq!(last["within"], false, "{last}");
    let d = a["recommended_d"].as_f64().expect("a recommendation at 5%");
    assert!(d < last["d"].as_f64().unwrap());
    assert!(
        a["advice"].as_str().unwrap().contains("within 5% of exact"),
        "{a}"
    );
}

#[test]
fn tune_refuses_what_it_cannot_tune_in_one_line() {
    for (args, says) in [
        (vec!["tune", "clinic-exponential"], "sequential"),
        (vec!["tune", "clinic", "--metric", "banana"], "utilization"),
        (vec!["tune", "clinic", "--tolerance", "150%"], "below 100%"),
    ] {
        let (code, _, stderr) = run_text(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

/// `--plot` draws the metric against d into the file named, a PNG.
#[test]
fn tune_draws_its_figure() {
    let path = std::env::temp_dir().join(format!("pdes-tune-{}.png", std::process::id()));
    let p = path.to_str().unwrap();
    let (code, _, stderr) = run_text(&cli_args(
        &[
            "tune", "clinic", "--seeds", "2", "--points", "2", "--plot", p,
        ],
        &["run.end_time=500", "run.warmup=50"],
    ));
    assert_eq!(code, 0, "{stderr}");
    let bytes = std::fs::read(&path).unwrap();
    assert!(bytes.starts_with(b"\x89PNG"), "not a PNG");
    let _ = std::fs::remove_file(&path);
}
