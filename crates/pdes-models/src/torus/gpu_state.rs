//! The torus's state as the GPU holds it: the words of every facility and token (the
//! blocked engine uploads them; the stepped engine writes its initial state on the GPU,
//! torus_init.wgsl, its replicas side by side), the words read back
//! decoded into a [`TorusState`] the CPU twin can compare, and the per-workgroup sums the GPU
//! keeps instead of per-facility ones.

use crate::queueing::queue_length;
use crate::torus::config::TorusConfig;
use crate::torus::state::{Facility, NONE, Token, TorusState};
use crate::torus::stats::Measures;
use pdes_gpu::kit::{join, split};
use rayon::prelude::*;

/// What the GPU sums per workgroup over completed services (from the warm-up on).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accumulated {
    /// Busy ticks of completed services.
    pub busy: u128,
    /// Sojourn ticks of completed visits.
    pub sojourn: u128,
    /// Completed visits.
    pub completions: u64,
}

impl Accumulated {
    /// Adds the sums to measures taken over a downloaded state, which holds only the
    /// services in progress (the GPU keeps no per-facility sums).
    pub fn add_to(self, m: &mut Measures) {
        m.busy += self.busy;
        m.sojourn = self.sojourn;
        m.completions = self.completions;
    }
}

/// The departure time of every facility, as the GPU keeps it (`dep`).
pub fn departure_words(state: &TorusState) -> Vec<[u32; 2]> {
    state
        .facilities
        .par_iter()
        .map(|f| split(f.departure))
        .collect()
}

/// Every facility's 32-byte record (common.wgsl, struct Fac): service start, serving word,
/// head; tail, the serving token's arrival time and visits.
pub fn fac_words(state: &TorusState) -> Vec<[[u32; 4]; 2]> {
    state
        .facilities
        .par_iter()
        .map(|f| {
            let [lo, hi] = split(f.service_start);
            let (serving, (arrived, visits)) = if f.serving == NONE {
                (NONE, ([0, 0], 0))
            } else {
                let t = &state.tokens[f.serving as usize];
                (f.serving | (f.route << 30), (split(t.arrived), t.visits))
            };
            [
                [lo, hi, serving, f.head],
                [f.tail, arrived[0], arrived[1], visits],
            ]
        })
        .collect()
}

/// Every token's 16-byte record: arrival time, next in its queue, visits.
pub fn token_words(state: &TorusState) -> Vec<[u32; 4]> {
    state
        .tokens
        .par_iter()
        .map(|t| [t.arrived as u32, (t.arrived >> 32) as u32, t.next, t.visits])
        .collect()
}

/// One torus's words as read back from the GPU (`last` only for interval/original).
pub struct StateWords<'a> {
    pub dep: &'a [[u32; 2]],
    pub last: Option<&'a [[u32; 2]]>,
    pub fac: &'a [[[u32; 4]; 2]],
    pub tok: &'a [[u32; 4]],
}

/// The CPU state of one torus of `cfg` run with `seed` from its GPU words; `offset` is its
/// first token's number on the GPU (replicas). Statistics fields are left zero.
pub fn decode_state(cfg: &TorusConfig, seed: u64, offset: u32, words: &StateWords) -> TorusState {
    let n1 = words.tok.len();
    // global token number → the replica's own
    let local = |t: u32| {
        if t == NONE {
            NONE
        } else {
            t.wrapping_sub(offset)
        }
    };
    let mut tokens: Vec<Token> = words
        .tok
        .iter()
        .map(|w| Token {
            arrived: join([w[0], w[1]]),
            next: local(w[2]),
            visits: w[3],
        })
        .collect();
    let facilities = (0..words.fac.len())
        .map(|f| {
            let [a, b] = words.fac[f];
            let w = a[2];
            let head = local(a[3]);
            let queued = queue_length(head, n1, |t| tokens[t as usize].next);
            Facility {
                departure: join(words.dep[f]),
                service_start: join([a[0], a[1]]),
                last_arrival: words.last.map_or(0, |l| join(l[f])),
                busy: 0,
                sojourn: 0,
                completions: 0,
                causality_errors: 0,
                serving: if w == NONE {
                    NONE
                } else {
                    local(w & 0x3fff_ffff)
                },
                route: if w == NONE { 0 } else { w >> 30 },
                head,
                tail: local(b[0]),
                queued,
            }
        })
        .collect::<Vec<Facility>>();
    // The GPU leaves a serving token's link stale (torus_depart.wgsl rewrites the record
    // whole when the token leaves); the CPU state clears it when service starts.
    for f in &facilities {
        if let Some(t) = tokens.get_mut(f.serving as usize) {
            t.next = NONE;
        }
    }
    TorusState {
        rows: cfg.model.rows,
        cols: cfg.model.cols,
        seed,
        law: cfg.service_law(),
        facilities,
        tokens,
        warmup: cfg.run.warmup_ticks(),
    }
}
