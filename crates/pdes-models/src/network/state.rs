//! The network's state: each station's servers and its one FCFS queue (threaded through the
//! token records, as the torus keeps its own), a token pool with a free
//! list, the external arrival sources, and the sums the statistics come from — each an
//! exact integer that does not depend on the order in which a step applies its events.

use super::routes::{RouteTables, arrival_words, visit_counter, visit_words};
use super::service::ServiceTicks;
use super::spec::{EXIT, Network};
use pdes_core::rng::{neg_ln_q27, scale_q27};
use pdes_core::time::{TICKS_PER_UNIT, Ticks};

pub use crate::queueing::{NEVER, NONE};

/// One server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Server {
    /// When its service ends, or [`NEVER`] while idle.
    pub departure: Ticks,
    /// When its service started; while idle, since when it is free.
    pub since: Ticks,
    /// The token in service, or [`NONE`].
    pub token: u32,
}

/// One station's queue and sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct StationState {
    /// First queued token (not in service), or [`NONE`].
    pub head: u32,
    /// Last queued token, or [`NONE`].
    pub tail: u32,
    /// Tokens queued.
    pub queued: u32,
    /// Tokens present (queued and in service).
    pub present: u32,
    /// The latest arrival time applied (an earlier one after it is a causality error).
    pub last_arrival: Ticks,
    /// Busy ticks of completed services after the warm-up.
    pub busy: Ticks,
    /// Visits completed at or after the warm-up.
    pub completions: u64,
    /// Σ (departure − arrival) of those visits (wrapping: interval/original can make a
    /// visit's sojourn negative).
    pub sojourn: u64,
    /// Σ over visits that ended at or after the warm-up of (end − max(arrival, warm-up)).
    pub area_done: u128,
    /// Σ over the tokens present of max(arrival, warm-up).
    pub live_arrived: u128,
    /// Causality errors.
    pub causality_errors: u64,
}

/// One token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// Which token it is (keys its random words; its pool slot is reused in any order).
    pub id: u64,
    /// When it entered the network.
    pub entered: Ticks,
    /// When it arrived at its current station.
    pub arrived: Ticks,
    /// Services completed.
    pub visits: u32,
    /// Next token in the same queue, or [`NONE`].
    pub next: u32,
}

/// One external arrival stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    /// The station it feeds.
    pub station: u32,
    /// Mean gap in ticks.
    pub gap: u32,
    /// When its next arrival comes.
    pub next: Ticks,
    /// Arrivals so far (the next one's number).
    pub count: u64,
}

/// Where a departing token goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// To this station.
    Arrive {
        /// The station.
        dest: u32,
        /// Its pool slot.
        token: u32,
    },
    /// Out of the network.
    Exit,
}

/// The network state.
#[derive(Clone, Debug)]
pub struct NetState {
    /// Random seed.
    pub seed: u64,
    /// Each station's first server in `servers` (and one past the last).
    pub first_server: Vec<u32>,
    /// All servers, station by station.
    pub servers: Vec<Server>,
    /// Stations.
    pub stations: Vec<StationState>,
    /// Each station's service law.
    pub service: Vec<ServiceTicks>,
    /// Routes.
    pub routes: RouteTables,
    /// The token pool.
    pub tokens: Vec<Token>,
    /// Free pool slots.
    pub free: Vec<u32>,
    /// External sources.
    pub sources: Vec<Source>,
    /// Tokens at time 0 (ids below this are theirs; arrivals' ids follow).
    pub population: u64,
    /// Arrivals from outside so far.
    pub arrivals: u64,
    /// Tokens that left.
    pub exits: u64,
    /// Tokens in the network.
    pub in_system: u64,
    /// Σ (exit − entry) of the tokens that left at or after the warm-up.
    pub system_time: u128,
    /// Tokens that left at or after the warm-up.
    pub exits_measured: u64,
    /// Statistics cover time from here (ticks).
    pub warmup: Ticks,
}

impl NetState {
    /// The station holding the token in pool slot `slot` (in service or queued), or `None`
    /// where it holds none (the token left; the slot is free until the next arrival).
    /// Walks every server and queue: for the window's one followed token.
    pub fn token_station(&self, slot: u32) -> Option<u32> {
        let station_of = |k: usize| self.first_server.partition_point(|&f| f as usize <= k) - 1;
        if let Some(k) = self.servers.iter().position(|v| v.token == slot) {
            return Some(station_of(k) as u32);
        }
        self.stations
            .iter()
            .position(|st| {
                let mut t = st.head;
                while t != NONE {
                    if t == slot {
                        return true;
                    }
                    t = self.tokens[t as usize].next;
                }
                false
            })
            .map(|i| i as u32)
    }

