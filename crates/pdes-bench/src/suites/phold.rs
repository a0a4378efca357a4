//! PHOLD's `pdes-lab bench` suites, run by the shared preset-suite runner. `phold`: the
//! issue's grid (2^20 LPs; population 1 and 16; remote 1.0 and 0.1; lookahead 0.1 and 1;
//! mean 1) with the window on the GPU, and one group where sequential on the CPU is the
//! reference every other row must equal field for field.

use crate::BenchSuite;
use crate::{BenchOptions, PresetCase, run_preset_suite};
use pdes_core::Error as CliError;

/// The suites (the registry's list).
pub const SUITES: &[BenchSuite] = &[
    BenchSuite {
        name: "phold",
        help: "PHOLD, 2^20 LPs: population 1 and 16, remote 1.0 and 0.1, lookahead 0.1 and 1, mean 1, window on the GPU to T = 100, and the peers' configuration to T = 1000 (the steady state; needs a real GPU); sequential on the CPU against the GPU at T = 10",
    },
    BenchSuite {
        name: "phold-smoke",
        help: "a tiny PHOLD: sequential, the window's CPU twin and the GPU (for tests)",
    },
];

fn leak(s: String) -> &'static str {
    // a suite runs once per process: its few dozen labels live until the process ends
    Box::leak(s.into_boxed_str())
}

fn case(group: &'static str, sets: Vec<String>) -> PresetCase {
    PresetCase {
        group,
        preset: "phold",
        sets: Box::leak(
            sets.into_iter()
                .map(leak)
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        ),
    }
}

fn cases(name: &str) -> Vec<PresetCase> {
    let run = |alg: &str, engine: &str| {
        vec![
            format!("run.algorithm=\"{alg}\""),
            format!("run.engine=\"{engine}\""),
        ]
    };
    let mut v = Vec::new();
    if name == "phold-smoke" {
        for (alg, engine) in [("sequential", "cpu"), ("window", "cpu"), ("window", "gpu")] {
            let mut s = vec!["model.lps=300".to_string(), "run.end_time=20".to_string()];
            s.extend(run(alg, engine));
            v.push(case("phold 300 T=20", s));
        }
        return v;
    }
    // the peer's configuration against sequential, at a length sequential takes seconds for
    for (alg, engine) in [("sequential", "cpu"), ("window", "gpu")] {
        let mut s = vec!["run.end_time=10".to_string()];
        s.extend(run(alg, engine));
        v.push(case("2^20 pop 1 r 1 la 0.1 T=10", s));
    }
    for population in [1, 16] {
        for remote in [1.0, 0.1] {
            for lookahead in [0.1, 1.0] {
                let g = leak(format!(
                    "2^20 pop {population} r {remote} la {lookahead} T=100"
                ));
                let mut s = vec![
                    format!("model.population={population}"),
                    format!("model.remote={remote}"),
                    format!("model.lookahead={lookahead}"),
                    "run.end_time=100".to_string(),
                ];
                s.extend(run("window", "gpu"));
                v.push(case(g, s));
            }
        }
    }
    // the peers' configuration for ten times as long (10,000 steps, a few tenths of a
    // second): the GPU's clock governor ramps up over the short rows' runs and drops during
    // each run's set-up (bench/NOTES.md, "PHOLD and the GPU's clocks"); this row runs long
    // enough to measure the steady state
    let mut s = vec!["run.end_time=1000".to_string()];
    s.extend(run("window", "gpu"));
    v.push(case("2^20 pop 1 r 1 la 0.1 T=1000", s));
    v
}

/// Runs suite `name`.
pub fn run(name: &str, options: &BenchOptions) -> Result<(), CliError> {
    run_preset_suite(name, &cases(name), options)
}
