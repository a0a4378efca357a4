//! The open network's `pdes-lab bench` suites, run by the shared preset-suite runner
//! (`crate::run_preset_suite`): every group has a CPU `sequential` reference
//! measured in the same invocation, the window rows must reproduce it exactly (shifted
//! service everywhere, so that one reference serves every algorithm), and the GPU rows
//! come after `pdes-lab verify --quick` has passed on the adapter.

use crate::BenchSuite;
use crate::{BenchOptions, PresetCase, run_preset_suite};
use pdes_core::Error as CliError;

/// The open network's suites (the registry's list).
pub const SUITES: &[BenchSuite] = &[
    BenchSuite {
        name: "open-network",
        help: "the open network from paper 002's 16×16 to 1 M facilities, CPU sequential against the GPU (needs a real GPU)",
    },
    BenchSuite {
        name: "open-smoke",
        help: "three tiny open-network runs (for tests)",
    },
];

/// Sets every case shares: shifted service (window is exact with it), TI = d = 1.
macro_rules! open_case {
    ($group:expr, [$($set:expr),* $(,)?]) => {
        PresetCase {
            group: $group,
            preset: "park-fishwick-open",
            sets: &["model.service=\"shifted\"", "run.d=1", $($set),*],
        }
    };
}

/// 4096 lines × 16 servers: λ = 102.4 keeps ρ = 0.5 (λ = ρ · lines · P_exit / M).
const WIDE: [&str; 3] = [
    "model.lines=4096",
    "model.arrival_rate=102.4",
    "run.end_time=2000",
];

/// 16,384 lines × 64 servers = 1,048,576 facilities at ρ = 0.5 (λ = 409.6); T = 300 is
/// within the filling transient (the mean stay is 2,560), the same for every engine.
const MILLION: [&str; 4] = [
    "model.lines=16384",
    "model.servers_per_line=64",
    "model.arrival_rate=409.6",
    "run.end_time=300",
];

/// The algorithm and engine of a row.
const SEQUENTIAL_CPU: [&str; 2] = ["run.algorithm=\"sequential\"", "run.engine=\"cpu\""];
const WINDOW_CPU: [&str; 2] = ["run.algorithm=\"window\"", "run.engine=\"cpu\""];
const WINDOW_GPU: [&str; 2] = ["run.algorithm=\"window\"", "run.engine=\"gpu\""];
const BOUNDARY_GPU: [&str; 3] = [
    "run.algorithm=\"interval\"",
    "run.timestamps=\"boundary\"",
    "run.engine=\"gpu\"",
];
const ORIGINAL_GPU: [&str; 3] = [
    "run.algorithm=\"interval\"",
    "run.timestamps=\"original\"",
    "run.engine=\"gpu\"",
];

/// The open-smoke network: 4 × 4 at a light load, T = 200.
const SMOKE: [&str; 4] = [
    "model.lines=4",
    "model.servers_per_line=4",
    "model.arrival_rate=0.1",
    "run.end_time=200",
];

/// The cases of suite `name`: one line per row (a table, kept unwrapped to read as one).
#[rustfmt::skip]
fn cases(name: &str) -> Vec<PresetCase> {
    match name {
        "open-network" => vec![
            // paper 002's network: 16 lines × 16 servers, T = 10,000
            open_case!("16x16 T=10000", [SEQUENTIAL_CPU[0], SEQUENTIAL_CPU[1]]),
            open_case!("16x16 T=10000", [WINDOW_CPU[0], WINDOW_CPU[1]]),
            open_case!("16x16 T=10000", [WINDOW_GPU[0], WINDOW_GPU[1]]),
            open_case!("16x16 T=10000", [BOUNDARY_GPU[0], BOUNDARY_GPU[1], BOUNDARY_GPU[2]]),
            // 65,536 facilities
            open_case!("4096x16 T=2000", [WIDE[0], WIDE[1], WIDE[2], SEQUENTIAL_CPU[0], SEQUENTIAL_CPU[1]]),
            open_case!("4096x16 T=2000", [WIDE[0], WIDE[1], WIDE[2], WINDOW_GPU[0], WINDOW_GPU[1]]),
            open_case!("4096x16 T=2000", [WIDE[0], WIDE[1], WIDE[2], BOUNDARY_GPU[0], BOUNDARY_GPU[1], BOUNDARY_GPU[2]]),
            // 1,048,576 facilities: 16,384 lines × 64, λ = 409.6
            open_case!("16384x64 T=300", [MILLION[0], MILLION[1], MILLION[2], MILLION[3], SEQUENTIAL_CPU[0], SEQUENTIAL_CPU[1]]),
            open_case!("16384x64 T=300", [MILLION[0], MILLION[1], MILLION[2], MILLION[3], WINDOW_GPU[0], WINDOW_GPU[1]]),
            open_case!("16384x64 T=300", [MILLION[0], MILLION[1], MILLION[2], MILLION[3], ORIGINAL_GPU[0], ORIGINAL_GPU[1], ORIGINAL_GPU[2]]),
        ],
        "open-smoke" => vec![
            open_case!("4x4 T=200", [SMOKE[0], SMOKE[1], SMOKE[2], SMOKE[3], SEQUENTIAL_CPU[0], SEQUENTIAL_CPU[1]]),
            open_case!("4x4 T=200", [SMOKE[0], SMOKE[1], SMOKE[2], SMOKE[3], WINDOW_CPU[0], WINDOW_CPU[1]]),
            open_case!("4x4 T=200", [SMOKE[0], SMOKE[1], SMOKE[2], SMOKE[3], WINDOW_GPU[0], WINDOW_GPU[1]]),
        ],
        _ => Vec::new(),
    }
}

/// Runs one of the open network's suites (the registry's `bench`).
pub fn run(name: &str, options: &BenchOptions) -> Result<(), CliError> {
    run_preset_suite(name, &cases(name), options)
}
