//! Every model's benchmark suites, one file per model (`torus_parts`: the sequential torus
//! taken apart, event part by event part).

pub mod devs;
pub mod diffusion;
pub mod mmck;
pub mod network;
pub mod phold;
pub mod torus;
pub mod torus_floor;
pub mod torus_parts;
