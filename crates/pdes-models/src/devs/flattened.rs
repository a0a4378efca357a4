//! The flattened coordinator on the CPU: the GPU's twin (paper 004 Figs. 5, 6, 8). A step
//! is the paper's four phases over arrays of all cells:
//! 1. output: an imminent cell (next = t) emits λ(s);
//! 2. route: each cell pulls the outputs of the cells coupled to it into its in-bag;
//! 3. transition: δint / δconf (imminent), δext (input, not imminent), then last and next;
//! 4. next time: t = min over every cell's next.
//!
//! Phases 1–3 read only the state at t, so a cell's new state depends on its neighbours'
//! states at t and nothing else: both twins fuse them into one sweep that computes each
//! receiver's bag from its senders' states (λ evaluated by each receiver) and writes the new
//! state into a second set of arrays, swapped in after the sweep — no out-bag or in-bag
//! array between phases. The order of cells never matters, which is what lets the GPU run
//! one thread per cell and this twin the sweep on every core (rayon's data-parallel loops).

use super::{Bag, Cell, CellArrays, CellRule, CellSpace, DevsSim, DevsStep, PASSIVE};
use rayon::prelude::*;

/// A cell space run by the flattened coordinator.
pub struct Flattened<R: CellRule> {
    rule: R,
    /// States, last and next times at t, the step log.
    arrays: CellArrays,
    /// The arrays the next step writes (swapped with `arrays`' after it).
    spare: Spare,
    /// The time of the next step (min over `next`).
    t: u32,
}

/// The second set of per-cell arrays of the double buffer.
#[derive(Default)]
struct Spare {
    cells: Vec<Cell>,
    last: Vec<u32>,
    next: Vec<u32>,
}

impl<R: CellRule> Flattened<R> {
    /// Every cell initialised at time 0 (last = 0, next = ta), then the first next time.
    pub fn new(space: CellSpace, rule: R) -> Self {
        let arrays = CellArrays::new(space, &rule);
        let t = arrays.next.iter().copied().min().unwrap_or(PASSIVE);
        let spare = Spare {
            cells: arrays.cells.clone(),
            last: arrays.last.clone(),
            next: arrays.next.clone(),
        };
        Self {
            rule,
            arrays,
            spare,
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
        let (a, rule) = (&self.arrays, &self.rule);
        // 1–3: each cell's bag from its senders' states at t, then its transition, into the
        // spare arrays; with each cell's counts and next time for the step's record and
        // 4. the next time (a min reduction over every cell)
        let (counts, least) = self
            .spare
            .cells
            .par_iter_mut()
            .zip(self.spare.last.par_iter_mut())
            .zip(self.spare.next.par_iter_mut())
            .enumerate()
            .map(|(c, ((s, last), next))| {
                let bag = pull(a, rule, c as u32, t);
                *s = a.cells[c];
                *last = a.last[c];
                *next = a.next[c];
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
        std::mem::swap(&mut self.arrays.cells, &mut self.spare.cells);
        std::mem::swap(&mut self.arrays.last, &mut self.spare.last);
        std::mem::swap(&mut self.arrays.next, &mut self.spare.next);
        let record = DevsStep {
            t,
            imminent: counts.internal + counts.confluent,
            ..counts
        };
        self.t = least;
        self.arrays.log.push(record);
    }
}

/// The in-bag of cell `c` at time `t`: the outputs of the coupled cells (itself included)
/// that are imminent at `t`, from their states in `a` (phases 1 and 2).
fn pull<R: CellRule>(a: &CellArrays, rule: &R, c: u32, t: u32) -> Bag {
    let mut coupled = [0u32; 9];
    let n = a.space.neighbours(c, &mut coupled);
    let mut bag = Bag::default();
    for &j in &coupled[..n] {
        let j = j as usize;
        if a.next[j] == t
            && let Some(y) = rule.output(&a.cells[j])
        {
            bag.count += 1;
            bag.sum += y;
        }
    }
    bag
}
