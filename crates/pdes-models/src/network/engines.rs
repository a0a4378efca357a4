//! The network's CPU simulators: `sequential` (one event at a time in (time, sender) order:
//! the ground truth) and the stepped `window` / `interval` (every event of [t_min, bound] at
//! once, in two phases, as the torus and the open network step).
//!
//! Why `window` reproduces `sequential` bit for bit: every service lasts at least d (the
//! configuration refuses a larger d, naming the station), so a token that arrives inside
//! [t_min, t_min + d) cannot also leave inside it — no event of a step causes another. Within
//! a station the departures are applied first, in (time, server) order, each handing its
//! server to the head of the queue as it stood before the step; then the step's arrivals, per
//! destination in (time, sender) order, each taking the server free the longest at the later
//! of its time and that server's. That is what the sequential order gives: an arrival that
//! came before a departure in the window queued behind the tokens already waiting, and starts
//! when the server it would have been handed becomes free.

use super::state::{NEVER, NetState, Next};
use crate::queueing::{StepRule, Violation, keep_violation};
use pdes_core::sim::{Budget, StepLog, StepRecord, StepTotals};
use pdes_core::time::Ticks;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The sequential simulator.
#[derive(Clone, Debug)]
pub struct Sequential {
    /// The state.
    pub state: NetState,
    /// Pending events as (time, sender): a server's departure (sender = its index) or a
    /// source's arrival (sender = servers + the source's index).
    heap: BinaryHeap<Reverse<(Ticks, u64)>>,
    end: Ticks,
    totals: StepTotals,
}

impl Sequential {
    /// A simulator of `state` that processes every event before `end`.
    pub fn new(state: NetState, end: Ticks) -> Self {
        let mut heap = BinaryHeap::new();
        for (k, s) in state.servers.iter().enumerate() {
            if s.departure != NEVER {
                heap.push(Reverse((s.departure, k as u64)));
            }
        }
        let servers = state.servers.len() as u64;
        for (i, s) in state.sources.iter().enumerate() {
            heap.push(Reverse((s.next, servers + i as u64)));
        }
        Self {
            state,
            heap,
            end,
            totals: StepTotals::default(),
        }
    }

    /// The earliest pending event.
    pub fn t_min(&self) -> Ticks {
        self.heap.peek().map_or(NEVER, |r| r.0.0)
    }

    /// Lower bound on every pending event.
    pub fn now(&self) -> Ticks {
        self.t_min().min(self.end)
    }

    /// Events within `budget`.
    pub fn advance(&mut self, budget: Budget) {
        pdes_core::sim::advance_by_steps(self, budget, self.end, Self::t_min, Self::event);
    }

    /// Puts a started service's departure on the list.
    fn started(&mut self, k: usize) {
        self.heap
            .push(Reverse((self.state.servers[k].departure, k as u64)));
    }

    /// The earliest event, at `t`.
    fn event(&mut self, t: Ticks) {
        let Some(Reverse((_, sender))) = self.heap.pop() else {
            return;
        };
        let servers = self.state.servers.len() as u64;
        let (dest, token) = if sender < servers {
            let k = sender as usize;
            let station = self.state.station_of(k);
            let next = self.state.depart(station, k, t);
            if self.state.servers[k].departure != NEVER {
                self.started(k);
            }
            match next {
                Next::Arrive { dest, token } => (dest, token),
                Next::Exit => {
                    self.totals.record(1, 0);
                    return;
                }
            }
        } else {
            let i = (sender - servers) as usize;
            let arrival = self.state.create(i, t);
            self.heap
                .push(Reverse((self.state.sources[i].next, sender)));
            arrival
        };
        if self.state.arrive(dest, token, t) {
            let k = self.server_of(dest, token);
            self.started(k);
        }
        // in time order no arrival is ever older than one already applied
        self.totals.record(1, 0);
    }

    /// The server of `station` now serving `token`.
    fn server_of(&self, station: u32, token: u32) -> usize {
        let (a, b) = (
            self.state.first_server[station as usize] as usize,
            self.state.first_server[station as usize + 1] as usize,
        );
        (a..b)
            .find(|&k| self.state.servers[k].token == token)
            .unwrap_or(a)
    }
}

/// One token sent in a step's first phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Sent {
    dest: u32,
    time: Ticks,
    /// The sending server, or servers + the source's index.
    sender: u64,
    /// The source's arrival number (0 for servers).
    order: u64,
    token: u32,
}

