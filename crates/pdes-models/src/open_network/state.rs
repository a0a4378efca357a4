//! The open network's state: facilities (FIFO queues threaded through the token records,
//! as for the torus), a token pool with a free list, the external arrival stream and the
//! system-wide counters that make conservation checkable (arrivals − exits = tokens in the
//! system, at every moment).

use super::{Laws, OpenParams, arrival_words, bernoulli, choose, visit_words};
use pdes_core::time::Ticks;

pub use crate::queueing::{Facility, NEVER, NONE};

/// One token of the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// Which external arrival created it (keys its random numbers); `u64::MAX` when free.
    pub arrival: u64,
    /// When it entered the system.
    pub entered: Ticks,
    /// When it arrived at its current facility.
    pub arrived: Ticks,
    /// Services completed so far.
    pub visits: u32,
    /// Next token in the same queue (or in the free list), or [`NONE`].
    pub next: u32,
}

/// Where a departing token goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// To facility `dest` (the next server of its line, or through the switch).
    Arrive {
        /// Destination facility.
        dest: u32,
        /// Pool slot of the token.
        token: u32,
    },
    /// It left the system.
    Exit,
}

/// The network state.
#[derive(Clone, Debug)]
pub struct OpenState {
    /// Tandem lines.
    pub lines: u32,
    /// Servers per line.
    pub servers: u32,
    /// Random seed.
    pub seed: u64,
    /// Laws in ticks.
    pub laws: Laws,
    /// Facility `line * servers + position`.
    pub facilities: Vec<Facility>,
    /// The token pool (free slots are listed in `free`).
    pub tokens: Vec<Token>,
    /// Free pool slots (reused last-freed first).
    pub free: Vec<u32>,
    /// Time of the next external arrival.
    pub next_arrival: Ticks,
    /// External arrivals so far (also the next arrival's number).
    pub arrivals: u64,
    /// Tokens that left the system.
    pub exits: u64,
    /// Tokens in the system now.
    pub in_system: u64,
    /// Sum over the tokens that left at or after the warm-up of (exit − entry) ticks.
    pub system_time: u128,
    /// Tokens that left at or after the warm-up.
    pub exits_measured: u64,
    /// Sum over the tokens that left at or after the warm-up of (exit − max(entry,
    /// warm-up)) ticks: their part of ∫ tokens-in-system dt over [warm-up, horizon].
    pub area_exited: u128,
    /// Sum over the tokens in the system of max(entry, warm-up): with `area_exited` it gives
    /// ∫ tokens-in-system dt over [warm-up, horizon] for any horizon past the warm-up,
    /// whatever order the events were applied in (a step applies them facility by facility,
    /// not in time order).
    pub live_entered: u128,
    /// Statistics cover time from here on (`run.warmup` in ticks), as the torus's do: busy
    /// time is cut at it, a visit counts when it completes at or after it, a token's stay
    /// when it leaves at or after it, and the tokens in the system are averaged over
    /// [warm-up, horizon]. Each event decides from its own times.
    pub warmup: Ticks,
}

impl OpenState {
    /// An empty network (the paper gives no initial state; PDES Lab starts empty) whose
    /// first external arrival is scheduled.
    pub fn new(params: &OpenParams, laws: Laws, seed: u64) -> Self {
        Self {
            lines: params.lines,
            servers: params.servers_per_line,
            seed,
            laws,
            facilities: vec![Facility::IDLE; params.facilities() as usize],
            tokens: Vec::new(),
            free: Vec::new(),
            next_arrival: laws.gap(&arrival_words(seed, 0)),
            arrivals: 0,
            exits: 0,
            in_system: 0,
            system_time: 0,
            exits_measured: 0,
            area_exited: 0,
            live_entered: 0,
            warmup: 0,
        }
    }

    /// The same state with statistics collected from `warmup` (ticks) on.
    pub fn with_warmup(mut self, warmup: Ticks) -> Self {
        self.warmup = warmup;
        self
    }

    /// The external arrival due at `next_arrival`, taking effect at `t_exec` (its own time,
    /// or an interval boundary): a new token enters a uniformly chosen line at its first
    /// server, and the next arrival is scheduled from the true time. Returns the facility
    /// it entered, its pool slot, and whether it started service there.
    pub fn external_arrival_at(&mut self, t_exec: Ticks) -> (u32, u32, bool) {
        let (f, slot) = self.create(t_exec);
        (f, slot, self.arrive(f, slot, t_exec))
    }

    /// The external arrival due at `next_arrival`, at its own time (sequential). Returns
    /// the facility it entered and whether it started service there.
    pub fn external_arrival(&mut self) -> (u32, bool) {
        let (f, _, started) = self.external_arrival_at(self.next_arrival);
        (f, started)
    }

