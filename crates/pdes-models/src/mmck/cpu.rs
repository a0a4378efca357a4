//! The replications on the CPU: the same [`Replication`]s as the GPU's threads, spread
//! over the machine's cores (each thread takes a contiguous block of replications).

use super::config::MmckConfig;
use super::summary::Summary;
use super::{Replication, RunShape};
use pdes_core::sim::heap::NEVER;
use pdes_core::sim::{Budget, Engine, Report, SimError, StepRecord, StepTotals};
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
        now_of(&self.shape, &self.reps, self.horizon)
    }
    fn finished(&self) -> bool {
        self.reps.iter().all(|r| r.done(&self.shape))
    }
    fn totals(&self) -> StepTotals {
        totals_of(&self.reps)
    }
    fn step_log(&self) -> &[StepRecord] {
        &[]
    }
    fn samples(&self) -> Option<Vec<f64>> {
        Some(super::live::l_hats(&self.reps))
    }
    fn report(&mut self) -> Result<Report, SimError> {
        Ok(Report::of(&self.summary()))
    }
}

/// Where a set of replications stands: every event before `horizon` (the last time
/// budget's limit) is processed, and every running replication is at least at its own
/// last event; when all are done, the latest end.
pub fn now_of(shape: &RunShape, reps: &[Replication], horizon: Ticks) -> Ticks {
    reps.iter()
        .filter(|r| !r.done(shape))
        .map(|r| r.t)
        .min()
        .map(|t| t.max(horizon))
        .unwrap_or_else(|| reps.iter().map(|r| r.t).max().unwrap_or(0))
}

/// The counters of a set of replications: events, and steps as rounds of one event per
/// replication (the most events any replication processed).
pub fn totals_of(reps: &[Replication]) -> StepTotals {
    StepTotals {
        events: reps.iter().map(|r| r.events).sum(),
        steps: reps.iter().map(|r| r.events).max().unwrap_or(0),
        max_events_per_step: reps.len() as u64,
        steps_with_errors: 0,
    }
}
