//! How a model is simulated on the CPU: the engine interface shared by the command line
//! and the app, the sequential and stepped torus engines, the diffusion engines
//! ([`diffusion`]), and their statistics.

pub mod diffusion;
pub mod heap;
pub mod sequential;
pub mod state;
pub mod stats;
pub mod stepped;

use crate::preset::{Algorithm, DiffusionConfig, Timestamps, TorusConfig};
use crate::time::{Ticks, to_ticks};
use serde::Serialize;
use state::TorusState;
use stats::Summary;

/// Errors a simulation can report while it runs.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A token was lost or duplicated: a bug, reported loudly rather than ignored.
    #[error("token conservation violated: {0}")]
    TokenConservation(String),
    /// The GPU engine failed (device lost, readback failed, resource limits).
    #[error("GPU engine: {0}")]
    Gpu(String),
    /// The run would need more memory than PDES Lab is willing to take.
    #[error("{0}")]
    TooLarge(String),
}

/// Most bytes a CPU engine may allocate for its state (the app refuses larger runs rather
/// than let the allocation abort the process).
pub const CPU_MEMORY_LIMIT: u64 = 8 << 30;

/// Bytes the CPU state of a torus run takes (facility records, token records, outboxes).
pub fn cpu_memory_bytes(cfg: &TorusConfig) -> u64 {
    let k = u64::from(cfg.model.facilities());
    let n = u64::from(cfg.model.tokens());
    k * (std::mem::size_of::<state::Facility>() as u64 + 24)
        + n * std::mem::size_of::<state::Token>() as u64
}

/// How far one call to [`Engine::advance`] may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// At most this many steps (events for `sequential`).
    Steps(u64),
    /// Steps that start before this simulated time (never past the end time).
    Until(Ticks),
    /// To the end time.
    Finish,
}

impl Budget {
    /// (time limit for a step's start, maximum number of steps).
    pub fn limits(self, end: Ticks) -> (Ticks, u64) {
        match self {
            Self::Steps(n) => (end, n),
            Self::Until(t) => (t.min(end), u64::MAX),
            Self::Finish => (end, u64::MAX),
        }
    }
}

/// One step of a stepped algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StepRecord {
    /// Earliest pending event when the step began.
    pub t_min: Ticks,
    /// Inclusive upper bound on the event times the step processed.
    pub bound: Ticks,
    /// Events processed in the step.
    pub events: u64,
    /// Causality errors in the step.
    pub errors: u64,
}

/// Running counters of an engine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepTotals {
    /// Events processed.
    pub events: u64,
    /// Steps taken.
    pub steps: u64,
    /// Most events processed in one step.
    pub max_events_per_step: u64,
    /// Steps in which at least one causality error happened.
    pub steps_with_errors: u64,
}

impl StepTotals {
    /// Records one step.
    pub fn record(&mut self, events: u64, facilities_with_errors: u64) {
        self.events += events;
        self.steps += 1;
        self.max_events_per_step = self.max_events_per_step.max(events);
        self.steps_with_errors += u64::from(facilities_with_errors > 0);
    }
}

/// A running simulation. The command line and the app talk to every engine through this.
pub trait Engine {
    /// Advances the simulation within `budget`.
    fn advance(&mut self, budget: Budget) -> Result<(), SimError>;
    /// Lower bound on every pending event time.
    fn now(&self) -> Ticks;
    /// True once every event before the end time has been processed.
    fn finished(&self) -> bool;
    /// Counters so far.
    fn totals(&self) -> StepTotals;
    /// Per-step records (empty for `sequential` and `event`, where every event is a step).
    fn step_log(&self) -> &[StepRecord];
    /// The model's statistics as of `min(now, end)`.
    fn report(&mut self) -> Result<Report, SimError>;
}

/// What the torus engines offer beyond [`Engine`].
pub trait TorusEngine: Engine {
    /// Statistics as of `min(now, end)`; fails if a token was lost or duplicated.
    fn summary(&mut self) -> Result<Summary, SimError>;
    /// Tokens at every facility, row-major (what the heatmap draws).
    fn occupancy(&mut self) -> Result<Vec<u32>, SimError>;
}

