//! The models and engines as the integration tests check them, one test binary (each
//! binary links wgpu and egui: 22 of them cost CI minutes of linking): every CPU algorithm
//! against its sequential ground truth, every GPU engine against its CPU twin on whatever
//! adapter is present (lavapipe in CI), `verify`, the shaders, the fit, and the crates'
//! layering. `cargo test --release --test models MODULE` runs one file's tests.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

#[path = "../common_cfg/mod.rs"]
mod common_cfg;

mod cpu_algorithms;
mod diffusion;
mod fit;
mod fit_device;
mod gpu_devs;
mod gpu_diffusion;
mod gpu_network;
mod gpu_page;
mod gpu_phold;
mod gpu_torus;
mod gpu_torus_blocked;
mod layers;
mod link;
mod mmck;
mod network;
mod shaders;
mod slices;
mod tokens;
mod verify;
