//! What runs a configuration, with no window: the engine factory with its limits and GPU
//! fallback ([`engines`]), the `verify` runner over every registered model ([`verify`]),
//! the GPUs a command spreads its work over ([`devices`]),
//! sweeps over a grid of keys and seeds ([`sweep`]), and
//! the outputs the commands and the window write ([`output`]).

pub mod devices;
pub mod engines;
pub mod output;
pub mod sweep;
pub mod trust;
pub mod tune;
pub mod verify;
