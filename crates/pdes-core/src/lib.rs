//! The ground PDES Lab stands on, with no GPU and no window: simulated time as integer
//! ticks ([`time`]), the counter-based random numbers every engine and shader reproduces bit
//! for bit ([`rng`]), the engine interface with its budgets, step log, report and the event
//! queues of the sequential simulators ([`sim`]), the estimates over seeds and replications
//! ([`stats`]), and the one error type the commands
//! report ([`Error`]).

pub mod rng;
pub mod sim;
pub mod stats;
pub mod time;

/// A command's failure, as the command line reports it: what the user gave was wrong
/// (exit status 2), or the work itself failed (exit status 1). The message is one line that
/// names the key, file or flag.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input: a key, value, file or flag the user can correct.
    #[error("{0}")]
    Input(String),
    /// The run, a write or the device failed.
    #[error("{0}")]
    Run(String),
}

impl Error {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::Input(_) => 2,
            Self::Run(_) => 1,
        }
    }
}
