//! The diffusion grid: every algorithm converges to a fine time-stepped reference as its
//! step or quantum shrinks, the grid reaches the boundary temperature when β = 0, bad
//! parameters are refused, and the GPU engines agree with their CPU twins.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::common_cfg;
use common_cfg::diffusion_config as config;
use pdes_lab::models::diffusion::config::DiffusionConfig;
use pdes_lab::models::diffusion::cpu::{CpuDiffusion, DiffusionEngine};
use pdes_lab::preset::Config;
use pdes_lab::sim::{Budget, Engine};

fn final_grid(cfg: &DiffusionConfig) -> Vec<f32> {
    let mut e = CpuDiffusion::new(cfg);
    e.advance(Budget::Finish).unwrap();
    assert!(e.finished());
    assert_eq!(e.now(), cfg.end_ticks(), "runs end exactly at the end time");
    e.temperatures().unwrap()
}

fn max_error(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (f64::from(*x) - f64::from(*y)).abs())
        .fold(0.0, f64::max)
}

const SMALL: [&str; 4] = [
    "model.rows=24",
    "model.cols=24",
    "run.end_time=10",
    "model.beta=0.5",
];

fn with(extra: &[&str]) -> DiffusionConfig {
    let mut v: Vec<&str> = SMALL.to_vec();
    v.extend_from_slice(extra);
    config(&v)
}

fn reference() -> Vec<f32> {
    // dt = 2^-12: 1/100 of the coarsest step tested, exact in ticks
    final_grid(&with(&[
        "run.algorithm=\"timestepped\"",
        "run.dt=0.000244140625",
    ]))
}

/// Max error against the reference for each of `levels` (coarse to fine, each half the
/// last) of `key` under `algorithm`.
fn errors(algorithm: &str, key: &str, levels: &[f64]) -> Vec<f64> {
    let r = reference();
    levels
        .iter()
        .map(|h| {
            let grid = final_grid(&with(&[
                &format!("run.algorithm=\"{algorithm}\""),
                &format!("{key}={h}"),
            ]));
            max_error(&grid, &r)
        })
        .collect()
}

/// First order: every halving of the step or quantum halves the error (within 1.6–2.4×).
fn assert_first_order(name: &str, e: &[f64]) {
    for w in e.windows(2) {
        let ratio = w[0] / w[1];
        assert!(
            (1.6..=2.4).contains(&ratio),
            "{name}: error went {} → {} (ratio {ratio:.2}); errors {e:?}",
            w[0],
            w[1]
        );
    }
}

#[test]
fn timestepped_converges_at_first_order_in_dt() {
    let e = errors("timestepped", "run.dt", &[0.2, 0.1, 0.05, 0.025]);
    assert_first_order("timestepped", &e);
}

/// A perturbation bound for quantized states: a cell's value never strays more than one
/// quantum Δ from the value its neighbours see, so every rate is off by at most
/// 4(αx+αy)/dx²·Δ, and since the scheme is a contraction the error at T is at most T times
/// that. Loose by design (a guarantee, not an estimate); the order test is the sharp one.
fn quantum_bound(cfg: &DiffusionConfig) -> f64 {
    let m = &cfg.model;
    4.0 * (m.alpha_x + m.alpha_y) / (m.dx * m.dx) * cfg.run.quantum * cfg.run.end_time
}

#[test]
fn hybrid_and_event_converge_at_first_order_in_the_quantum() {
    let levels = [1.0, 0.5, 0.25, 0.125];
    for alg in ["hybrid", "event"] {
        let e = errors(alg, "run.quantum", &levels);
        assert_first_order(alg, &e);
        let bound = quantum_bound(&with(&[
            &format!("run.algorithm=\"{alg}\""),
            "run.quantum=1",
        ]));
        assert!(
            e[0] < bound,
            "{alg}: error {} above the bound {bound}",
            e[0]
        );
    }
}

#[test]
fn without_heating_every_algorithm_settles_at_the_boundary_temperature() {
    // 12×12, α = 1: the slowest mode decays like exp(-t/7.3); T = 300 is 40 of those.
    for (alg, tol) in [
        ("timestepped", 1e-3),
        ("hybrid", 1e-3),
        ("event", 2.0 * 0.05),
    ] {
        let cfg = config(&[
            "model.rows=12",
            "model.cols=12",
            "model.beta=0",
            "run.end_time=300",
            "run.dt=0.2",
            "run.quantum=0.05",
            &format!("run.algorithm=\"{alg}\""),
        ]);
        let grid = final_grid(&cfg);
        let off = grid
            .iter()
            .map(|v| (f64::from(*v) - cfg.model.boundary).abs())
            .fold(0.0, f64::max);
        assert!(
            off < tol,
            "{alg}: a cell is {off} from the boundary temperature"
        );
    }
}

