//! The state of a torus network on the CPU, and the three operations every algorithm is
//! built from: start a service, complete a departure, accept an arrival.
//!
//! Queues are intrusive FIFO lists threaded through the tokens (`Token::next`), so a queue
//! can hold any number of tokens, nothing is allocated per event, and the GPU keeps the
//! same representation in its buffers.

use crate::torus::{self, ServiceLaw, TorusParams};
use pdes_core::rng;
use pdes_core::sim::memory::huge_vec;
use pdes_core::time::Ticks;

pub use crate::queueing::{Facility, NEVER, NONE};

/// Bit 31 of a heatmap cell's first word: the facility has an event in the next step (the
/// token count is the low 31 bits). Set by every torus engine, CPU and GPU alike.
pub const NEXT_STEP_BIT: u32 = pdes_gpu::NEXT_STEP_BIT;

/// One token: where it is in its queue and how far along its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// Arrival time at its current facility.
    pub arrived: Ticks,
    /// Next token in the same queue, or [`NONE`].
    pub next: u32,
    /// Completed services so far (the visit counter of the random stream).
    pub visits: u32,
}

/// The token that just left a facility and where it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Departure {
    /// The departing token.
    pub token: u32,
    /// Routing direction (index into [`torus::DIRECTIONS`]).
    pub dir: u32,
    /// Destination facility.
    pub dest: u32,
}

/// Full state of a torus network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TorusState {
    /// Rows of the torus.
    pub rows: u32,
    /// Columns of the torus.
    pub cols: u32,
    /// Random seed.
    pub seed: u64,
    /// Service-time law in ticks.
    pub law: ServiceLaw,
    /// Facilities, row-major.
    pub facilities: Vec<Facility>,
    /// Tokens; token `f * P + k` starts at facility `f`.
    pub tokens: Vec<Token>,
    /// Statistics cover time from here on (`run.warmup` in ticks): busy time is cut at it,
    /// and a visit counts when it completes at or after it. Each event decides from its own
    /// timestamps, so the cut does not depend on how events are grouped into steps.
    pub warmup: Ticks,
}

impl TorusState {
    /// The initial state: P tokens at every facility, the first in service from time 0.
    pub fn new(params: &TorusParams, law: ServiceLaw, seed: u64) -> Self {
        let p = params.tokens_per_facility;
        let k = params.facilities();
        let mut s = Self {
            rows: params.rows,
            cols: params.cols,
            seed,
            law,
            facilities: huge_vec(k as usize, Facility::IDLE),
            tokens: huge_vec(
                params.tokens() as usize,
                Token {
                    arrived: 0,
                    next: NONE,
                    visits: 0,
                },
            ),
            warmup: 0,
        };
        for f in 0..k {
            for j in 0..p {
                s.arrive(f, f * p + j, 0);
            }
        }
        s
    }

    /// The facility holding `token` — in service there or waiting in its queue — or `None`
    /// for a token the state does not have. A scan of every facility and queue: for the
    /// window's "follow a token", on grids it draws.
    pub fn token_place(&self, token: u32) -> Option<u32> {
        if token as usize >= self.tokens.len() {
            return None;
        }
        self.facilities.iter().enumerate().find_map(|(f, fac)| {
            if fac.serving == token {
                return Some(f as u32);
            }
            let mut k = fac.head;
            while k != NONE {
                if k == token {
                    return Some(f as u32);
                }
                k = self.tokens[k as usize].next;
            }
            None
        })
    }

    /// The same state with statistics collected from `warmup` (ticks) on.
    pub fn with_warmup(mut self, warmup: Ticks) -> Self {
        self.warmup = warmup;
        self
    }

    /// Puts `token` into service at `f` at time `t`: draws its service time and its next
    /// direction from the words of (seed, token, visit).
    #[inline]
    fn start_service(&mut self, f: u32, token: u32, t: Ticks) {
        let words = rng::token_words(self.seed, token, self.tokens[token as usize].visits);
        let departure = t + self.law.sample(&words);
        let fac = &mut self.facilities[f as usize];
        fac.route = torus::route(&words);
        fac.serving = token;
        fac.service_start = t;
        fac.departure = departure;
    }