/// The stepped simulator (window, interval/original, interval/boundary).
#[derive(Clone, Debug)]
pub struct Stepped {
    /// The state.
    pub state: NetState,
    rule: StepRule,
    end: Ticks,
    sent: Vec<Sent>,
    due: Vec<(Ticks, usize)>,
    /// Per station, the step of its latest causality error (0: none).
    pub last_error_step: Vec<u32>,
    /// The most recent causality errors (at most [`crate::queueing::MAX_VIOLATIONS`]), for the window's
    /// list and arrow: the late token, its station and the station that sent it.
    pub violations: VecDeque<Violation>,
    totals: StepTotals,
    log: StepLog,
}

impl Stepped {
    /// A simulator of `state` with `rule`, processing every event before `end`.
    pub fn new(state: NetState, rule: StepRule, end: Ticks) -> Self {
        let n = state.stations.len();
        Self {
            state,
            rule,
            end,
            sent: Vec::new(),
            due: Vec::new(),
            last_error_step: vec![0; n],
            violations: VecDeque::new(),
            totals: StepTotals::default(),
            log: StepLog::new(),
        }
    }

    /// The earliest pending event.
    pub fn t_min(&self) -> Ticks {
        self.state.t_min()
    }

    /// The station a step's sender belongs to: a server's station (senders below the
    /// server count), else the station a source feeds.
    fn sending_station(&self, sender: u64) -> u32 {
        let servers = self.state.servers.len() as u64;
        if sender < servers {
            let after = self
                .state
                .first_server
                .partition_point(|&f| u64::from(f) <= sender);
            after.saturating_sub(1) as u32
        } else {
            self.state.sources[(sender - servers) as usize].station
        }
    }

    /// Lower bound on every pending event.
    pub fn now(&self) -> Ticks {
        self.t_min().min(self.end)
    }

    /// Steps within `budget`.
    pub fn advance(&mut self, budget: Budget) {
        pdes_core::sim::advance_by_steps(self, budget, self.end, Self::t_min, Self::step);
    }

    /// One step from `t_min`.
    pub fn step(&mut self, t_min: Ticks) {
        let (bound, exec_at) = self.rule.bound(t_min, self.end);
        let mut events = 0u64;
        self.sent.clear();
        // Departures, station by station, each station's in (time, server) order; the
        // services they start end past the bound under the window (not so under interval,
        // whose next step then goes back in time: its causality errors).
        for s in 0..self.state.stations.len() {
            let (a, b) = (
                self.state.first_server[s] as usize,
                self.state.first_server[s + 1] as usize,
            );
            self.due.clear();
            self.due.extend(
                (a..b)
                    .filter(|&k| self.state.servers[k].departure <= bound)
                    .map(|k| (self.state.servers[k].departure, k)),
            );
            self.due.sort_unstable();
            for i in 0..self.due.len() {
                let (t, k) = self.due[i];
                let time = exec_at.unwrap_or(t);
                if let Next::Arrive { dest, token } = self.state.depart(s as u32, k, time) {
                    self.sent.push(Sent {
                        dest,
                        time,
                        sender: k as u64,
                        order: 0,
                        token,
                    });
                }
                events += 1;
            }
        }
        let servers = self.state.servers.len() as u64;
        for i in 0..self.state.sources.len() {
            while self.state.sources[i].next <= bound {
                let time = exec_at.unwrap_or(self.state.sources[i].next);
                let order = self.state.sources[i].count;
                let (dest, token) = self.state.create(i, time);
                self.sent.push(Sent {
                    dest,
                    time,
                    sender: servers + i as u64,
                    order,
                    token,
                });
                events += 1;
            }
        }
        // Arrivals, per destination in the sequential order.
        self.sent.sort_unstable();
        let mut errors = 0u64;
        for s in &self.sent {
            let st = &self.state.stations[s.dest as usize];
            let (before, last) = (st.causality_errors, st.last_arrival);
            self.state.arrive(s.dest, s.token, s.time);
            let new = self.state.stations[s.dest as usize].causality_errors - before;
            if new > 0 {
                self.last_error_step[s.dest as usize] = self.totals.steps as u32;
                let source = self.sending_station(s.sender);
                keep_violation(
                    &mut self.violations,
                    Violation {
                        step: self.totals.steps,
                        facility: s.dest,
                        source,
                        token: s.token,
                        arrival: s.time,
                        last_arrival: last,
                    },
                );
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

crate::queueing::simulator!(Sequential, NetState);

crate::queueing::simulator!(Stepped, NetState, stepped);