    /// Every station's next event at once ([`NetState::next_event`] of each, in one pass
    /// over the servers and the sources: the heatmap's words of a million stations).
    pub fn next_events(&self) -> Vec<Ticks> {
        let mut next = vec![NEVER; self.stations.len()];
        for (i, n) in next.iter_mut().enumerate() {
            let (a, b) = (
                self.first_server[i] as usize,
                self.first_server[i + 1] as usize,
            );
            *n = self.servers[a..b]
                .iter()
                .map(|v| v.departure)
                .min()
                .unwrap_or(NEVER);
        }
        for v in &self.sources {
            let n = &mut next[v.station as usize];
            *n = (*n).min(v.next);
        }
        next
    }

    /// Station `i`'s next event: the earliest departure of its servers or arrival from
    /// its sources ([`NEVER`] for none).
    pub fn next_event(&self, i: usize) -> Ticks {
        let (a, b) = (
            self.first_server[i] as usize,
            self.first_server[i + 1] as usize,
        );
        let departure = self.servers[a..b].iter().map(|v| v.departure).min();
        let arrival = self
            .sources
            .iter()
            .filter(|v| v.station as usize == i)
            .map(|v| v.next)
            .min();
        departure.unwrap_or(NEVER).min(arrival.unwrap_or(NEVER))
    }

    /// The network at time 0: every station's population arrived, in token-id order
    /// station by station ([`NetState::place_population`]), each source's first arrival
    /// drawn.
    pub fn new(net: &Network, seed: u64, warmup: Ticks) -> Self {
        let mut state = Self::empty(net, seed, warmup);
        state.place_population(net);
        state
    }

