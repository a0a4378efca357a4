//! The torus's WGSL passes (`shaders/` beside this file): every pass is `common.wgsl` (the
//! bindings and geometry) + the project's Philox + the stepped engines' shared helpers +
//! its own file, composed with the shared 64-bit helpers and reductions by
//! [`crate::gpu::shaders::compose`]. The scan is the shared `shaders/stepped_scan.wgsl`.

use crate::gpu::shaders::{self, Reductions};

/// The torus passes' bindings and geometry.
pub const COMMON: &str = include_str!("shaders/common.wgsl");
/// The scan over all facilities: departure list and partial minima (shared).
pub const SCAN: &str = shaders::STEPPED_SCAN;
/// Departures phase.
pub const DEPART: &str = include_str!("shaders/torus_depart.wgsl");
/// Arrivals phase.
pub const ARRIVE: &str = include_str!("shaders/torus_arrive.wgsl");
/// Step close-out and planning (final min reduction, bound, step log).
pub const PLAN: &str = include_str!("shaders/torus_plan.wgsl");
/// Per-facility display words for the heatmap.
pub const DISPLAY: &str = include_str!("shaders/torus_display.wgsl");

/// The full source of one pass (256 threads per workgroup).
pub fn pass(pass: &str, reductions: Reductions) -> String {
    shaders::compose(
        reductions,
        &[COMMON, shaders::PHILOX, shaders::STEPPED, pass],
    )
}

/// The full source of the pass in file `name` (`pass` is its text) with `wg` threads per
/// workgroup (the event passes, depart and arrive, may use fewer threads per segment than
/// the scan). Each file may be replaced for an experiment ([`shaders::part`]).
pub fn pass_with_workgroup(
    name: &str,
    pass: &'static str,
    reductions: Reductions,
    wg: u32,
) -> String {
    let parts = [
        shaders::part("common.wgsl", COMMON),
        shaders::part("philox.wgsl", shaders::PHILOX),
        shaders::part("stepped.wgsl", shaders::STEPPED),
        shaders::part(name, pass),
    ];
    let parts: Vec<&str> = parts.iter().map(|p| p.as_ref()).collect();
    shaders::compose_with_workgroup(reductions, wg, &parts)
}

/// Every pass, by name (the registry's list, for validation tests).
pub fn modules(reductions: Reductions) -> Vec<(String, String)> {
    [
        ("scan", SCAN),
        ("depart", DEPART),
        ("arrive", ARRIVE),
        ("plan", PLAN),
        ("display", DISPLAY),
    ]
    .iter()
    .map(|(n, src)| (n.to_string(), pass(src, reductions)))
    .collect()
}
