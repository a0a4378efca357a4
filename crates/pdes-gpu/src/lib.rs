//! What every GPU engine shares: one device setup ([`context`]) and a browser tab's, whose
//! readbacks are deferred ([`deferred`]), WGSL composition with the 64-bit helpers and the
//! workgroup reductions ([`shaders`]), the reductions' self-check ([`reduce_check`]), buffer
//! and pipeline helpers ([`kit`]), a one-pass step's rotating accumulators
//! ([`accumulators`]), the stepped engine's shared passes and batch loop
//! ([`stepped`]), the batch loop of the engines whose GPU stops by itself ([`batches`]) and
//! what the window asks of any engine ([`live`]). The engines
//! themselves live in their model's module (`pdes_models::<model>::gpu`).

pub mod accumulators;
pub mod batches;
pub mod context;
pub mod deferred;
pub mod kit;
pub mod live;
pub mod pool;
pub mod reduce_check;
pub mod shaders;
pub mod stamps;
pub mod stepped;

pub use context::{
    Gpu, no_device, read_ranges, read_ranges_latest, read_ranges_since, read_ranges_with,
};
pub use live::{LiveEngine, NEXT_STEP_BIT, Sample};
