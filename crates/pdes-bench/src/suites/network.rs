//! The network's `pdes-lab bench` suites (your own network: the general engine), run by the
//! shared preset-suite runner (`crate::run_preset_suite`). The `network` suite measures the
//! random network of 10⁶ stations (degree 4) against the torus engine at the same size and
//! law — the networks issue's "within 2× of the torus" — after a group at T = 20 that holds
//! the GPU window to the CPU's sequential run field for field at that size. The
//! `open-network` suite runs paper 002's open network (tandem lines) from 16 × 16 to a
//! million stations, CPU sequential against the GPU.

use crate::BenchSuite;
use crate::{BenchOptions, PresetCase, run_preset_suite};
use pdes_core::Error as CliError;

/// The network's suites (the registry's list).
pub const SUITES: &[BenchSuite] = &[
    BenchSuite {
        name: "network",
        help: "the random network of 10⁶ stations (degree 4; routes in drawn independently, and regular) against the torus engine at the same size, after the GPU window is held to sequential at that size (needs a real GPU)",
    },
    BenchSuite {
        name: "open-network",
        help: "paper 002's open network (tandem lines) from 16×16 to 1 M stations, CPU sequential against the GPU (needs a real GPU)",
    },
    BenchSuite {
        name: "network-smoke",
        help: "a random network of 4,096 stations, sequential and window on the CPU and the GPU (for tests)",
    },
];

/// The random shape of `n` stations, degree 4, one token each, shift 0.5 + Exp(0.5); with
/// `regular = true` every station the destination of exactly 4 routes.
macro_rules! random_shape {
    ($n:literal, $regular:literal) => {
        concat!(
            "model.shape={ kind = \"random\", stations = ",
            $n,
            ", degree = 4, tokens_per_station = 1, service = { kind = \"shifted\", shift = 0.5, mean = 1.0 }, regular = ",
            $regular,
            " }"
        )
    };
}
const RANDOM: &str = random_shape!("1000000", "false");
const REGULAR: &str = random_shape!("1000000", "true");
const SMOKE: &str = random_shape!("4096", "false");

/// Paper 002's open network as a tandem shape: `lines` × `per_line` stations at ρ = 0.5
/// (λ = ρ · lines · P_exit / M), shifted service 1 + Exp(4) (the window exact at d = 1).
macro_rules! tandem_shape {
    ($lines:literal, $per_line:literal, $rate:literal) => {
        concat!(
            "model.shape={ kind = \"tandem\", lines = ",
            $lines,
            ", servers_per_line = ",
            $per_line,
            ", exit_probability = 0.25, arrival_rate = ",
            $rate,
            ", service = { kind = \"shifted\", shift = 1.0, mean = 5.0 } }"
        )
    };
}
/// Paper 002's 16 × 16.
const PAPER: &str = tandem_shape!("16", "16", "0.4");
/// 65,536 stations.
const WIDE: &str = tandem_shape!("4096", "16", "102.4");
/// 1,048,576 stations; T = 300 is within the filling transient (the mean stay is 2,560).
const MILLION: &str = tandem_shape!("16384", "64", "409.6");

/// The algorithm and engine of a row (d = 0.5 everywhere for the random network: the
/// preset's; d = 1 for the open network).
const SEQUENTIAL_CPU: [&str; 2] = ["run.algorithm=\"sequential\"", "run.engine=\"cpu\""];
const WINDOW_CPU: [&str; 2] = ["run.algorithm=\"window\"", "run.engine=\"cpu\""];
const WINDOW_GPU: [&str; 2] = ["run.algorithm=\"window\"", "run.engine=\"gpu\""];
const BOUNDARY_GPU: [&str; 3] = [
    "run.algorithm=\"interval\"",
    "run.timestamps=\"boundary\"",
    "run.engine=\"gpu\"",
];

/// The cases of suite `name`: one line per row (a table, kept unwrapped to read as one).
#[rustfmt::skip]
fn cases(name: &str) -> Vec<PresetCase> {
    let case = |group, preset, sets| PresetCase { group, preset, sets };
    match name {
        "network" => vec![
            case("random 1e6 T=20", "random-network", &[RANDOM, "run.end_time=20", SEQUENTIAL_CPU[0], SEQUENTIAL_CPU[1]]),
            case("random 1e6 T=20", "random-network", &[RANDOM, "run.end_time=20", WINDOW_GPU[0], WINDOW_GPU[1]]),
            case("random 1e6 T=2000", "random-network", &[RANDOM, "run.end_time=2000", WINDOW_GPU[0], WINDOW_GPU[1]]),
            case("regular 1e6 T=2000", "random-network", &[REGULAR, "run.end_time=2000", WINDOW_GPU[0], WINDOW_GPU[1]]),
            // the torus engine at the same size, law and d (the yardstick)
            case("torus engine 1e6 T=2000", "sang2019-torus", &["model.rows=1000", "model.cols=1000", "model.mean_service=1", "run.d=0.5", "run.end_time=2000", WINDOW_GPU[0], WINDOW_GPU[1]]),
        ],
        "open-network" => vec![
            case("16x16 T=10000", "park-fishwick-open", &[PAPER, SEQUENTIAL_CPU[0], SEQUENTIAL_CPU[1]]),
            case("16x16 T=10000", "park-fishwick-open", &[PAPER, WINDOW_CPU[0], WINDOW_CPU[1]]),
            case("16x16 T=10000", "park-fishwick-open", &[PAPER, WINDOW_GPU[0], WINDOW_GPU[1]]),
            case("16x16 T=10000", "park-fishwick-open", &[PAPER, BOUNDARY_GPU[0], BOUNDARY_GPU[1], BOUNDARY_GPU[2]]),
            case("4096x16 T=2000", "park-fishwick-open", &[WIDE, "run.end_time=2000", SEQUENTIAL_CPU[0], SEQUENTIAL_CPU[1]]),
            case("4096x16 T=2000", "park-fishwick-open", &[WIDE, "run.end_time=2000", WINDOW_GPU[0], WINDOW_GPU[1]]),
            case("4096x16 T=2000", "park-fishwick-open", &[WIDE, "run.end_time=2000", BOUNDARY_GPU[0], BOUNDARY_GPU[1], BOUNDARY_GPU[2]]),
            case("16384x64 T=300", "park-fishwick-open", &[MILLION, "run.end_time=300", SEQUENTIAL_CPU[0], SEQUENTIAL_CPU[1]]),
            case("16384x64 T=300", "park-fishwick-open", &[MILLION, "run.end_time=300", WINDOW_GPU[0], WINDOW_GPU[1]]),
            case("16384x64 T=300", "park-fishwick-open", &[MILLION, "run.end_time=300", BOUNDARY_GPU[0], BOUNDARY_GPU[1], BOUNDARY_GPU[2]]),
        ],
        "network-smoke" => vec![
            case("random 4096 T=100", "random-network", &[SMOKE, "run.end_time=100", SEQUENTIAL_CPU[0], SEQUENTIAL_CPU[1]]),
            case("random 4096 T=100", "random-network", &[SMOKE, "run.end_time=100", WINDOW_CPU[0], WINDOW_CPU[1]]),
            case("random 4096 T=100", "random-network", &[SMOKE, "run.end_time=100", WINDOW_GPU[0], WINDOW_GPU[1]]),
        ],
        _ => Vec::new(),
    }
}

/// Runs one of the network's suites (the registry's `bench`).
pub fn run(name: &str, options: &BenchOptions) -> Result<(), CliError> {
    run_preset_suite(name, &cases(name), options)
}
