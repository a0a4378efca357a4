//! What is simulated: model parameters, initial state and analytic references.

pub mod torus;
