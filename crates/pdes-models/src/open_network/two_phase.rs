//! `window` and `interval` for the open network on the CPU: the torus's two-phase step
//! (`crate::torus::two_phase`) with the external arrival stream as one more sender.
//!
//! One step: t_min = the earliest of every pending departure and the next external
//! arrival; the bound comes from [`StepRule`]; the departures phase completes every service
//! within the bound (a departing token goes to its line's next server, through the switch,
//! or out), and every external arrival within the bound creates its token; the arrivals
//! phase then applies all of them, per destination in (time, sender) order with the source
//! after every facility — the sequential simulator's tie order.
//!
//! Why `window` stays exact with arrivals from outside: service is never shorter than d,
//! so no token that arrives inside [t_min, t_min + d) can also depart inside it, and the
//! arrival stream does not depend on the network at all. Interval/boundary stamps every
//! event of the step, external arrivals included, with the boundary; interval/original
//! keeps their times and counts the arrivals older than one already seen.

use super::state::{NEVER, Next, OpenState};
use crate::queueing::StepRule;
use pdes_core::sim::{Budget, StepRecord, StepTotals};
use pdes_core::time::Ticks;

/// One token sent to a facility in a step's departures phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Sent {
    /// Destination facility (sorted first: the arrivals phase goes destination by destination).
    dest: u32,
    /// Time it arrives.
    time: Ticks,
    /// Sending facility, or the number of facilities for the external source.
    sender: u32,
    /// The source's arrival number (its sends in stream order; pool slots are reused in
    /// no particular order), 0 for facilities.
    order: u64,
    /// Pool slot.
    token: u32,
}

/// The stepped simulator of an open network.
#[derive(Clone, Debug)]
pub struct Stepped {
    /// Network state.
    pub state: OpenState,
    rule: StepRule,
    end: Ticks,
    sent: Vec<Sent>,
    /// Per facility, the step of its latest causality error (0: none; step 0 cannot have
    /// one), as the heatmap shows it.
    pub last_error_step: Vec<u32>,
    totals: StepTotals,
    log: pdes_core::sim::StepLog,
}

impl Stepped {
    /// A simulator of `state` with `rule`, processing every event earlier than `end`.
    pub fn new(state: OpenState, rule: StepRule, end: Ticks) -> Self {
        let k = state.facilities.len();
        Self {
            state,
            rule,
            end,
            sent: Vec::new(),
            last_error_step: vec![0; k],
            totals: StepTotals::default(),
            log: pdes_core::sim::StepLog::new(),
        }
    }

    /// The earliest pending event: a departure or the next external arrival.
    pub fn t_min(&self) -> Ticks {
        self.state
            .facilities
            .iter()
            .map(|f| f.departure)
            .min()
            .unwrap_or(NEVER)
            .min(self.state.next_arrival)
    }

    /// Lower bound on every pending event time.
    pub fn now(&self) -> Ticks {
        self.t_min().min(self.end)
    }

    /// Takes steps within `budget`.
    pub fn advance(&mut self, budget: Budget) {
        pdes_core::sim::advance_by_steps(self, budget, self.end, Self::t_min, Self::step);
    }

    /// One step from `t_min`.
    pub fn step(&mut self, t_min: Ticks) {
        let (bound, exec_at) = self.rule.bound(t_min, self.end);
        let k = self.state.facilities.len() as u32;
        let mut events = 0u64;
        self.sent.clear();
        // Departures phase (and the source's arrivals, created but not yet placed).
        for f in 0..k {
            let t = self.state.facilities[f as usize].departure;
            if t <= bound {
                let time = exec_at.unwrap_or(t);
                if let Next::Arrive { dest, token } = self.state.depart(f, time) {
                    self.sent.push(Sent {
                        dest,
                        time,
                        sender: f,
                        order: 0,
                        token,
                    });
                }
                events += 1;
            }
        }
        while self.state.next_arrival <= bound {
            let time = exec_at.unwrap_or(self.state.next_arrival);
            let order = self.state.arrivals;
            let (dest, token) = self.state.create(time);
            self.sent.push(Sent {
                dest,
                time,
                sender: k,
                order,
                token,
            });
            events += 1;
        }
        // Arrivals phase: per destination, in the sequential tie order.
        self.sent.sort_unstable();
        let mut errors = 0u64;
        for s in &self.sent {
            let before = self.state.facilities[s.dest as usize].causality_errors;
            self.state.arrive(s.dest, s.token, s.time);
            let new = self.state.facilities[s.dest as usize].causality_errors - before;
            if new > 0 {
                self.last_error_step[s.dest as usize] = self.totals.steps as u32;
            }
            errors += new;
        }
        self.totals.record(events, errors);
        self.log.push(StepRecord {
            t_min,
            bound,
            events,
            errors,
        });
    }
}

crate::queueing::simulator!(Stepped, OpenState, stepped);
