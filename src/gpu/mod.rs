//! How a model is simulated on the GPU: one device setup ([`context`]), WGSL composition
//! ([`shaders`]), the torus engine ([`torus`], the twin of `sim::stepped`) and the diffusion
//! engine ([`diffusion`], the twin of `sim::diffusion::synchronous`).

pub mod context;
pub mod reduce_check;
pub mod shaders;

pub use context::{Gpu, read_ranges};
