//! What runs a configuration, with no window: the engine factory with its limits and GPU
//! fallback ([`engines`]), the `verify` runner over every registered model ([`verify`]),
//! sweeps over a grid of keys and seeds ([`sweep`]), and
//! the outputs the commands and the window write ([`output`]).

pub mod engines;
pub mod output;
pub mod sweep;
pub mod verify;
