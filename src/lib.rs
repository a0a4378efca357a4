//! PDES Lab: parallel discrete-event simulation on the GPU, seen and measured.
//!
//! This package is the top of the workspace: the command line ([`cli`]) over the crates
//! below it, and the names the integration tests use for them. Each crate imports only the
//! ones beneath it (ARCHITECTURE.md):
//! `pdes-core` ([`time`], [`rng`], [`sim`]) ← `pdes-gpu` ([`gpu`]) ← `pdes-models`
//! ([`models`], [`preset`], [`fit`]) ← `pdes-runs` ([`engines`], [`verify`], [`sweep`]) ←
//! `pdes-ui` ([`app`]) and `pdes-bench` ([`bench`]) ← this package.

pub mod cli;

pub use pdes_bench as bench;
pub use pdes_core::{rng, sim, time};
pub use pdes_gpu as gpu;
pub use pdes_models as models;
pub use pdes_models::fit;
pub use pdes_models::preset;
pub use pdes_runs::{engines, sweep, verify};
pub use pdes_ui::{app, kit, panels};
