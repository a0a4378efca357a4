//! The user's own network (issue 55): queueing networks of any shape from a file — stations
//! with c FCFS servers, any of five service laws, external Poisson arrivals and/or an initial
//! population, routes with probabilities — simulated exactly by `sequential` and `window`
//! and approximately by `interval`, beside their exact values (Jackson's product form for
//! open networks, mean value analysis for closed ones) where the service is exponential.
//!
//! The folder: the file's keys and the run's checks (`config.rs`), the validated network and
//! its refusals (`spec.rs`), service laws (`service.rs`), generated shapes (`shapes.rs`),
//! routes as alias tables and the Philox words (`routes.rs`), the state and its events
//! (`state.rs`), the simulators (`engines.rs`), the statistics (`measures.rs`), the exact
//! values (`analytic.rs`), the engines behind the common interfaces and the summary
//! (`engine.rs`), and the heatmap's layout (`view.rs`).
//!
//! Randomness is a pure function of the seed and of *which* token it is (its id: the
//! population's tokens 0, 1, …, then the arrivals by source and number), never of a pool
//! slot or of the order in which a step applies its events, so every engine draws the same
//! service times and routes. The GPU engine (`gpu/`, `shaders/`) runs window and interval
//! from the twin's state at time 0; `verify.rs` checks it against the CPU twin.

pub mod analytic;
pub mod config;
pub mod csv;
pub mod engine;
pub mod engines;
pub mod gpu;
pub mod measures;
pub mod open_file;
pub mod routes;
pub mod service;
pub mod shapes;
pub mod spec;
pub mod state;
mod tokens;
pub mod verify;
pub mod view;

/// The network in the model registry.
pub static INFO: crate::config::ModelInfo = crate::config::ModelInfo {
    kind: "network",
    label: "your own network",
    description: "Queueing network from a file",
    about: "Any queueing network from a file: stations with FCFS servers, five service laws, external arrivals or a population, routes with probabilities; beside Jackson's and MVA's exact values.",
    teaching_preset: "clinic",
    parse: config::parse,
    presets: &[
        ("clinic", include_str!("../../../../presets/clinic.toml")),
        (
            "clinic-exponential",
            include_str!("../../../../presets/clinic-exponential.toml"),
        ),
        (
            "fat-tree",
            include_str!("../../../../presets/fat-tree.toml"),
        ),
        (
            "random-network",
            include_str!("../../../../presets/random-network.toml"),
        ),
        (
            "teaching-open",
            include_str!("../../../../presets/teaching-open.toml"),
        ),
        (
            "park-fishwick-open",
            include_str!("../../../../presets/park-fishwick-open.toml"),
        ),
        (
            "park-fishwick-fig3-open",
            include_str!("../../../../presets/park-fishwick-fig3-open.toml"),
        ),
    ],
    keys: config::KEYS,
    size_keys: "model.station",
    shader_modules: gpu::modules,
    verify: crate::twins::twin_checks::<verify::NetworkTwins>,
    verify_once: verify::check_once,
    cpu_bytes: engine::cpu_bytes,
    build: engine::build,
    replicas: None,
    spread: None,
    page_checks: Some(|gpu| {
        Box::pin(crate::twins::twin_page_checks::<verify::NetworkTwins>(gpu))
    }),
    info: include_str!("info.md"),
    algorithms: &[
        crate::config::AlgorithmInfo::new("sequential", "sequential", "One event at a time in time order: exact, the ground truth.").exact().cpu_only(),
        crate::config::AlgorithmInfo::new("window", "window", "Every event in [t_min, t_min + d) at once: exact when every station's service lasts at least d (checked, naming the station).").exact(),
        crate::config::AlgorithmInfo::new("interval-original", "interval / original", "Every event up to the next multiple of d at once, with its own timestamp: causality errors happen where a service can be shorter than d.").runs("interval", Some("original")),
        crate::config::AlgorithmInfo::new("interval-boundary", "interval / boundary", "Every event up to the next multiple of d happens at that boundary: no causality error, biased statistics.").runs("interval", Some("boundary")),
    ],
};
