//! How a model is simulated on the GPU: one device setup ([`context`]), WGSL composition
//! ([`shaders`]) and the torus engine ([`torus`]), the twin of `sim::stepped`.

pub mod context;
pub mod diffusion;
pub mod shaders;
pub mod torus;

pub use context::Gpu;
