//! What every GPU engine shares: one device setup ([`context`]), WGSL composition with the
//! 64-bit helpers and the workgroup reductions ([`shaders`]), and the reductions'
//! self-check ([`reduce_check`]). The engines live in their model's folder
//! (`crate::models::<model>::gpu`).

pub mod context;
pub mod floor;
pub mod kit;
pub mod reduce_check;
pub mod shaders;
pub mod stepped;

pub use context::{Gpu, read_ranges};
