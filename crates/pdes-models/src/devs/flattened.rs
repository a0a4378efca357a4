//! The flattened coordinator on the CPU: the GPU's twin, phase for phase (paper 004 Figs.
//! 5, 6, 8). Every phase is a sweep over arrays of all cells, and every cell's work in a
//! phase reads only the previous phase's arrays, so the order of cells never matters —
//! which is what lets the GPU run one thread per cell (and this twin run each phase on
//! every core, rayon's data-parallel loops):
//! 1. output: an imminent cell (next = t) writes λ(s) into its out-bag, others clear it;
//! 2. route: each cell pulls the out-bags of the cells coupled to it into its in-bag;
//! 3. transition: δint / δconf (imminent), δext (input, not imminent), then last and next;
//! 4. next time: t = min over every cell's next.

use super::{Bag, CellArrays, CellRule, CellSpace, DevsSim, DevsStep, PASSIVE};
use rayon::prelude::*;

/// An empty out-bag (no message can have this value: messages are at most 1000).
pub const EMPTY: u32 = u32::MAX;

/// A cell space run by the flattened coordinator's four phases.
pub struct Flattened<R: CellRule> {
    rule: R,
    /// States, last and next times, the step log.
    arrays: CellArrays,
    outbox: Vec<u32>,
    inbox: Vec<Bag>,
    /// The time of the next step (min over `next`).
    t: u32,
}

impl<R: CellRule> Flattened<R> {
    /// Every cell initialised at time 0 (last = 0, next = ta), then the first next time.
    pub fn new(space: CellSpace, rule: R) -> Self {
        let arrays = CellArrays::new(space, &rule);
        let n = arrays.cells.len();
        let t = arrays.next.iter().copied().min().unwrap_or(PASSIVE);
        Self {
            rule,
            outbox: vec![EMPTY; n],
            inbox: vec![Bag::default(); n],
            arrays,
            t,
        }
    }
}

impl<R: CellRule + Send> DevsSim for Flattened<R> {
    fn arrays(&self) -> &CellArrays {
        &self.arrays
    }

    /// Time of the next step ([`PASSIVE`]: none).
    fn next_time(&self) -> u32 {
        self.t
    }

    /// Takes the step at [`Flattened::next_time`] (nothing when every cell is passive).
    fn step(&mut self) {
        let t = self.t;
        if t == PASSIVE {
            return;
        }
        let (space, rule) = (&self.arrays.space, &self.rule);
        // 1. output
        self.outbox
            .par_iter_mut()
            .zip(self.arrays.cells.par_iter())
            .zip(self.arrays.next.par_iter())
            .for_each(|((out, s), &next)| {
                *out = if next == t {
                    rule.output(s).unwrap_or(EMPTY)
                } else {
                    EMPTY
                };
            });
        // 2. route: pull from the senders
        let outbox = &self.outbox;
        self.inbox.par_iter_mut().enumerate().for_each(|(c, bag)| {
            let mut coupled = [0u32; 9];
            let n = space.neighbours(c as u32, &mut coupled);
            *bag = Bag::default();
            for &j in &coupled[..n] {
                let y = outbox[j as usize];
                if y != EMPTY {
                    bag.count += 1;
                    bag.sum += y;
                }
            }
        });
        // 3. transition, with each cell's counts and next time for the step's record and
        // 4. the next time (a min reduction over every cell)
        let (counts, least) = self
            .arrays
            .cells
            .par_iter_mut()
            .zip(self.arrays.last.par_iter_mut())
            .zip(self.arrays.next.par_iter_mut())
            .zip(self.inbox.par_iter())
            .map(|(((s, last), next), &bag)| {
                let mut r = DevsStep {
                    messages: bag.count,
                    ..DevsStep::default()
                };
                match (*next == t, bag.count > 0) {
                    (true, false) => {
                        rule.internal(s);
                        r.internal = 1;
                    }
                    (true, true) => {
                        rule.confluent(s, bag);
                        r.confluent = 1;
                    }
                    (false, true) => {
                        rule.external(s, t - *last, bag);
                        r.external = 1;
                    }
                    (false, false) => return (r, *next),
                }
                *last = t;
                let ta = rule.ta(s);
                *next = if ta == PASSIVE {
                    PASSIVE
                } else {
                    t.saturating_add(ta)
                };
                (r, *next)
            })
            .reduce(
                || (DevsStep::default(), PASSIVE),
                |(a, ma), (b, mb)| {
                    (
                        DevsStep {
                            t: 0,
                            imminent: 0,
                            messages: a.messages + b.messages,
                            internal: a.internal + b.internal,
                            external: a.external + b.external,
                            confluent: a.confluent + b.confluent,
                        },
                        ma.min(mb),
                    )
                },
            );
        let record = DevsStep {
            t,
            imminent: counts.internal + counts.confluent,
            ..counts
        };
        self.t = least;
        self.arrays.log.push(record);
    }
}
