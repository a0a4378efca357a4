//! The diffusion grid's WGSL module (`shaders/diffusion.wgsl` beside this file), composed
//! with the shared 64-bit helpers and reductions.

use pdes_gpu::shaders::{self, Reductions};

/// The grid's step, plan, display and statistics entry points.
pub const DIFFUSION: &str = include_str!("shaders/diffusion.wgsl");

/// The full source of the module (`diffusion.wgsl` replaceable for experiments:
/// [`shaders::part`]).
pub fn module(reductions: Reductions) -> String {
    shaders::compose(reductions, &[&shaders::part("diffusion.wgsl", DIFFUSION)])
}

/// Every module, by name (the registry's list, for validation tests).
pub fn modules(reductions: Reductions) -> Vec<(String, String)> {
    vec![("step".to_string(), module(reductions))]
}