    /// Creates the token of the arrival due at `next_arrival` (entering at `t`) and
    /// schedules the next arrival; returns its first facility and pool slot.
    pub fn create(&mut self, t: Ticks) -> (u32, u32) {
        let k = self.arrivals;
        let words = arrival_words(self.seed, k);
        let line = choose(words[1], self.lines);
        let token = Token {
            arrival: k,
            entered: t,
            arrived: t,
            visits: 0,
            next: NONE,
        };
        let slot = match self.free.pop() {
            Some(s) => {
                self.tokens[s as usize] = token;
                s
            }
            None => {
                self.tokens.push(token);
                (self.tokens.len() - 1) as u32
            }
        };
        self.arrivals += 1;
        self.in_system += 1;
        self.live_entered += u128::from(t.max(self.warmup));
        self.next_arrival += self.laws.gap(&arrival_words(self.seed, k + 1));
        (line * self.servers, slot)
    }

    /// Puts `token` into service at `f` at time `t`.
    fn start_service(&mut self, f: u32, token: u32, t: Ticks) {
        let tok = self.tokens[token as usize];
        let words = visit_words(self.seed, tok.arrival, tok.visits);
        let fac = &mut self.facilities[f as usize];
        fac.serving = token;
        fac.service_start = t;
        fac.departure = t + self.laws.service.sample(&words);
    }

    /// `token` arrives at `f` at `t`: it starts service if the server is idle (at the later
    /// of `t` and when the server became free), else it joins the queue. Returns true when
    /// it started service.
    pub fn arrive(&mut self, f: u32, token: u32, t: Ticks) -> bool {
        self.tokens[token as usize].arrived = t;
        let fac = &mut self.facilities[f as usize];
        if t < fac.last_arrival {
            fac.causality_errors += 1;
        } else {
            fac.last_arrival = t;
        }
        if fac.serving == NONE {
            let start = t.max(fac.service_start);
            self.start_service(f, token, start);
            true
        } else {
            if fac.tail == NONE {
                fac.head = token;
            } else {
                self.tokens[fac.tail as usize].next = token;
            }
            fac.tail = token;
            fac.queued += 1;
            false
        }
    }

    /// Completes the service at `f`; the token leaves at `t_exec` (its departure time, or an
    /// interval boundary) and the next queued token starts. Returns where the token goes:
    /// the next server of its line, or after the last server out of the system (with
    /// probability P_exit) or through the zero-time switch to a uniformly chosen line.
    pub fn depart(&mut self, f: u32, t_exec: Ticks) -> Next {
        let warmup = self.warmup;
        let fac = &mut self.facilities[f as usize];
        let token = fac.serving;
        debug_assert_ne!(token, NONE, "departure from an idle facility");
        fac.busy += fac.departure.saturating_sub(fac.service_start.max(warmup));
        let tok = self.tokens[token as usize];
        if t_exec >= warmup {
            fac.completions += 1;
            fac.sojourn = fac.sojourn.wrapping_add(t_exec.wrapping_sub(tok.arrived));
        }
        let words = visit_words(self.seed, tok.arrival, tok.visits);
        self.tokens[token as usize].visits += 1;
        if fac.head == NONE {
            fac.serving = NONE;
            fac.departure = NEVER;
            fac.service_start = t_exec;
        } else {
            let next = fac.head;
            fac.head = self.tokens[next as usize].next;
            if fac.head == NONE {
                fac.tail = NONE;
            }
            fac.queued -= 1;
            self.tokens[next as usize].next = NONE;
            self.start_service(f, next, t_exec);
        }
        let position = f % self.servers;
        if position + 1 < self.servers {
            return Next::Arrive { dest: f + 1, token };
        }
        if bernoulli(words[1], self.laws.exit_q32) {
            let counted_from = tok.entered.max(warmup);
            if t_exec >= warmup {
                self.system_time += u128::from(t_exec - tok.entered);
                self.area_exited += u128::from(t_exec - counted_from);
                self.exits_measured += 1;
            }
            self.live_entered -= u128::from(counted_from);
            self.exits += 1;
            self.in_system -= 1;
            self.tokens[token as usize] = Token {
                arrival: u64::MAX,
                entered: 0,
                arrived: 0,
                visits: 0,
                next: NONE,
            };
            self.free.push(token);
            return Next::Exit;
        }
        let line = choose(words[2], self.lines);
        Next::Arrive {
            dest: line * self.servers,
            token,
        }
    }

