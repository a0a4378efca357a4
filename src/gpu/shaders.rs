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

/// Workgroup reductions with shared memory only.
pub const REDUCE_PORTABLE: &str = include_str!("../../shaders/reduce_portable.wgsl");
/// Workgroup reductions with subgroup operations.
pub const REDUCE_SUBGROUP: &str = include_str!("../../shaders/reduce_subgroup.wgsl");

/// How the passes reduce across a workgroup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reductions {
    /// Shared memory and barriers: every adapter.
    Portable,
    /// Subgroup operations (wgpu feature SUBGROUP).
    Subgroup,
}

/// The full source of a torus pass.
pub fn torus_pass(pass: &str, reductions: Reductions) -> String {
    match reductions {
        Reductions::Portable => format!("{COMMON}\n{REDUCE_PORTABLE}\n{PHILOX}\n{pass}"),
        Reductions::Subgroup => format!("{COMMON}\n{REDUCE_SUBGROUP}\n{PHILOX}\n{pass}"),
    }
}

/// Every composed module, by name (for validation tests).
pub fn all() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for r in [Reductions::Portable, Reductions::Subgroup] {
        for (name, src) in [
            ("torus_scan", TORUS_SCAN),
            ("torus_depart", TORUS_DEPART),
            ("torus_arrive", TORUS_ARRIVE),
            ("torus_plan", TORUS_PLAN),
            ("torus_display", TORUS_DISPLAY),
        ] {
            v.push((format!("{name} ({r:?})"), torus_pass(src, r)));
        }
    }
    v.push(("heatmap".to_string(), HEATMAP.to_string()));
    v
}
