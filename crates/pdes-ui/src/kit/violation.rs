//! A causality error as the window lists and draws it (the CPU torus engines record them).

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

/// The torus's CPU violations as the window lists them (ticks to time units).
pub fn from_ticks(
    step: u64,
    facility: u32,
    source: u32,
    token: u32,
    arrival: pdes_core::time::Ticks,
    last: pdes_core::time::Ticks,
) -> Violation {
    Violation {
        step,
        facility,
        source,
        token,
        arrival: pdes_core::time::to_units(arrival),
        last_arrival: pdes_core::time::to_units(last),
    }
}

/// For models that keep no list.
pub fn none(_: &crate::kit::session::Session) -> Vec<Violation> {
    Vec::new()
}
