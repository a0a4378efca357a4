//! PDES Lab: parallel discrete-event simulation on the GPU, seen and measured.
//!
//! Layout: [`model`] says what is simulated, [`sim`] how it is simulated on the CPU (the
//! ground truth), [`preset`] turns TOML into validated configurations, [`cli`] is the
//! headless command line. Times are integer ticks ([`time`]); random numbers come from a
//! counter-based generator ([`rng`]) that the GPU shaders reproduce bit for bit.

pub mod app;
pub mod cli;
pub mod engines;
pub mod gpu;
pub mod models;
pub mod preset;
pub mod rng;
pub mod sim;
pub mod time;
pub mod verify;
