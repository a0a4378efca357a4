//! The open network's WGSL passes (`shaders/` beside this file): every pass is
//! `common.wgsl` (bindings, token records, random streams) + the project's Philox + the
//! stepped engines' shared helpers + its own file. The scan is the shared
//! `shaders/stepped_scan.wgsl`, as for the torus.

use pdes_gpu::shaders::{self, Reductions};

/// Bindings, token records and random streams.
pub const COMMON: &str = include_str!("shaders/common.wgsl");
/// Departures phase: complete, route, free the slots of tokens that leave.
pub const DEPART: &str = include_str!("shaders/open_depart.wgsl");
/// Arrivals phase: every receiver accepts its tokens in the sequential order.
pub const ARRIVE: &str = include_str!("shaders/open_arrive.wgsl");
/// Step close-out and planning, with the source's arrivals and the pool check.
pub const PLAN: &str = include_str!("shaders/open_plan.wgsl");
/// Per-facility display words for the heatmap.
pub const DISPLAY: &str = include_str!("shaders/open_display.wgsl");

/// The full source of one pass.
pub fn pass(pass: &str, reductions: Reductions) -> String {
    shaders::compose(
        reductions,
        &[COMMON, shaders::PHILOX, shaders::STEPPED, pass],
    )
}

/// Every pass, by name (the registry's list, for validation tests).
pub fn modules(reductions: Reductions) -> Vec<(String, String)> {
    [
        ("scan", shaders::STEPPED_SCAN),
        ("depart", DEPART),
        ("arrive", ARRIVE),
        ("plan", PLAN),
        ("display", DISPLAY),
    ]
    .iter()
    .map(|(n, src)| (n.to_string(), pass(src, reductions)))
    .collect()
}
