//! The DEVS `pdes-lab bench` suites, run by the shared preset-suite runner: per model and
//! size, the sequential PDEVS simulator (the reference), the flattened coordinator's CPU
//! twin and the flattened GPU engine; every row must equal its group's reference field for
//! field (all three are exact), after `pdes-lab verify --quick` has passed.

use crate::BenchSuite;
use crate::{BenchOptions, PresetCase, run_preset_suite};
use pdes_core::Error as CliError;

/// The DEVS suites (the registry's list).
pub const SUITES: &[BenchSuite] = &[
    BenchSuite {
        name: "devs",
        help: "paper 004's cell spaces: the benchmark and SIR at L = 317 … 1000, T = 1000, and SIR 320×320 (the peer's case); sequential PDEVS (L ≤ 548), flattened on the CPU and on the GPU (needs a real GPU)",
    },
    BenchSuite {
        name: "devs-work",
        help: "where the GPU starts to win: the benchmark at 16², 64² and 256² (T = 1000) with model.work = 0, 100 and 1000 extra arithmetic rounds per transition; sequential, flattened CPU and GPU",
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

/// The three rows (or two, without sequential) of one model at one size (`work`: the
/// benchmark's extra arithmetic, None for SIR).
fn group(
    preset: &'static str,
    side: u32,
    end: u32,
    sequential: bool,
    work: Option<u32>,
) -> Vec<PresetCase> {
    let kind = if preset.contains("sir") {
        "sir"
    } else {
        "benchmark"
    };
    let g = leak(match work {
        Some(w) if w > 0 => format!("{kind} {side}² T={end} work={w}"),
        _ => format!("{kind} {side}² T={end}"),
    });
    let size = [
        leak(format!("model.rows={side}")),
        leak(format!("model.cols={side}")),
        leak(format!("run.end_time={end}")),
        leak(work.map_or(String::new(), |w| format!("model.work={w}"))),
    ];
    let sets = |alg: &str, engine: &str| -> &'static [&'static str] {
        Box::leak(
            size.iter()
                .copied()
                .filter(|s| !s.is_empty())
                .chain([
                    leak(format!("run.algorithm=\"{alg}\"")),
                    leak(format!("run.engine=\"{engine}\"")),
                ])
                .collect::<Vec<_>>()
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
    match name {
        "devs" => {
            v.extend(group("trabes-sir", 320, 1000, true, None));
            for (preset, work) in [("trabes-benchmark", Some(0)), ("trabes-sir", None)] {
                for side in PAPER_SIDES {
                    v.extend(group(preset, side, 1000, side <= SEQUENTIAL_UP_TO, work));
                }
            }
        }
        "devs-work" => {
            for side in [16, 64, 256] {
                for work in [0, 100, 1000] {
                    v.extend(group("trabes-benchmark", side, 1000, true, Some(work)));
                }
            }
        }
        _ => {
            v.extend(group("trabes-sir", 37, 50, true, None));
            v.extend(group("trabes-benchmark", 37, 50, true, Some(3)));
        }
    }
    v
}

/// Runs suite `name`.
pub fn run(name: &str, options: &BenchOptions) -> Result<(), CliError> {
    run_preset_suite(name, &cases(name), options)
}