#[test]
fn hybrid_takes_longer_steps_as_the_grid_smooths() {
    let cfg = config(&["run.algorithm=\"hybrid\"", "run.end_time=50"]);
    let mut e = CpuDiffusion::new(&cfg);
    e.advance(Budget::Finish).unwrap();
    let log = e.step_log();
    let first = log[0].bound - log[0].t_min;
    let last = log[log.len() - 2].bound - log[log.len() - 2].t_min;
    assert!(
        last > 10 * first,
        "first step {first} ticks, late step {last}"
    );
    // and never past the stability bound
    let cap = cfg.model.max_step_ticks();
    assert!(log.iter().all(|r| r.bound - r.t_min <= u64::from(cap)));
}

#[test]
fn bad_parameters_are_refused_with_the_key_and_range() {
    let cases = [
        (
            "model.alpha_x=-1",
            "model.alpha_x must be a number from 0 to 1,000,000; got -1",
        ),
        (
            "run.quantum=0",
            "run.quantum must be a number above 0 and at most 1,000,000; got 0",
        ),
        (
            "model.rows=0",
            "model.rows must be a whole number from 1 to 16,384; got 0",
        ),
        (
            "model.dx=0",
            "model.dx must be a number above 0 and at most 1,000,000; got 0",
        ),
    ];
    for (set, message) in cases {
        assert_eq!(try_config(&[set]).unwrap_err(), message, "{set}");
    }
    let err = try_config(&["run.algorithm=\"timestepped\"", "run.dt=0.3"]).unwrap_err();
    assert!(
        err.starts_with("run.dt") && err.contains("= 0.25"),
        "unstable dt: {err}"
    );
    let err = try_config(&["run.algorithm=\"event\"", "run.engine=\"gpu\""]).unwrap_err();
    assert!(err.starts_with("run.engine"), "event on the GPU: {err}");
    let err = try_config(&["model.tokens_per_facility=2"]).unwrap_err();
    assert!(
        err.contains("unknown key for model.kind = \"diffusion\""),
        "{err}"
    );
}

fn try_config(sets: &[&str]) -> Result<Config, String> {
    let (_, text) = pdes_lab::preset::load_text("teaching-diffusion").unwrap();
    let mut table: toml::Table = text.parse().unwrap();
    for s in sets {
        pdes_lab::preset::apply_set(&mut table, s).map_err(|e| e.to_string())?;
    }
    Config::from_table(&table).map_err(|e| e.to_string())
}

#[test]
fn presets_round_trip_through_toml() {
    for name in ["teaching-diffusion", "perumalla-diffusion-750"] {
        let (origin, text) = pdes_lab::preset::load_text(name).unwrap();
        let cfg = Config::from_toml(&text, &origin).unwrap();
        assert_eq!(cfg.kind(), "diffusion");
        assert_eq!(
            Config::from_toml(&cfg.to_toml("again"), "again").unwrap(),
            cfg
        );
    }
}

#[test]
fn hybrid_step_is_the_largest_whole_tick_count_whose_product_stays_within_the_quantum() {
    use pdes_lab::models::diffusion::quantum_ticks;
    // the definition the GPU reproduces: largest n in [1, cap] with n as f32 * |rate| <= qs
    let brute =
        |qs: f32, a: f32, cap: u32| (1..=cap).rev().find(|&n| n as f32 * a <= qs).unwrap_or(1);
    let mut x = 0x1234_5678u32;
    for _ in 0..2000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let qs = 1.0 + (x % 100_000) as f32 * 7.3;
        let a = f32::from_bits(0x3c00_0000 + (x >> 9) % 0x0300_0000);
        let cap = 1 + x % 5000;
        assert_eq!(
            quantum_ticks(qs, a, cap),
            brute(qs, a, cap),
            "qs {qs} a {a} cap {cap}"
        );
        assert_eq!(quantum_ticks(qs, -a, cap), brute(qs, a, cap));
    }
    assert_eq!(quantum_ticks(5.0, 0.0, 77), 77);
    assert_eq!(quantum_ticks(1.0, 1e9, 77), 1);
}