    /// Completes the service at `f`. The token leaves at `t_exec` (its own departure time
    /// for exact algorithms, the interval boundary for clustered ones); the next queued
    /// token, if any, starts service at `t_exec`.
    #[inline]
    pub fn depart(&mut self, f: u32, t_exec: Ticks) -> Departure {
        let warmup = self.warmup;
        let fac = &mut self.facilities[f as usize];
        let token = fac.serving;
        debug_assert_ne!(token, NONE, "departure from an idle facility");
        fac.busy += fac.departure.saturating_sub(fac.service_start.max(warmup));
        let tok = &mut self.tokens[token as usize];
        if t_exec >= warmup {
            // interval/original can start a token stamped later than the departure that
            // frees the server: its sojourn is negative; the sums wrap (two's complement) as
            // on the GPU
            fac.sojourn = fac.sojourn.wrapping_add(t_exec.wrapping_sub(tok.arrived));
            fac.completions += 1;
        }
        tok.visits += 1;
        let dir = fac.route;
        if fac.head == NONE {
            fac.serving = NONE;
            fac.route = 0;
            fac.departure = NEVER;
            fac.service_start = t_exec; // now: free since
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
        Departure {
            token,
            dir,
            dest: torus::neighbour(self.rows, self.cols, f, dir),
        }
    }

    /// `token` arrives at `f` at time `t`: it starts service if the server is idle (at the
    /// later of `t` and the time the server became free), else it joins the queue.
    /// Returns true when it started service.
    #[inline]
    pub fn arrive(&mut self, f: u32, token: u32, t: Ticks) -> bool {
        self.tokens[token as usize].arrived = t;
        let fac = &mut self.facilities[f as usize];
        if t < fac.last_arrival {
            fac.causality_errors += 1;
        } else {
            fac.last_arrival = t;
        }
        if fac.serving == NONE {
            let start = t.max(fac.service_start); // idle: service_start is "free since"
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

    /// Checks that every token is in exactly one place (in service or in one queue) and
    /// that every queue's length matches its list. Returns the number of tokens found.
    pub fn check_tokens(&self) -> Result<u64, String> {
        let mut seen = vec![false; self.tokens.len()];
        let mut mark = |t: u32, f: usize| -> Result<(), String> {
            let slot = seen
                .get_mut(t as usize)
                .ok_or_else(|| format!("facility {f}: bad token id {t}"))?;
            if *slot {
                return Err(format!(
                    "token {t} is in two places (found again at facility {f})"
                ));
            }
            *slot = true;
            Ok(())
        };
        for (f, fac) in self.facilities.iter().enumerate() {
            if fac.serving != NONE {
                mark(fac.serving, f)?;
            } else if fac.head != NONE {
                return Err(format!("facility {f} is idle with a non-empty queue"));
            }
            let (mut t, mut n) = (fac.head, 0u32);
            while t != NONE {
                mark(t, f)?;
                n += 1;
                t = self.tokens[t as usize].next;
            }
            if n != fac.queued {
                return Err(format!(
                    "facility {f}: queue holds {n} tokens but counts {}",
                    fac.queued
                ));
            }
        }
        match seen.iter().position(|s| !s) {
            Some(t) => Err(format!(
                "token {t} was lost: it is in no queue and no server"
            )),
            None => Ok(self.tokens.len() as u64),
        }
    }

    /// Which facilities have an event in the next step: under a step rule, those whose
    /// departure lies within the bound of the step from the earliest one (`StepRule::bound`,
    /// before `end`); without one (sequential), the earliest departure alone (the lowest
    /// facility on a tie). What the heatmap outlines ([`NEXT_STEP_BIT`]).
    pub fn next_step(&self, rule: Option<crate::queueing::StepRule>, end: Ticks) -> Vec<bool> {
        let mut flags = vec![false; self.facilities.len()];
        let Some((first, t_min)) = self
            .facilities
            .iter()
            .enumerate()
            .map(|(i, f)| (i, f.departure))
            .min_by_key(|&(i, t)| (t, i))
        else {
            return flags;
        };
        if t_min == NEVER || t_min >= end {
            return flags;
        }
        match rule {
            Some(r) => {
                let bound = r.bound(t_min, end).0;
                for (flag, f) in flags.iter_mut().zip(&self.facilities) {
                    *flag = f.departure != NEVER && f.departure <= bound;
                }
            }
            None => flags[first] = true,
        }
        flags
    }

    /// Heatmap words: tokens (with [`NEXT_STEP_BIT`] where `next` says) and `second`.
    pub fn display_words(&self, next: &[bool], second: impl Iterator<Item = u32>) -> Vec<[u32; 2]> {
        self.occupancy()
            .into_iter()
            .zip(next)
            .zip(second)
            .map(|((o, &n), e)| [o | if n { NEXT_STEP_BIT } else { 0 }, e])
            .collect()
    }

    /// Tokens at each facility (queued plus the one in service), row-major.
    pub fn occupancy(&self) -> Vec<u32> {
        self.facilities
            .iter()
            .map(|f| f.queued + u32::from(f.serving != NONE))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_token_is_found_where_it_waits_or_is_served_and_after_it_moves() {
        let cfg = crate::preset::config_with("teaching-16x16", &["model.tokens_per_facility=3"])
            .unwrap()
            .get::<crate::torus::config::TorusConfig>()
            .unwrap()
            .clone();
        let mut s = super::TorusState::new(&cfg.model, cfg.service_law(), 1);
        // token f·P + k starts at facility f: the first in service, the others queued
        for token in [0, 1, 2, 3, 700, 767] {
            assert_eq!(s.token_place(token), Some(token / 3), "token {token}");
        }
        assert_eq!(s.token_place(768), None);
        // the token served at facility 5 departs and arrives where its route sends it
        let t = s.facilities[5].departure;
        let d = s.depart(5, t);
        assert_eq!(d.token, 15);
        s.arrive(d.dest, d.token, t);
        assert_eq!(s.token_place(15), Some(d.dest));
        assert_ne!(d.dest, 5);
        // the one queued behind it is now in service at 5
        assert_eq!(s.facilities[5].serving, 16);
        assert_eq!(s.token_place(16), Some(5));
    }
}