    /// Checks conservation: every live token is in exactly one place, every free slot is
    /// free, and arrivals − exits = tokens in the system = tokens found. Returns that count.
    pub fn check_tokens(&self) -> Result<u64, String> {
        let mut seen = vec![false; self.tokens.len()];
        let mut found = 0u64;
        for (f, fac) in self.facilities.iter().enumerate() {
            let mut mark = |t: u32| -> Result<(), String> {
                let slot = seen
                    .get_mut(t as usize)
                    .ok_or_else(|| format!("facility {f} holds token slot {t} beyond the pool"))?;
                if *slot {
                    return Err(format!("token slot {t} is in two places (facility {f})"));
                }
                *slot = true;
                found += 1;
                Ok(())
            };
            if fac.serving != NONE {
                mark(fac.serving)?;
            }
            let (mut t, mut n) = (fac.head, 0);
            while t != NONE {
                mark(t)?;
                n += 1;
                t = self.tokens[t as usize].next;
            }
            if n != fac.queued {
                return Err(format!(
                    "facility {f}: queue holds {n} tokens, counter says {}",
                    fac.queued
                ));
            }
        }
        for &s in &self.free {
            if seen[s as usize] {
                return Err(format!("token slot {s} is free and in use"));
            }
        }
        if found != self.in_system || self.arrivals - self.exits != self.in_system {
            return Err(format!(
                "arrivals {} − exits {} = {}, tokens in the system {}, tokens found {found}",
                self.arrivals,
                self.exits,
                self.arrivals - self.exits,
                self.in_system
            ));
        }
        if self.tokens.len() - self.free.len() != found as usize {
            return Err(format!(
                "pool: {} slots, {} free, {found} in use",
                self.tokens.len(),
                self.free.len()
            ));
        }
        Ok(found)
    }

    /// Tokens at every facility (in service and queued), line by line.
    pub fn occupancy(&self) -> Vec<u32> {
        self.facilities
            .iter()
            .map(|f| f.queued + u32::from(f.serving != NONE))
            .collect()
    }

    /// Statistics as of `horizon` (≥ every processed event).
    pub fn measures(&self, horizon: Ticks) -> Measures {
        let mut busy = 0u128;
        let mut sojourn = 0i128;
        let mut completions = 0u64;
        let mut causality_errors = 0u64;
        for f in &self.facilities {
            busy += u128::from(f.busy);
            let from = f.service_start.max(self.warmup);
            if f.serving != NONE && from < horizon {
                busy += u128::from(horizon.min(f.departure) - from);
            }
            sojourn += i128::from(f.sojourn as i64);
            completions += f.completions;
            causality_errors += f.causality_errors;
        }
        // ∫ N dt over [warm-up, horizon] = Σ over the tokens that left since the warm-up of
        // (exit − max(entry, warm-up)) + Σ over those in the system (horizon − max(entry,
        // warm-up)); nothing before the warm-up ends
        let area = if horizon > self.warmup {
            self.area_exited + u128::from(self.in_system) * u128::from(horizon) - self.live_entered
        } else {
            0
        };
        Measures {
            horizon,
            facilities: self.facilities.len() as u64,
            busy,
            sojourn,
            completions,
            causality_errors,
            arrivals: self.arrivals,
            exits: self.exits,
            in_system: self.in_system,
            system_time: self.system_time,
            exits_measured: self.exits_measured,
            area,
            warmup: self.warmup,
        }
    }
}

/// The raw sums a summary is computed from (exact integers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Measures {
    /// Time the statistics cover, in ticks.
    pub horizon: Ticks,
    /// Facilities.
    pub facilities: u64,
    /// Busy ticks (completed services, plus the part of the current ones before the horizon).
    pub busy: u128,
    /// Sojourn ticks of completed visits (signed: see [`Facility::sojourn`]).
    pub sojourn: i128,
    /// Completed visits.
    pub completions: u64,
    /// Causality errors.
    pub causality_errors: u64,
    /// External arrivals.
    pub arrivals: u64,
    /// Exits.
    pub exits: u64,
    /// Tokens in the system at the horizon.
    pub in_system: u64,
    /// Sum of the times in the system of the tokens that left since the warm-up, in ticks.
    pub system_time: u128,
    /// Tokens that left since the warm-up.
    pub exits_measured: u64,
    /// ∫ tokens in system dt over [warm-up, horizon], in token-ticks.
    pub area: u128,
    /// The start of the time the measures cover (the warm-up), in ticks.
    pub warmup: Ticks,
}

impl Measures {
    /// Ticks the measures cover: horizon − warm-up (0 before the warm-up ends).
    pub fn covered(&self) -> Ticks {
        self.horizon.saturating_sub(self.warmup)
    }

    /// Time-average utilization over all facilities.
    pub fn utilization(&self) -> f64 {
        match self.covered() {
            0 => 0.0,
            c => self.busy as f64 / (self.facilities as f64 * c as f64),
        }
    }

    /// Mean sojourn per facility visit, in time units.
    pub fn mean_sojourn(&self) -> f64 {
        self.sojourn as f64 / self.completions.max(1) as f64 / pdes_core::time::TICKS_PER_UNIT
    }

    /// Time-average tokens in the system.
    pub fn mean_tokens_in_system(&self) -> f64 {
        match self.covered() {
            0 => 0.0,
            c => self.area as f64 / c as f64,
        }
    }

    /// Mean time from arrival to exit of the tokens that left, in time units.
    pub fn mean_system_time(&self) -> f64 {
        self.system_time as f64
            / self.exits_measured.max(1) as f64
            / pdes_core::time::TICKS_PER_UNIT
    }

    /// Exits per time unit.
    pub fn throughput(&self) -> f64 {
        match self.covered() {
            0 => 0.0,
            c => self.exits_measured as f64 / (c as f64 / pdes_core::time::TICKS_PER_UNIT),
        }
    }
}
