//! Every model of PDES Lab, with no window and no command line: per model one module
//! (configuration, CPU engines, GPU engine and its shaders, verify cases, summary, Info
//! page), the registry that lists them ([`registry`]), the configuration every model's
//! parser produces ([`config`]), presets by name and `--set` ([`preset`]), and the CPU ≡ GPU
//! comparison machinery the models' verify cases use ([`verify`]).
//!
//! Top-level modules import in one direction: a model imports [`config`],
//! [`verify`] and [`queueing`] (and the crates below), never [`registry`] or [`preset`],
//! which import the models.

pub mod config;
pub mod error;
pub mod fit;
pub mod keys;
pub mod link;
pub mod preset;
pub mod queueing;
pub mod reading;
pub mod registry;
pub mod twins;
pub mod verify;

pub mod devs;
pub mod diffusion;
pub mod mmck;
pub mod network;
pub mod phold;
pub mod torus;

pub use config::{AlgorithmInfo, ModelInfo};
pub use registry::{MODELS, by_kind};
