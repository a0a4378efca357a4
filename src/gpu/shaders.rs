//! WGSL composition: every pass is `common.wgsl` + `philox.wgsl` + its own file. The files
//! live in `shaders/` and are embedded at build time, so editing a shader needs no Rust
//! edit and the binary needs no files beside it.

/// Shared declarations and 64-bit tick arithmetic.
pub const COMMON: &str = include_str!("../../shaders/common.wgsl");
/// Philox4x32-10 and the service-time transform.
pub const PHILOX: &str = include_str!("../../shaders/philox.wgsl");
/// Departures phase.
pub const TORUS_DEPART: &str = include_str!("../../shaders/torus_depart.wgsl");
/// Arrivals phase fused with the first level of the min reduction.
pub const TORUS_ARRIVE: &str = include_str!("../../shaders/torus_arrive.wgsl");
/// Step close-out and planning (final min reduction, bound, step log).
pub const TORUS_PLAN: &str = include_str!("../../shaders/torus_plan.wgsl");

/// Facilities per thread in the torus passes (`ITEMS` in common.wgsl). The environment
/// variable `PDES_GPU_ITEMS` (1..=16) overrides it; `bench/NOTES.md` records the
/// measurements that chose the default.
pub fn torus_items() -> u32 {
    std::env::var("PDES_GPU_ITEMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| (1..=16).contains(n))
        .unwrap_or(4)
}

/// The full source of a torus pass.
pub fn torus_pass(pass: &str) -> String {
    let common = COMMON.replace(
        "const ITEMS: u32 = 4u;",
        &format!("const ITEMS: u32 = {}u;", torus_items()),
    );
    format!("{common}\n{PHILOX}\n{pass}")
}

/// Every composed module, by name (for validation tests).
pub fn all() -> Vec<(&'static str, String)> {
    vec![
        ("torus_depart", torus_pass(TORUS_DEPART)),
        ("torus_arrive", torus_pass(TORUS_ARRIVE)),
        ("torus_plan", torus_pass(TORUS_PLAN)),
    ]
}
