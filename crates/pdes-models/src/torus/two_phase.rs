//! `window` and `interval`: the two-phase step of Sang et al. (2019) and Park & Fishwick
//! (2009), on the CPU. This is the twin of the GPU engine (`gpu/torus.rs` and
//! `shaders/torus_*.wgsl`): the same phases over the same per-facility state, so the GPU
//! is checked against it exactly.
//!
//! One step:
//! 1. t_min = the earliest pending departure (a reduction on the GPU);
//! 2. the bound: `window` takes every event with t < t_min + d; `interval` every event
//!    with t ≤ B, B the smallest multiple of d ≥ t_min; all bounds are capped below the
//!    end time;
//! 3. departures phase: every facility whose departure is within the bound completes it
//!    and starts its next queued token (at its own time, or at B for `boundary`);
//! 4. arrivals phase: every facility pulls the tokens its four neighbours sent it, sorts
//!    them by (time, sending facility) — the sequential tie order — and accepts them.
//!
//! Why `window` is exact: service is never shorter than d, so nothing created in a step
//! can fall before t_min + d; every event of the step was already pending and they do not
//! influence each other. The window is half-open, [t_min, t_min + d), because times are
//! integer ticks: a service of exactly d ticks started at t_min ends at t_min + d, which
//! belongs to the next step. (The papers write ≤ with real-valued times; the difference
//! has probability zero there.)

use super::state::{NEVER, NONE, TorusState};
use crate::torus;
use pdes_core::sim::{Budget, StepRecord, StepTotals};
use pdes_core::time::Ticks;

pub use crate::queueing::StepRule;

/// What a facility sent in the current step's departures phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sent {
    token: u32,
    dir: u32,
    time: Ticks,
}

const NOTHING_SENT: Sent = Sent {
    token: NONE,
    dir: 0,
    time: 0,
};

/// The stepped (window / interval) simulator of a torus network.
#[derive(Clone, Debug)]
pub struct Stepped {
    /// Network state.
    pub state: TorusState,
    rule: StepRule,
    end: Ticks,
    outbox: Vec<Sent>,
    totals: StepTotals,
    log: pdes_core::sim::StepLog,
    /// Facilities that saw a causality error in the last step.
    pub last_step_errors: Vec<u32>,
    /// Per facility: index of the step of its latest causality error (0: none), as the
    /// GPU keeps it (`fac.w`) for the heatmap.
    pub last_error_step: Vec<u32>,
    /// The most recent causality errors (at most [`MAX_VIOLATIONS`]), for the inspector.
    pub violations: std::collections::VecDeque<Violation>,
}

pub use crate::queueing::{MAX_VIOLATIONS, Violation, keep_violation};

impl Stepped {
    /// A simulator of `state` under `rule` that processes every event earlier than `end`.
    pub fn new(state: TorusState, rule: StepRule, end: Ticks) -> Self {
        let k = state.facilities.len();
        Self {
            state,
            rule,
            end,
            outbox: vec![NOTHING_SENT; k],
            totals: StepTotals::default(),
            log: pdes_core::sim::StepLog::new(),
            last_step_errors: Vec::new(),
            last_error_step: vec![0; k],
            violations: std::collections::VecDeque::new(),
        }
    }

    /// The earliest pending departure.
    pub fn t_min(&self) -> Ticks {
        self.state
            .facilities
            .iter()
            .map(|f| f.departure)
            .min()
            .unwrap_or(NEVER)
    }

    /// Runs steps until the budget or the end time is reached.
    pub fn advance(&mut self, budget: Budget) {
        pdes_core::sim::advance_by_steps(self, budget, self.end, Self::t_min, Self::step);
    }

    /// One two-phase step starting at `t_min`.
    pub fn step(&mut self, t_min: Ticks) {
        let (bound, exec_at) = self.rule.bound(t_min, self.end);
        let (rows, cols) = (self.state.rows, self.state.cols);
        let k = self.state.facilities.len() as u32;
        // Departures phase.
        let mut events = 0u64;
        for f in 0..k {
            let t = self.state.facilities[f as usize].departure;
            if t <= bound {
                let time = exec_at.unwrap_or(t);
                let dep = self.state.depart(f, time);
                self.outbox[f as usize] = Sent {
                    token: dep.token,
                    dir: dep.dir,
                    time,
                };
                events += 1;
            }
        }
        // Arrivals phase: each facility pulls from its four neighbours.
        self.last_step_errors.clear();
        let mut errors = 0u64;
        for g in 0..k {
            let mut arrivals = [(0 as Ticks, 0u32, 0u32); 4];
            let mut n = 0;
            for dir in 0..4 {
                let h = torus::neighbour(rows, cols, g, torus::opposite(dir));
                let sent = self.outbox[h as usize];
                if sent.token != NONE && sent.dir == dir {
                    arrivals[n] = (sent.time, h, sent.token);
                    n += 1;
                }
            }
            if n == 0 {
                continue;
            }
            arrivals[..n].sort_unstable();
            let before = self.state.facilities[g as usize].causality_errors;
            for &(time, source, token) in &arrivals[..n] {
                let last = self.state.facilities[g as usize].last_arrival;
                self.state.arrive(g, token, time);
                if time < last {
                    keep_violation(
                        &mut self.violations,
                        Violation {
                            step: self.totals.steps,
                            facility: g,
                            source,
                            token,
                            arrival: time,
                            last_arrival: last,
                        },
                    );
                }
            }
            errors += self.state.facilities[g as usize].causality_errors - before;
            if self.state.facilities[g as usize].causality_errors != before {
                self.last_step_errors.push(g);
                self.last_error_step[g as usize] = self.totals.steps as u32;
            }
        }
        for s in &mut self.outbox {
            s.token = NONE;
        }
        self.totals
            .record(events, self.last_step_errors.len() as u64);
        self.log.push(StepRecord {
            t_min,
            bound,
            events,
            errors,
        });
    }

    /// Lower bound on every pending event time.
    pub fn now(&self) -> Ticks {
        self.t_min()
    }

    /// True when every event before the end time has been processed.
    pub fn finished(&self) -> bool {
        self.t_min() >= self.end
    }
}

crate::queueing::simulator!(Stepped, TorusState, stepped);
