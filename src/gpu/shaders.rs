//! WGSL composition: every pass is `common.wgsl` + `philox.wgsl` + its own file. The files
//! live in `shaders/` and are embedded at build time, so editing a shader needs no Rust
//! edit and the binary needs no files beside it.

/// 64-bit tick arithmetic and the workgroup size, shared by every compute module.
pub const U64: &str = include_str!("../../shaders/u64.wgsl");
/// The torus passes' bindings and geometry.
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

/// The diffusion grid's step, plan and display entry points.
pub const DIFFUSION: &str = include_str!("../../shaders/diffusion.wgsl");

/// Per-facility display words for the heatmap.
pub const TORUS_DISPLAY: &str = include_str!("../../shaders/torus_display.wgsl");
/// The heatmap's render pipeline (standalone module).
pub const HEATMAP: &str = include_str!("../../shaders/heatmap.wgsl");

/// The reductions' self-check (`pdes-lab verify`).
pub const REDUCE_CHECK: &str = include_str!("../../shaders/reduce_check.wgsl");

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

impl Reductions {
    /// The best the device offers: subgroup operations when it has them
    /// (`PDES_GPU_REDUCTIONS=portable` forces the shared-memory ones, for benchmarks).
    pub fn for_device(device: &wgpu::Device) -> Self {
        let forced_portable = std::env::var("PDES_GPU_REDUCTIONS").is_ok_and(|v| v == "portable");
        if !forced_portable && device.features().contains(wgpu::Features::SUBGROUP) {
            Self::Subgroup
        } else {
            Self::Portable
        }
    }

    /// The module's WGSL. For driver investigations, `PDES_REDUCE_SUBGROUP_WGSL=FILE`
    /// replaces the subgroup module with a file's text (how the NVIDIA miscompile in
    /// bench/NOTES.md was narrowed down without a rebuild per candidate).
    fn source(self) -> std::borrow::Cow<'static, str> {
        match self {
            Self::Portable => REDUCE_PORTABLE.into(),
            Self::Subgroup => match std::env::var_os("PDES_REDUCE_SUBGROUP_WGSL") {
                None => REDUCE_SUBGROUP.into(),
                Some(path) => std::fs::read_to_string(&path).map_or_else(
                    |e| {
                        eprintln!("warning: PDES_REDUCE_SUBGROUP_WGSL {path:?}: {e}; using the built-in module");
                        REDUCE_SUBGROUP.into()
                    },
                    Into::into,
                ),
            },
        }
    }
}

/// The full source of a torus pass.
pub fn torus_pass(pass: &str, reductions: Reductions) -> String {
    format!("{U64}\n{COMMON}\n{}\n{PHILOX}\n{pass}", reductions.source())
}

/// The full source of the reductions' self-check.
pub fn reduce_check_module(reductions: Reductions) -> String {
    format!("{U64}\n{}\n{REDUCE_CHECK}", reductions.source())
}

/// The full source of the diffusion module.
pub fn diffusion_module(reductions: Reductions) -> String {
    format!("{U64}\n{}\n{DIFFUSION}", reductions.source())
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
        v.push((format!("diffusion ({r:?})"), diffusion_module(r)));
        v.push((format!("reduce_check ({r:?})"), reduce_check_module(r)));
    }
    v.push(("heatmap".to_string(), HEATMAP.to_string()));
    v
}
