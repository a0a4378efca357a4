//! WGSL composition: every pass is `common.wgsl` + `philox.wgsl` + its own file. The files
//! live in `shaders/` and are embedded at build time, so editing a shader needs no Rust
//! edit and the binary needs no files beside it.

/// Shared declarations and 64-bit tick arithmetic.
pub const COMMON: &str = include_str!("../../shaders/common.wgsl");
/// Philox4x32-10 and the service-time transform.
pub const PHILOX: &str = include_str!("../../shaders/philox.wgsl");
/// The scan over all facilities: departure list and partial minima.
pub const TORUS_SCAN: &str = include_str!("../../shaders/torus_scan.wgsl");
/// Departures phase.
pub const TORUS_DEPART: &str = include_str!("../../shaders/torus_depart.wgsl");
/// Arrivals phase.
pub const TORUS_ARRIVE: &str = include_str!("../../shaders/torus_arrive.wgsl");
/// Step close-out and planning (final min reduction, bound, step log).
pub const TORUS_PLAN: &str = include_str!("../../shaders/torus_plan.wgsl");

/// Per-facility display words for the heatmap.
pub const TORUS_DISPLAY: &str = include_str!("../../shaders/torus_display.wgsl");
/// The heatmap's render pipeline (standalone module).
pub const HEATMAP: &str = include_str!("../../shaders/heatmap.wgsl");

/// The full source of a torus pass.
pub fn torus_pass(pass: &str) -> String {
    format!("{COMMON}\n{PHILOX}\n{pass}")
}

/// Every composed module, by name (for validation tests).
pub fn all() -> Vec<(&'static str, String)> {
    vec![
        ("torus_scan", torus_pass(TORUS_SCAN)),
        ("torus_depart", torus_pass(TORUS_DEPART)),
        ("torus_arrive", torus_pass(TORUS_ARRIVE)),
        ("torus_plan", torus_pass(TORUS_PLAN)),
        ("torus_display", torus_pass(TORUS_DISPLAY)),
        ("heatmap", HEATMAP.to_string()),
    ]
}
