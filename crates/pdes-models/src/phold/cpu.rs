//! PHOLD on the CPU: the sequential simulator (a calendar queue of pending events, one per
//! token, in the heap's (time, token) order; the ground truth) and the window algorithm's twin of the GPU engine (`shaders/phold.wgsl`): the
//! same pass over every token per step, the same bound, the same log.

use super::config::{PholdAlgorithm, PholdConfig};
use super::{Event, Law, NEVER};
use pdes_core::sim::calendar::CalendarQueue;
use pdes_core::sim::heap::Event as Pending;
use pdes_core::sim::{Budget, StepRecord, StepTotals};
use pdes_core::time::Ticks;

/// What both simulators hold: every token's pending event and the events counted per LP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PholdState {
    /// Token j's pending event.
    pub events: Vec<Event>,
    /// Events processed at each LP.
    pub counts: Vec<u32>,
}

impl PholdState {
    /// The initial events of `cfg`.
    pub fn new(cfg: &PholdConfig) -> Self {
        use rayon::prelude::*;
        let law = cfg.law();
        Self {
            // on all cores: 2^24 tokens' first draws took most of a GPU run's set-up
            events: (0..cfg.events_in_flight())
                .into_par_iter()
                .map(|j| law.initial(j, cfg.population))
                .collect(),
            counts: vec![0; cfg.lps as usize],
        }
    }

    /// Sums that any difference in the pending events changes: Σ times (wrapping) and Σ hops.
    pub fn checksums(&self) -> (u64, u64) {
        self.events.iter().fold((0u64, 0u64), |(t, h), e| {
            (t.wrapping_add(e.time), h + u64::from(e.hop))
        })
    }
}

/// Buckets ahead of the current one whose events' token records are prefetched (a bucket
/// is two mean gaps between events wide: about two events per four buckets).
const LOAD_TOKENS: u64 = 16;
/// Buckets ahead whose events' LP counters are prefetched (their token records have
/// arrived by then).
const LOAD_COUNTS: u64 = 8;
/// Buckets beyond LOAD_TOKENS whose lines are prefetched (their keys are read then).
const LOAD_BUCKETS: u64 = 8;

/// Software pipelining of the sequential run's cache misses, as the torus's sequential
/// simulator does: an event reads its token's record (16 bytes of 37 MB at 777,777 LPs ×
/// 3) and then its LP's counter — two dependent misses, and one event cannot start before
/// the last ends; but the queue knows the events due in the next buckets. So the token
/// records of the events LOAD_TOKENS buckets ahead are loaded, and for those LOAD_COUNTS
/// ahead, whose records have arrived, the LP counters. Only hints: the events processed
/// and their order do not depend on them.
#[inline(always)]
fn prefetch_ahead(queue: &CalendarQueue, loaded: &mut u64, state: &PholdState) {
    use pdes_core::sim::prefetch;
    let cur = queue.current_bucket();
    *loaded = (*loaded).max(cur);
    while *loaded < cur + LOAD_COUNTS {
        *loaded += 1;
        let tokens = *loaded + LOAD_TOKENS - LOAD_COUNTS;
        queue.prefetch_bucket_no(tokens + LOAD_BUCKETS);
        for k in queue.keys_in_bucket(tokens) {
            prefetch(state.events.as_ptr().wrapping_add(k as usize));
        }
        for k in queue.keys_in_bucket(*loaded) {
            if let Some(e) = state.events.get(k as usize) {
                prefetch(state.counts.as_ptr().wrapping_add(e.lp as usize));
            }
        }
    }
}

/// A PHOLD simulator on the CPU.
#[derive(Clone, Debug)]
pub struct CpuPhold {
    /// Its configuration.
    pub config: PholdConfig,
    /// The state.
    pub state: PholdState,
    law: Law,
    end: Ticks,
    lookahead: Ticks,
    /// Sequential only: (time, token) of every pending event. A calendar queue, as the
    /// torus's: each token has one pending event, so the torus's queue fits; a binary heap
    /// of 2.3 million events was a cache miss per level (1 M events/s, issue 32).
    queue: Option<CalendarQueue>,
    /// Sequential only: the last bucket number whose events' LP counters were prefetched
    /// (their token records were, LOAD_TOKENS − LOAD_COUNTS buckets further).
    loaded: u64,
    /// Window only: the least pending time.
    t_min: Ticks,
    /// Events of the last step whose successor went to another LP (a remote message).
    last_remote: u64,
    totals: StepTotals,
    log: pdes_core::sim::StepLog,
}

