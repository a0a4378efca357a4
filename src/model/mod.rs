//! What is simulated: model parameters, initial state and analytic references.

pub mod diffusion;
pub mod torus;
