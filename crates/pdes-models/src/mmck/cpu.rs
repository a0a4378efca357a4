//! The replications on the CPU: the same [`Replication`]s as the GPU's threads, spread
//! over the machine's cores (each thread takes a contiguous block of replications).

use super::config::MmckConfig;
use super::summary::Summary;
use super::{Replication, RunShape};
use pdes_core::sim::heap::NEVER;
use pdes_core::sim::{Budget, Engine, Report, SimError, StepTotals};
use pdes_core::time::Ticks;

/// The CPU engine of M/M/c/k replications.
pub struct CpuMmck {
    config: MmckConfig,
    shape: RunShape,
    reps: Vec<Replication>,
    threads: u32,
    /// Every event before this time is processed (the last `Until` budget's limit).
    horizon: Ticks,
}

/// How one [`Budget`] reads for the replications of `cfg`: (time limit, events per
/// replication). A step is one event of every replication (the GPU's threads advance in
/// such rounds). A replication ends at a departure count, not a time: the run's nominal
/// end time (its expected length, what the window's clock shows) stands for the end of
/// every replication, so `Until` it runs each to its last departure.
pub fn replication_limits(budget: Budget, cfg: &MmckConfig) -> (Ticks, u64) {
    use crate::config::ModelConfig;
    match budget {
        Budget::Steps(n) => (NEVER, n),
        Budget::Until(t) if t < pdes_core::time::to_ticks(cfg.end_time()) => (t, u64::MAX),
        Budget::Until(_) | Budget::Finish => (NEVER, u64::MAX),
        Budget::StepsUntil(n, t) if t < pdes_core::time::to_ticks(cfg.end_time()) => (t, n),
        Budget::StepsUntil(n, _) => (NEVER, n),
    }
}

impl CpuMmck {
    /// Every replication of `cfg` at time 0, to run on all cores (`PDES_CPU_THREADS`
    /// caps them, for measurements).
    pub fn new(cfg: &MmckConfig) -> Self {
        let shape = cfg.shape();
        let cores = std::env::var("PDES_CPU_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
            .unwrap_or(1);
        let n = cfg.run.replications;
        Self {
            config: cfg.clone(),
            reps: (0..n).map(|r| Replication::new(&shape, r)).collect(),
            threads: cores.clamp(1, n as usize) as u32,
            shape,
            horizon: 0,
        }
    }

    /// The replications as they stand.
    pub fn replications(&self) -> &[Replication] {
        &self.reps
    }

    /// Threads the replications run on.
    pub fn threads(&self) -> u32 {
        self.threads
    }

    /// Its configuration.
    pub fn config(&self) -> &MmckConfig {
        &self.config
    }

    /// The analysis of the replications as they stand.
    pub fn summary(&self) -> Summary {
        Summary::new(&self.config, "cpu", self.threads, &self.reps)
    }
}

impl Engine for CpuMmck {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        let (limit, events) = replication_limits(budget, &self.config);
        if events == u64::MAX {
            self.horizon = self.horizon.max(limit);
        }
        let shape = self.shape;
        if self.threads == 1 {
            // one core (a browser tab has no threads to spawn): on the calling thread
            for r in &mut self.reps {
                r.advance(&shape, limit, events);
            }
            return Ok(());
        }
        let chunk = self.reps.len().div_ceil(self.threads as usize).max(1);
        std::thread::scope(|s| {
            for block in self.reps.chunks_mut(chunk) {
                s.spawn(move || {
                    for r in block {
                        r.advance(&shape, limit, events);
                    }
                });
            }
        });
        Ok(())
    }
    fn now(&self) -> Ticks {
        Standing::of(&self.shape, &self.reps).now(self.horizon)
    }
    fn finished(&self) -> bool {
        self.reps.iter().all(|r| r.done(&self.shape))
    }
    fn totals(&self) -> StepTotals {
        Standing::of(&self.shape, &self.reps).totals()
    }
    fn samples(&self) -> Option<Vec<f64>> {
        Some(super::live::l_hats(&self.reps))
    }
    fn report(&mut self) -> Result<Report, SimError> {
        Ok(Report::of(&self.summary()))
    }
}

/// Where a set of replications stands: what a run loop asks after every call (the clock,
/// whether all are done, the counters), gathered from each replication's clock, departures
/// and events — on the GPU from those words alone, not from every record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Standing {
    /// The earliest clock of a replication still running (`None` when all are done).
    pub earliest_running: Option<Ticks>,
    /// The latest clock of any.
    pub latest: Ticks,
    /// Events of all replications.
    pub events: u64,
    /// The most events of one replication.
    pub most_events: u64,
    /// Replications counted.
    pub replications: u64,
}

impl Standing {
    /// The standing of `reps`.
    pub fn of(shape: &RunShape, reps: &[Replication]) -> Self {
        reps.iter()
            .fold(Self::default(), |s, r| s.with(r.t, r.done(shape), r.events))
    }

    /// This one with a replication at clock `t` that is `done` or not after `events`.
    pub fn with(self, t: Ticks, done: bool, events: u64) -> Self {
        let running = if done { None } else { Some(t) };
        Self {
            earliest_running: match (self.earliest_running, running) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            latest: self.latest.max(t),
            events: self.events + events,
            most_events: self.most_events.max(events),
            replications: self.replications + 1,
        }
    }

    /// Two sets together (the shares of a run split over devices).
    pub fn merge(self, other: Self) -> Self {
        Self {
            earliest_running: match (self.earliest_running, other.earliest_running) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            latest: self.latest.max(other.latest),
            events: self.events + other.events,
            most_events: self.most_events.max(other.most_events),
            replications: self.replications + other.replications,
        }
    }

    /// True when every replication is done.
    pub fn finished(&self) -> bool {
        self.earliest_running.is_none()
    }

    /// Where the set stands: every event before `horizon` (the last time budget's limit)
    /// is processed, and every running replication is at least at its own last event;
    /// when all are done, the latest end.
    pub fn now(&self, horizon: Ticks) -> Ticks {
        self.earliest_running
            .map(|t| t.max(horizon))
            .unwrap_or(self.latest)
    }

    /// The counters: events, and steps as rounds of one event per replication (the most
    /// events any replication processed).
    pub fn totals(&self) -> StepTotals {
        StepTotals {
            events: self.events,
            steps: self.most_events,
            max_events_per_step: self.replications,
            steps_with_errors: 0,
        }
    }
}
