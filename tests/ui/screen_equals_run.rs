//! What the window shows at a run's end is what `pdes-lab run` prints (issue 56 §1): for
//! every model, on the CPU and on the GPU, each monitor that names a summary field equals
//! that field exactly — the monitor is the panel's own, computed from the session's last
//! plot sample (which the series export writes), the field from the engine `run` builds.

use super::*;
use pdes_lab::engines::Simulation;
use pdes_lab::kit::session::Session;
use pdes_lab::sim::Budget;

/// Runs `preset` with `sets` as the window does (a session with the model's panel, advanced
/// in a few budgets with a sample after each) and as `run` does, on `engine`, and asserts
/// that each monitor of `pairs` (monitor label, summary field) equals its field.
fn assert_screen_equals_run(preset: &str, sets: &[&str], engine: &str, pairs: &[(&str, &str)]) {
    let engine_set = format!("run.engine={engine}");
    let all: Vec<&str> = sets.iter().copied().chain([engine_set.as_str()]).collect();
    let config = pdes_lab::preset::config_with(preset, &all).unwrap();
    let gpu = (engine == "gpu").then(|| pdes_lab::gpu::Gpu::shared().unwrap());
    let mut session = Session::new(config.clone(), pdes_lab::panels::of(&config), gpu).unwrap();
    assert_eq!(
        session.runs_on(),
        engine,
        "{preset}: the session runs elsewhere"
    );
    // a few frames' worth of steps, then the rest: the monitors see a run that ended
    for _ in 0..3 {
        session.advance(Budget::Steps(7)).unwrap();
        session.sample().unwrap();
    }
    session.advance(Budget::Finish).unwrap();
    while !session.settle().unwrap() {}
    session.sample().unwrap();
    let monitors = (session.panel.monitors)(&session);

    let mut sim = Simulation::new(config).unwrap();
    sim.engine.advance(Budget::Finish).unwrap();
    let report = sim.engine.report().unwrap();
    for (label, field) in pairs {
        let Some(m) = monitors.iter().find(|m| m.label == *label) else {
            panic!("{preset} ({engine}): no monitor {label:?}");
        };
        let Some(v) = report
            .fields
            .get(*field)
            .and_then(serde_json::Value::as_f64)
        else {
            panic!("{preset} ({engine}): no summary field {field:?}");
        };
        assert_eq!(
            m.value, v,
            "{preset} ({engine}): the monitor {label:?} shows {} where run's {field} is {v}",
            m.value
        );
    }
}

/// Both engines where the model has a GPU engine (the GPU ones skip without an adapter).
fn on_both(preset: &str, sets: &[&str], pairs: &[(&str, &str)]) {
    assert_screen_equals_run(preset, sets, "cpu", pairs);
    if gpu_available() {
        assert_screen_equals_run(preset, sets, "gpu", pairs);
    }
}

#[test]
fn the_torus_monitors_equal_run_at_the_end() {
    // a short run after a warm-up: services in progress are a visible part of the busy time
    // (the issue's 0.4788 on screen against run's 0.5216)
    on_both(
        "teaching-16x16",
        &["run.end_time=300", "run.d=0.37"],
        &[
            ("utilization", "utilization"),
            ("mean sojourn", "mean_sojourn"),
            ("causality errors", "causality_errors"),
        ],
    );
}

/// Paper 002's open network (tandem lines): tokens created and destroyed, a warm-up, the
/// window on shifted service, on both engines.
#[test]
fn the_open_network_monitors_equal_run_at_the_end() {
    on_both(
        "teaching-open",
        &[
            "run.algorithm=window",
            "model.shape={ kind = \"tandem\", lines = 8, servers_per_line = 12, exit_probability = 0.5, arrival_rate = 1.0, service = { kind = \"shifted\", shift = 1.0, mean = 2.0 } }",
            "run.end_time=150",
            "run.warmup=40",
        ],
        &[
            ("utilization", "utilization"),
            ("time per visit", "mean_sojourn"),
            ("mean tokens in the network", "mean_tokens_in_system"),
        ],
    );
}

#[test]
fn the_mmck_monitors_equal_run_at_the_end() {
    on_both(
        "teaching-mmck",
        &["run.customers=500", "run.replications=64"],
        &[
            ("L̂ (grand mean)", "mean_number_in_system"),
            ("blocking", "blocking_probability"),
            ("utilization", "utilization"),
        ],
    );
}

#[test]
fn the_diffusion_monitors_equal_run_at_the_end() {
    on_both(
        "teaching-diffusion",
        &["run.end_time=20"],
        &[
            ("mean temperature", "mean_temperature"),
            ("lowest", "min_temperature"),
            ("highest", "max_temperature"),
        ],
    );
}

#[test]
fn the_sir_monitors_equal_run_at_the_end() {
    on_both(
        "teaching-sir",
        &["run.end_time=30"],
        &[
            ("mean s", "mean_s"),
            ("mean i", "mean_i"),
            ("mean r", "mean_r"),
        ],
    );
}

#[test]
fn the_devs_benchmark_monitors_equal_run_at_the_end() {
    on_both(
        "teaching-devs-benchmark",
        &["run.end_time=20"],
        &[("cells", "cells")],
    );
}

#[test]
fn the_phold_monitors_equal_run_at_the_end() {
    on_both(
        "teaching-phold",
        &["run.end_time=20"],
        &[
            ("events per LP per unit time", "event_rate_per_lp"),
            ("events", "events"),
        ],
    );
}

/// The user's own network: a warm-up, multi-server stations, the window.
#[test]
fn the_network_monitors_equal_run_at_the_end() {
    on_both(
        "clinic",
        &["run.end_time=400", "run.warmup=50"],
        &[
            ("utilization", "utilization"),
            ("mean tokens in the network", "mean_tokens_in_system"),
            ("time per visit", "mean_sojourn"),
        ],
    );
}

#[test]
fn a_gpu_run_without_a_gpu_says_it_ran_on_the_cpu() {
    // a page without WebGPU opens a run.engine=gpu link on the CPU: its summary must say so
    for preset in ["teaching-16x16", "teaching-sir", "teaching-mmck"] {
        let config = pdes_lab::preset::config_with(preset, &["run.engine=gpu"]).unwrap();
        let mut session =
            Session::new(config.clone(), pdes_lab::panels::of(&config), None).unwrap();
        assert_eq!(session.runs_on(), "cpu");
        assert!(session.note.is_some(), "{preset}: no reason given");
        session.advance(Budget::Steps(3)).unwrap();
        let report = session.engine.report().unwrap();
        assert_eq!(
            report
                .fields
                .get("engine")
                .and_then(serde_json::Value::as_str),
            Some("cpu"),
            "{preset}"
        );
    }
}
