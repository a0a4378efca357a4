//! `pdes-lab bench`: suites, medians of repeated runs, rows checked against their references.

use super::*;

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
        "network",
        "network-smoke",
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