    /// The network's constants (servers, service laws, routes, sources with their first
    /// arrival) with every station empty and no token: what a state read back from the GPU
    /// fills in (`GpuNetwork::download_state`).
    pub fn empty(net: &Network, seed: u64, warmup: Ticks) -> Self {
        let mut first_server = Vec::with_capacity(net.stations.len() + 1);
        let mut total = 0u32;
        for s in &net.stations {
            first_server.push(total);
            total += s.servers;
        }
        first_server.push(total);
        let idle = Server {
            departure: NEVER,
            since: 0,
            token: NONE,
        };
        let station = StationState {
            head: NONE,
            tail: NONE,
            ..StationState::default()
        };
        let sources: Vec<Source> = net
            .sources()
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                let gap = ((1.0 / net.stations[s as usize].arrival_rate) * TICKS_PER_UNIT)
                    .round()
                    .min(f64::from(u32::MAX)) as u32;
                Source {
                    station: s,
                    gap,
                    next: gap_of(gap, &arrival_words(seed, i as u32, 0)),
                    count: 0,
                }
            })
            .collect();
        Self {
            seed,
            first_server,
            servers: vec![idle; total as usize],
            stations: vec![station; net.stations.len()],
            service: net.stations.iter().map(|s| s.service.ticks()).collect(),
            routes: RouteTables::new(net),
            tokens: Vec::new(),
            free: Vec::new(),
            sources,
            population: net.population(),
            arrivals: 0,
            exits: 0,
            in_system: 0,
            system_time: 0,
            exits_measured: 0,
            warmup,
        }
    }

    /// A token record in a free slot (or a new one).
    pub(super) fn new_token(&mut self, id: u64, t: Ticks) -> u32 {
        let token = Token {
            id,
            entered: t,
            arrived: t,
            visits: 0,
            next: NONE,
        };
        self.in_system += 1;
        match self.free.pop() {
            Some(s) => {
                self.tokens[s as usize] = token;
                s
            }
            None => {
                self.tokens.push(token);
                (self.tokens.len() - 1) as u32
            }
        }
    }

    /// The arrival due at source `i` (at `next`), entering at `t` (its own time or an
    /// interval's boundary): its token, created, and the source's next arrival scheduled.
    /// Returns (station, pool slot). A token's id: after the population, arrival k of
    /// source i is population + k · sources + i (unique, and independent of the order).
    pub fn create(&mut self, i: usize, t: Ticks) -> (u32, u32) {
        let n = self.sources.len() as u64;
        let src = self.sources[i];
        let id = self.population + src.count * n + i as u64;
        let slot = self.new_token(id, t);
        self.arrivals += 1;
        let s = &mut self.sources[i];
        s.count += 1;
        s.next += gap_of(s.gap, &arrival_words(self.seed, i as u32, s.count));
        (src.station, slot)
    }

    /// `token` arrives at `station` at `t`: it takes the server free the longest (the
    /// earliest `since`, then the lowest index) if one is idle — starting at the later of
    /// `t` and that time — or joins the queue. Returns true when it started service.
    pub fn arrive(&mut self, station: u32, token: u32, t: Ticks) -> bool {
        let warmup = self.warmup;
        self.tokens[token as usize].arrived = t;
        let st = &mut self.stations[station as usize];
        if t < st.last_arrival {
            st.causality_errors += 1;
        } else {
            st.last_arrival = t;
        }
        st.present += 1;
        st.live_arrived += u128::from(t.max(warmup));
        let (a, b) = (
            self.first_server[station as usize] as usize,
            self.first_server[station as usize + 1] as usize,
        );
        let idle = (a..b)
            .filter(|&k| self.servers[k].token == NONE)
            .min_by_key(|&k| (self.servers[k].since, k));
        match idle {
            Some(k) => {
                let start = t.max(self.servers[k].since);
                self.start(station, k, token, start);
                true
            }
            None => {
                let st = &mut self.stations[station as usize];
                if st.tail == NONE {
                    st.head = token;
                } else {
                    self.tokens[st.tail as usize].next = token;
                }
                st.tail = token;
                st.queued += 1;
                false
            }
        }
    }

    /// Puts `token` into service at server `k` of `station` at `t`.
    fn start(&mut self, station: u32, k: usize, token: u32, t: Ticks) {
        let tok = self.tokens[token as usize];
        let (counter, key) = visit_counter(self.seed, tok.id, tok.visits);
        let words = visit_words(self.seed, tok.id, tok.visits);
        let service = self.service[station as usize].sample(&words, counter, key);
        self.servers[k] = Server {
            departure: t + service,
            since: t,
            token,
        };
    }

    /// Server `k` of `station` completes its service; the token leaves at `t` (its
    /// departure time or an interval's boundary) and the queue's head starts there. Returns
    /// where the token goes.
    pub fn depart(&mut self, station: u32, k: usize, t: Ticks) -> Next {
        let warmup = self.warmup;
        let server = self.servers[k];
        let token = server.token;
        let tok = self.tokens[token as usize];
        let to = self.destination(station, k);
        let st = &mut self.stations[station as usize];
        st.busy += server.departure.saturating_sub(server.since.max(warmup));
        let counted_from = tok.arrived.max(warmup);
        if t >= warmup {
            st.completions += 1;
            st.sojourn = st.sojourn.wrapping_add(t.wrapping_sub(tok.arrived));
            st.area_done += u128::from(t.saturating_sub(counted_from));
        }
        st.live_arrived -= u128::from(counted_from);
        st.present -= 1;
        self.tokens[token as usize].visits += 1;
        if st.head == NONE {
            self.servers[k] = Server {
                departure: NEVER,
                since: t,
                token: NONE,
            };
        } else {
            let next = st.head;
            st.head = self.tokens[next as usize].next;
            if st.head == NONE {
                st.tail = NONE;
            }
            st.queued -= 1;
            self.tokens[next as usize].next = NONE;
            self.start(station, k, next, t);
        }
        if to != EXIT {
            return Next::Arrive { dest: to, token };
        }
        if t >= warmup {
            self.system_time += u128::from(t - tok.entered);
            self.exits_measured += 1;
        }
        self.exits += 1;
        self.in_system -= 1;
        self.tokens[token as usize].id = u64::MAX;
        self.free.push(token);
        Next::Exit
    }

    /// Where the token in service at server `k` of `station` goes when it departs (the
    /// draw [`NetState::depart`] makes; the GPU engine keeps it beside the server from the
    /// service's start), or [`EXIT`] while the server is idle.
    pub fn destination(&self, station: u32, k: usize) -> u32 {
        let token = self.servers[k].token;
        if token == NONE {
            return EXIT;
        }
        let tok = self.tokens[token as usize];
        self.routes
            .draw(station, &visit_words(self.seed, tok.id, tok.visits))
    }

    /// The station of server `k`.
    pub fn station_of(&self, k: usize) -> u32 {
        (self.first_server.partition_point(|&f| f as usize <= k) - 1) as u32
    }

    /// The earliest pending event.
    pub fn t_min(&self) -> Ticks {
        let d = self
            .servers
            .iter()
            .map(|s| s.departure)
            .min()
            .unwrap_or(NEVER);
        self.sources
            .iter()
            .map(|s| s.next)
            .min()
            .unwrap_or(NEVER)
            .min(d)
    }
}

/// A gap of the arrival stream of mean `gap` ticks (word 0).
#[inline]
pub fn gap_of(gap: u32, words: &[u32; 4]) -> Ticks {
    scale_q27(neg_ln_q27(words[0]), gap)
}