/// The statistics of a run of either model (serialized as the model's own summary).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Report {
    /// A torus run.
    Torus(Summary),
    /// A diffusion run.
    Diffusion(diffusion::DiffusionSummary),
}

impl Report {
    /// Fills in the wall-clock figures.
    pub fn with_wall_time(self, seconds: f64) -> Self {
        match self {
            Self::Torus(s) => Self::Torus(s.with_wall_time(seconds)),
            Self::Diffusion(s) => Self::Diffusion(s.with_wall_time(seconds)),
        }
    }
}

/// The CPU engines of the torus network.
#[derive(Clone, Debug)]
pub enum CpuTorus {
    /// Future-event-list simulator.
    Sequential(sequential::Sequential),
    /// Window or interval two-phase steps.
    Stepped(stepped::Stepped),
}

impl CpuTorus {
    /// Builds the engine a validated configuration asks for.
    pub fn new(cfg: &TorusConfig) -> Self {
        let state = TorusState::new(&cfg.model, cfg.service_law(), cfg.run.seed);
        let end = cfg.end_ticks();
        let d = to_ticks(cfg.run.d);
        match cfg.run.algorithm {
            Algorithm::Sequential => Self::Sequential(sequential::Sequential::new(state, end)),
            Algorithm::Window => Self::Stepped(stepped::Stepped::new(
                state,
                stepped::StepRule::Window { d },
                end,
            )),
            Algorithm::Interval => {
                let rule = match cfg.run.timestamps {
                    Timestamps::Original => stepped::StepRule::IntervalOriginal { d },
                    Timestamps::Boundary => stepped::StepRule::IntervalBoundary { d },
                };
                Self::Stepped(stepped::Stepped::new(state, rule, end))
            }
        }
    }

    /// The network state.
    pub fn state(&self) -> &TorusState {
        match self {
            Self::Sequential(s) => &s.state,
            Self::Stepped(s) => &s.state,
        }
    }
}

/// Bytes the CPU state of a diffusion run takes (the event algorithm's is the largest).
pub fn diffusion_cpu_bytes(cfg: &DiffusionConfig) -> u64 {
    u64::from(cfg.model.cells()) * 48
}

/// A CPU engine together with the configuration its summary describes.
#[derive(Clone, Debug)]
pub struct CpuEngine {
    /// The engine.
    pub cpu: CpuTorus,
    /// Its configuration.
    pub config: TorusConfig,
}

impl Engine for CpuEngine {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        match &mut self.cpu {
            CpuTorus::Sequential(s) => s.advance(budget),
            CpuTorus::Stepped(s) => s.advance(budget),
        }
        Ok(())
    }
    fn now(&self) -> Ticks {
        match &self.cpu {
            CpuTorus::Sequential(s) => s.now(),
            CpuTorus::Stepped(s) => s.now(),
        }
    }
    fn finished(&self) -> bool {
        self.now() >= self.config.end_ticks()
    }
    fn totals(&self) -> StepTotals {
        match &self.cpu {
            CpuTorus::Sequential(s) => s.totals().clone(),
            CpuTorus::Stepped(s) => s.totals().clone(),
        }
    }
    fn step_log(&self) -> &[StepRecord] {
        match &self.cpu {
            CpuTorus::Sequential(_) => &[],
            CpuTorus::Stepped(s) => s.log(),
        }
    }
    fn report(&mut self) -> Result<Report, SimError> {
        Ok(Report::Torus(self.summary()?))
    }
}

impl TorusEngine for CpuEngine {
    fn summary(&mut self) -> Result<Summary, SimError> {
        let horizon = self.now().min(self.config.end_ticks());
        let measures = stats::measure(self.cpu.state(), horizon)?;
        Ok(Summary::new(&self.config, &self.totals(), &measures))
    }
    fn occupancy(&mut self) -> Result<Vec<u32>, SimError> {
        Ok(self.cpu.state().occupancy())
    }
}
