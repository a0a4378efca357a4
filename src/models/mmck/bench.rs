//! The replications' `pdes-lab bench` suites, run by the shared preset-suite runner: each
//! group's CPU row (every core) is the reference and its GPU row must equal it field for
//! field (the engines are exact twins), after `pdes-lab verify --quick` has passed.

use crate::cli::CliError;
use crate::cli::bench::{BenchOptions, PresetCase, run_preset_suite};
use crate::models::BenchSuite;

/// The replications' suites (the registry's list).
pub const SUITES: &[BenchSuite] = &[
    BenchSuite {
        name: "mmck",
        help: "paper 003's M/M/c/k replications (7,168 × 50,000 customers) and 8× as many, CPU (all cores) against the GPU (needs a real GPU)",
    },
    BenchSuite {
        name: "mmck-smoke",
        help: "a tiny M/M/c/k replication run on the CPU and the GPU (for tests)",
    },
];

/// The cases of suite `name`.
fn cases(name: &str) -> Vec<PresetCase> {
    let case = |group, sets| PresetCase {
        group,
        preset: "cheng2014-mmck",
        sets,
    };
    match name {
        "mmck" => vec![
            case("7168 x 50000", &["run.engine=\"cpu\""]),
            case("7168 x 50000", &["run.engine=\"gpu\""]),
            case(
                "57344 x 50000",
                &["run.replications=57344", "run.engine=\"cpu\""],
            ),
            case(
                "57344 x 50000",
                &["run.replications=57344", "run.engine=\"gpu\""],
            ),
        ],
        _ => vec![
            case(
                "100 x 500",
                &[
                    "run.replications=100",
                    "run.customers=500",
                    "run.engine=\"cpu\"",
                ],
            ),
            case(
                "100 x 500",
                &[
                    "run.replications=100",
                    "run.customers=500",
                    "run.engine=\"gpu\"",
                ],
            ),
        ],
    }
}

/// Runs suite `name`.
pub fn run(name: &str, options: &BenchOptions) -> Result<(), CliError> {
    run_preset_suite(name, &cases(name), options)
}
