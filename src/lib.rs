//! PDES Lab: parallel discrete-event simulation on the GPU, seen and measured.
//!
//! Layout: [`models`] holds one folder per model (what is simulated, its CPU and GPU
//! engines, its verify cases, bench suites and window panel) and the registry that lists
//! them; [`sim`] is the engine interface, [`gpu`] the device and the shared shader parts,
//! [`engines`] the factory, [`verify`] the CPU ≡ GPU self-check, [`preset`] turns TOML into
//! validated configurations, [`sweep`] runs a grid of them, [`cli`] is the headless command
//! line and [`app`] the window. Times are integer ticks ([`time`]); random numbers come from a
//! counter-based generator ([`rng`]) that the GPU shaders reproduce bit for bit.

pub mod app;
pub mod cli;
pub mod engines;
pub mod fit;
pub mod gpu;
pub mod models;
pub mod preset;
pub mod rng;
pub mod sim;
pub mod sweep;
pub mod time;
pub mod verify;
