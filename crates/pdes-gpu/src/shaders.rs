//! WGSL composition: a compute module is `u64.wgsl` + one of the reduction modules + the
//! model's own files (`crates/pdes-models/src/<model>/shaders/`, listed by the model's `shaders.rs`).
//! The shared pieces live in `shaders/`; everything is embedded at build time, so the
//! binary needs no files beside it. (WGSL declarations at module scope may come in any
//! order, so the parts are simply concatenated.)

/// 64-bit tick arithmetic and the workgroup size, shared by every compute module.
pub const U64: &str = include_str!("../shaders/u64.wgsl");
/// `mul32x32` by 16-bit halves: every adapter.
pub const MUL32_EMULATED: &str = include_str!("../shaders/mul32_emulated.wgsl");
/// `mul32x32` by a native 64-bit multiply: devices with SHADER_INT64.
pub const MUL32_NATIVE: &str = include_str!("../shaders/mul32_native.wgsl");
/// Philox4x32-10 and the service-time transform (the project's random numbers).
pub const PHILOX: &str = include_str!("../shaders/philox.wgsl");
/// What the queueing models' stepped engines share: segment geometry, step phases and
/// rules, the step bound, the reduction of per-segment partials.
pub const STEPPED: &str = include_str!("../shaders/stepped.wgsl");
/// The stepped engines' scan over every facility (departure list and segment minima).
pub const STEPPED_SCAN: &str = include_str!("../shaders/stepped_scan.wgsl");
/// The heatmap's render pipeline (standalone module).
pub const HEATMAP: &str = include_str!("../shaders/heatmap.wgsl");

/// The reductions' self-check (`pdes-lab verify`).
pub const REDUCE_CHECK: &str = include_str!("../shaders/reduce_check.wgsl");

/// Workgroup reductions with shared memory only.
pub const REDUCE_PORTABLE: &str = include_str!("../shaders/reduce_portable.wgsl");
/// Workgroup reductions with subgroup operations.
pub const REDUCE_SUBGROUP: &str = include_str!("../shaders/reduce_subgroup.wgsl");

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

/// How a module computes the full product of two u32 (`mul32x32`: Philox's rounds, the
/// draws' scaling): the same bits either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Products {
    /// By 16-bit halves: every adapter.
    Emulated,
    /// By one native 64-bit multiply (wgpu feature SHADER_INT64).
    Native,
}

impl Products {
    /// Native where the device has 64-bit integers in shaders
    /// (`PDES_GPU_PRODUCTS=emulated` forces the halves, for benchmarks).
    pub fn for_device(device: &wgpu::Device) -> Self {
        let forced = std::env::var("PDES_GPU_PRODUCTS").is_ok_and(|v| v == "emulated");
        if !forced && device.features().contains(wgpu::Features::SHADER_INT64) {
            Self::Native
        } else {
            Self::Emulated
        }
    }

    fn source(self) -> &'static str {
        match self {
            Self::Emulated => MUL32_EMULATED,
            Self::Native => MUL32_NATIVE,
        }
    }
}

/// `builtin`, the embedded text of the shader file `name`, unless the environment variable
/// `PDES_WGSL_DIR` names a folder holding a file of that name: then that file's text. For
/// attribution experiments on a device without a rebuild (bench/experiments/: e.g. a
/// cheaper random number function, to see what the real one costs); a replaced module
/// no longer computes the sample path, so nothing it produces may be recorded as a result,
/// and a warning says so on every use.
pub fn part(name: &str, builtin: &'static str) -> std::borrow::Cow<'static, str> {
    let Some(dir) = std::env::var_os("PDES_WGSL_DIR") else {
        return builtin.into();
    };
    let path = std::path::Path::new(&dir).join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            eprintln!(
                "warning: {name} replaced by {} (PDES_WGSL_DIR): an experiment, not a result",
                path.display()
            );
            text.into()
        }
        Err(_) => builtin.into(),
    }
}

/// A compute module: the 64-bit helpers (products by 16-bit halves), the reductions, then
/// `parts`.
pub fn compose(reductions: Reductions, parts: &[&str]) -> String {
    compose_with(reductions, Products::Emulated, parts)
}

/// [`compose`] with the products of `products`.
pub fn compose_with(reductions: Reductions, products: Products, parts: &[&str]) -> String {
    let mut s = format!("{U64}\n{}\n{}\n", products.source(), reductions.source());
    for p in parts {
        s.push_str(p);
        s.push('\n');
    }
    s
}

/// The full source of the reductions' self-check.
pub fn reduce_check_module(reductions: Reductions) -> String {
    compose(reductions, &[REDUCE_CHECK])
}
