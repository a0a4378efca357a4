//! The classic PDEVS simulator (the ground truth): a root coordinator with an event list
//! of (time → cells scheduled then), and per step the protocol as the textbook states it —
//! collect the imminent cells, call their output functions, route every message through
//! the couplings into the receivers' bags, then let every imminent or influenced cell take
//! δint, δext or δconf and reschedule it at last + ta. No array sweeps over all cells, no
//! GPU ideas: the work of a step is proportional to its imminent and influenced cells.

use super::{Bag, CellArrays, CellRule, CellSpace, DevsSim, DevsStep, PASSIVE};
use std::collections::BTreeMap;

/// A cell space run by the classic PDEVS protocol.
pub struct Sequential<R: CellRule> {
    rule: R,
    /// States, last and next times, the step log.
    arrays: CellArrays,
    /// The event list: time → cells scheduled for it. A cell whose schedule moved (an
    /// external transition) leaves a stale entry behind, skipped because its `next` differs.
    schedule: BTreeMap<u32, Vec<u32>>,
    /// Bags of the step in progress, and the cells that received something.
    bags: Vec<Bag>,
    influenced: Vec<u32>,
    imminent_flag: Vec<bool>,
}

impl<R: CellRule> Sequential<R> {
    /// Every cell initialised at time 0: last = 0, next = ta(s).
    pub fn new(space: CellSpace, rule: R) -> Self {
        let arrays = CellArrays::new(space, &rule);
        let n = arrays.cells.len();
        let mut schedule: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for (c, &t) in arrays.next.iter().enumerate() {
            if t != PASSIVE {
                schedule.entry(t).or_default().push(c as u32);
            }
        }
        let mut sim = Self {
            rule,
            arrays,
            schedule,
            bags: vec![Bag::default(); n],
            influenced: Vec::new(),
            imminent_flag: vec![false; n],
        };
        sim.prune();
        sim
    }

    /// Drops the first buckets of the event list while none of their cells is still due
    /// then (every entry moved by an external transition), so that the first key is the
    /// true next time.
    fn prune(&mut self) {
        while let Some(mut first) = self.schedule.first_entry() {
            let t = *first.key();
            let next = &self.arrays.next;
            first.get_mut().retain(|&c| next[c as usize] == t);
            if !first.get().is_empty() {
                return;
            }
            first.remove();
        }
    }

    /// last = t, next = t + ta, and the event list entry.
    fn reschedule(&mut self, c: u32, t: u32) {
        let i = c as usize;
        self.arrays.last[i] = t;
        let ta = self.rule.ta(&self.arrays.cells[i]);
        self.arrays.next[i] = if ta == PASSIVE {
            PASSIVE
        } else {
            t.saturating_add(ta)
        };
        if self.arrays.next[i] != PASSIVE {
            self.schedule
                .entry(self.arrays.next[i])
                .or_default()
                .push(c);
        }
    }
}

impl<R: CellRule + Send> DevsSim for Sequential<R> {
    /// Time of the next step: the earliest scheduled event ([`PASSIVE`]: none left).
    fn next_time(&self) -> u32 {
        self.schedule.keys().next().copied().unwrap_or(PASSIVE)
    }

    /// Takes the step at [`Sequential::next_time`] (nothing when no event is left).
    fn step(&mut self) {
        let Some((t, mut due)) = self.schedule.pop_first() else {
            return;
        };
        // the imminent cells: scheduled for t and still due then, each once
        due.sort_unstable();
        due.dedup();
        due.retain(|&c| self.arrays.next[c as usize] == t);
        let mut record = DevsStep {
            t,
            imminent: due.len() as u32,
            ..DevsStep::default()
        };
        // output and routing: every imminent cell's message goes to every coupled cell
        let mut coupled = [0u32; 9];
        for &c in &due {
            self.imminent_flag[c as usize] = true;
            let Some(y) = self.rule.output(&self.arrays.cells[c as usize]) else {
                continue;
            };
            let n = self.arrays.space.neighbours(c, &mut coupled);
            for &j in &coupled[..n] {
                let bag = &mut self.bags[j as usize];
                if bag.count == 0 {
                    self.influenced.push(j);
                }
                bag.count += 1;
                bag.sum += y;
                record.messages += 1;
            }
        }
        // transitions of the imminent cells
        for &c in &due {
            let i = c as usize;
            let bag = std::mem::take(&mut self.bags[i]);
            if bag.count == 0 {
                self.rule.internal(&mut self.arrays.cells[i]);
                record.internal += 1;
            } else {
                self.rule.confluent(&mut self.arrays.cells[i], bag);
                record.confluent += 1;
            }
            self.reschedule(c, t);
        }
        // external transitions of the influenced cells that were not imminent
        for k in 0..self.influenced.len() {
            let c = self.influenced[k];
            let i = c as usize;
            if self.imminent_flag[i] {
                continue;
            }
            let bag = std::mem::take(&mut self.bags[i]);
            let elapsed = t - self.arrays.last[i];
            self.rule.external(&mut self.arrays.cells[i], elapsed, bag);
            record.external += 1;
            self.reschedule(c, t);
        }
        self.influenced.clear();
        for &c in &due {
            self.imminent_flag[c as usize] = false;
        }
        self.arrays.log.push(record);
        self.prune();
    }

    fn arrays(&self) -> &CellArrays {
        &self.arrays
    }
}
