//! The DEVS `pdes-lab bench` suites, run by the shared preset-suite runner: per model and
//! size, the sequential PDEVS simulator (the reference), the flattened coordinator's CPU
//! twin and the flattened GPU engine; every row must equal its group's reference field for
//! field (all three are exact), after `pdes-lab verify --quick` has passed.

use crate::cli::CliError;
use crate::cli::bench::{BenchOptions, PresetCase, run_preset_suite};
use crate::models::BenchSuite;

/// The DEVS suites (the registry's list).
pub const SUITES: &[BenchSuite] = &[
    BenchSuite {
        name: "devs",
        help: "paper 004's cell spaces: the benchmark and SIR at L = 317 … 1000, T = 1000, and SIR 320×320 (the peer's case); sequential PDEVS (L ≤ 548), flattened on the CPU and on the GPU (needs a real GPU)",
    },
    BenchSuite {
        name: "devs-smoke",
        help: "a tiny SIR and benchmark grid, sequential, flattened CPU and GPU (for tests)",
    },
];

/// The paper's sides (Figs. 9–11).
pub const PAPER_SIDES: [u32; 10] = [317, 448, 548, 633, 708, 775, 837, 895, 949, 1000];
/// Largest side the suite runs the sequential simulator at (it takes minutes beyond).
const SEQUENTIAL_UP_TO: u32 = 548;

fn leak(s: String) -> &'static str {
    // a suite runs once per process: its few dozen labels live until the process ends
    Box::leak(s.into_boxed_str())
}

/// The three rows (or two, without sequential) of one model at one size.
fn group(preset: &'static str, side: u32, end: u32, sequential: bool) -> Vec<PresetCase> {
    let kind = if preset.contains("sir") {
        "sir"
    } else {
        "benchmark"
    };
    let g = leak(format!("{kind} {side}² T={end}"));
    let size = [
        leak(format!("model.rows={side}")),
        leak(format!("model.cols={side}")),
        leak(format!("run.end_time={end}")),
    ];
    let sets = |alg: &str, engine: &str| -> &'static [&'static str] {
        Box::leak(
            vec![
                size[0],
                size[1],
                size[2],
                leak(format!("run.algorithm=\"{alg}\"")),
                leak(format!("run.engine=\"{engine}\"")),
            ]
            .into_boxed_slice(),
        )
    };
    let mut v = Vec::new();
    if sequential {
        v.push(PresetCase {
            group: g,
            preset,
            sets: sets("sequential", "cpu"),
        });
    }
    v.push(PresetCase {
        group: g,
        preset,
        sets: sets("flattened", "cpu"),
    });
    v.push(PresetCase {
        group: g,
        preset,
        sets: sets("flattened", "gpu"),
    });
    v
}

/// The cases of suite `name`.
fn cases(name: &str) -> Vec<PresetCase> {
    let mut v = Vec::new();
    if name == "devs" {
        v.extend(group("trabes-sir", 320, 1000, true));
        for preset in ["trabes-benchmark", "trabes-sir"] {
            for side in PAPER_SIDES {
                v.extend(group(preset, side, 1000, side <= SEQUENTIAL_UP_TO));
            }
        }
    } else {
        v.extend(group("trabes-sir", 37, 50, true));
        v.extend(group("trabes-benchmark", 37, 50, true));
    }
    v
}

/// Runs suite `name`.
pub fn run(name: &str, options: &BenchOptions) -> Result<(), CliError> {
    run_preset_suite(name, &cases(name), options)
}