impl CpuPhold {
    /// The initial state of `cfg` with the simulator its algorithm names.
    pub fn new(cfg: &PholdConfig) -> Self {
        let state = PholdState::new(cfg);
        let queue = match cfg.algorithm {
            PholdAlgorithm::Sequential => {
                let pending: Vec<Pending> = state
                    .events
                    .iter()
                    .enumerate()
                    .map(|(j, e)| Pending {
                        time: e.time,
                        facility: j as u32,
                    })
                    .collect();
                Some(CalendarQueue::new(&pending))
            }
            PholdAlgorithm::Window => None,
        };
        let t_min = state.events.iter().map(|e| e.time).min().unwrap_or(NEVER);
        Self {
            law: cfg.law(),
            end: cfg.end_ticks(),
            lookahead: cfg.lookahead_ticks(),
            config: cfg.clone(),
            state,
            queue,
            loaded: 0,
            t_min,
            last_remote: 0,
            totals: StepTotals::default(),
            log: pdes_core::sim::StepLog::new(),
        }
    }

    /// The least pending event time.
    pub fn now(&self) -> Ticks {
        match self.config.algorithm {
            PholdAlgorithm::Sequential => self
                .queue
                .as_ref()
                .map_or(NEVER, |q| if q.is_empty() { NEVER } else { q.min_time() }),
            PholdAlgorithm::Window => self.t_min,
        }
    }

    /// Runs until the budget is spent or every event before the end time is processed
    /// (sequential: a step is one event).
    pub fn advance(&mut self, budget: Budget) {
        let (limit, mut left) = budget.limits(self.end);
        let limit = limit.min(self.end);
        match self.config.algorithm {
            PholdAlgorithm::Sequential => {
                while left > 0 && self.sequential_event(limit) {
                    left -= 1;
                }
            }
            PholdAlgorithm::Window => {
                while left > 0 && self.now() < limit {
                    self.window_step();
                    left -= 1;
                }
            }
        }
    }

    /// Processes the earliest event if it lies before `limit`; false when none does.
    fn sequential_event(&mut self, limit: Ticks) -> bool {
        let Some(queue) = self.queue.as_mut() else {
            return false;
        };
        // peek finds the minimum once; the pop that follows takes it where peek left it
        match queue.peek() {
            Some(first) if first.time < limit => {}
            _ => return false,
        }
        let Some(Pending { facility: j, .. }) = queue.pop() else {
            return false;
        };
        prefetch_ahead(queue, &mut self.loaded, &self.state);
        let e = self.state.events[j as usize];
        self.state.counts[e.lp as usize] += 1;
        let next = self.law.next(j, e);
        self.last_remote = u64::from(next.lp != e.lp);
        self.state.events[j as usize] = next;
        queue.push(Pending {
            time: next.time,
            facility: j,
        });
        self.totals.record(1, 0);
        true
    }

    /// One window: every event with t < min(t_min + lookahead, end), then the next t_min.
    fn window_step(&mut self) {
        let bound = (self.t_min + self.lookahead).min(self.end);
        let mut least = NEVER;
        let mut done = 0u64;
        let mut remote = 0u64;
        for (j, e) in self.state.events.iter_mut().enumerate() {
            if e.time < bound {
                self.state.counts[e.lp as usize] += 1;
                let next = self.law.next(j as u32, *e);
                remote += u64::from(next.lp != e.lp);
                *e = next;
                done += 1;
            }
            least = least.min(e.time);
        }
        self.last_remote = remote;
        self.log.push(StepRecord {
            t_min: self.t_min,
            bound: bound - 1,
            events: done,
            errors: 0,
        });
        self.totals.record(done, 0);
        self.t_min = least;
    }

    /// The exclusive bound of the next step: the window's min(t_min + lookahead, end); for
    /// sequential, just past the earliest event (the one it processes next). Events before
    /// it are what the heatmap outlines.
    pub fn next_bound(&self) -> Ticks {
        let t = self.now();
        match self.config.algorithm {
            PholdAlgorithm::Sequential => t.saturating_add(1).min(self.end),
            PholdAlgorithm::Window => t.saturating_add(self.lookahead).min(self.end),
        }
    }

    /// Messages of the last step (window) or event (sequential) that went to another LP;
    /// the others stayed at their LP.
    pub fn last_step_remote(&self) -> u64 {
        self.last_remote
    }

    /// Counters so far.
    pub fn totals(&self) -> &StepTotals {
        &self.totals
    }

    /// The window's steps (empty for sequential, whose steps are single events).
    pub fn log(&self) -> &pdes_core::sim::StepLog {
        &self.log
    }

    /// Whether every event before the end time has been processed.
    pub fn finished(&self) -> bool {
        self.now() >= self.end
    }
}
