//! The torus's WGSL passes (`shaders/` beside this file): every pass is `common.wgsl` (the
//! bindings and geometry) + the project's Philox + the stepped engines' shared helpers +
//! its own file, composed with the shared 64-bit helpers and reductions by
//! [`pdes_gpu::shaders::compose`]. The scan is the shared `shaders/stepped_scan.wgsl`.

use pdes_gpu::shaders::{self, Reductions};

/// The torus passes' bindings and geometry.
pub const COMMON: &str = include_str!("shaders/common.wgsl");
/// The scan over all facilities: departure list and partial minima (shared; the torus
/// departs in the same workgroup, so it is composed with [`DEPART`]).
pub const SCAN: &str = shaders::STEPPED_SCAN;
/// The scan and the departures phase in one pass (entry point `scan_depart`), which first
/// closes the previous step and plans its own ([`PLAN`] is composed into it).
pub const DEPART: &str = include_str!("shaders/torus_depart.wgsl");
/// Arrivals phase.
pub const ARRIVE: &str = include_str!("shaders/torus_arrive.wgsl");
/// Step close-out and planning (bound, step log): used by every scan workgroup and by the
/// batch's closing pass.
pub const PLAN: &str = include_str!("shaders/torus_plan.wgsl");
/// The initial state, written on the GPU (entry point `init_state`; in the plan module).
pub const INIT: &str = include_str!("shaders/torus_init.wgsl");
/// The blocked window engine's two passes (`block`, `commit`; blocked.rs composes it).
pub const BLOCK: &str = include_str!("shaders/torus_block.wgsl");
/// Per-facility display words for the heatmap.
pub const DISPLAY: &str = include_str!("shaders/torus_display.wgsl");

/// The torus's compute modules: (name, the files after the shared ones, in order).
pub const MODULES: [(&str, &[(&str, &str)]); 4] = [
    (
        "scan_depart",
        &[
            ("stepped_scan.wgsl", SCAN),
            ("torus_plan.wgsl", PLAN),
            ("torus_depart.wgsl", DEPART),
        ],
    ),
    ("arrive", &[("torus_arrive.wgsl", ARRIVE)]),
    (
        "plan",
        &[("torus_plan.wgsl", PLAN), ("torus_init.wgsl", INIT)],
    ),
    ("display", &[("torus_display.wgsl", DISPLAY)]),
];

/// The full source of the pass made of `files` (name, embedded text), in order, after the
/// shared ones; each file may be replaced for an experiment ([`shaders::part`]).
pub fn pass_of_files(files: &[(&str, &'static str)], reductions: Reductions) -> String {
    let shared = [
        ("common.wgsl", COMMON),
        ("philox.wgsl", shaders::PHILOX),
        ("stepped.wgsl", shaders::STEPPED),
    ];
    let parts: Vec<_> = shared
        .iter()
        .chain(files)
        .map(|(name, text)| shaders::part(name, text))
        .collect();
    let parts: Vec<&str> = parts.iter().map(|p| p.as_ref()).collect();
    shaders::compose(reductions, &parts)
}

/// Every pass, by name (the registry's list, for validation tests).
pub fn modules(reductions: Reductions) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = MODULES
        .iter()
        .map(|(name, files)| (name.to_string(), pass_of_files(files, reductions)))
        .collect();
    // the blocked engine's passes, both region widths (no reductions: the same either way)
    for region in [24, 32] {
        v.push((
            format!("block (region {region})"),
            super::blocked::module_source(region, 256),
        ));
    }
    v
}
