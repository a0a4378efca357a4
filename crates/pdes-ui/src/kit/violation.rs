//! A causality error as the window lists and draws it (the stepped CPU engines of the torus
//! and the network record them).

/// One causality error as the window shows it (the model's panel lists them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Violation {
    /// The step that processed it.
    pub step: u64,
    /// The facility where the late token arrived.
    pub facility: u32,
    /// The neighbour it came from.
    pub source: u32,
    /// The token.
    pub token: u32,
    /// Its arrival time (time units).
    pub arrival: f64,
    /// The latest arrival the facility had already processed (later than `arrival`).
    pub last_arrival: f64,
}

/// A stepped CPU engine's causality error (the torus's, a network's) as the window lists
/// it: its times from ticks to time units.
pub fn of_engine(v: &pdes_models::queueing::Violation) -> Violation {
    Violation {
        step: v.step,
        facility: v.facility,
        source: v.source,
        token: v.token,
        arrival: pdes_core::time::to_units(v.arrival),
        last_arrival: pdes_core::time::to_units(v.last_arrival),
    }
}

/// For models that keep no list.
pub fn none(_: &crate::kit::session::Session) -> Vec<Violation> {
    Vec::new()
}
