//! `event` on the CPU: quantized-state discrete-event simulation of the diffusion grid
//! (paper 001 Fig. 6, after Nutaro's QSS1). Every cell keeps its value `x` as of its own
//! last update time, its last published value `q`, and its rate computed from the published
//! values of itself and its neighbours. A cell's next event is when `x` has moved one
//! quantum from `q`; the event publishes the cell (`q = x`), which changes its own and its
//! neighbours' rates, so those cells are advanced to the event time and rescheduled in an
//! indexed priority queue. Between events every cell moves linearly, so the state at any
//! time is exact for the quantized system: no step is ever taken where nothing changes.

use crate::diffusion::config::DiffusionConfig;
use crate::diffusion::{Stencil, crossing_ticks};
use pdes_core::sim::heap::{IndexedHeap, NEVER};
use pdes_core::sim::{Budget, StepTotals};
use pdes_core::time::{TICKS_PER_UNIT, Ticks};

/// A quantized-state run.
#[derive(Clone, Debug)]
pub struct Qss {
    /// Value of every cell as of its `since` time.
    x: Vec<f32>,
    /// Last published value of every cell.
    q: Vec<f32>,
    /// Rate of every cell (from published values).
    rate: Vec<f32>,
    /// When `x` was last brought up to date.
    since: Vec<Ticks>,
    events: IndexedHeap,
    end: Ticks,
    rows: u32,
    cols: u32,
    stencil: Stencil,
    quantum: f32,
    /// Counters: a step is one event; `events` counts cells whose value it changed.
    pub totals: StepTotals,
}

/// `ticks` as f32 time units.
fn units(ticks: Ticks) -> f32 {
    (ticks as f64 / TICKS_PER_UNIT) as f32
}

impl Qss {
    /// Starts a run of `cfg` at time 0, every cell scheduled.
    pub fn new(cfg: &DiffusionConfig) -> Self {
        let m = &cfg.model;
        let n = m.cells() as usize;
        let q = vec![m.initial_value(); n];
        let mut s = Self {
            x: q.clone(),
            rate: vec![0.0; n],
            q,
            since: vec![0; n],
            events: IndexedHeap::new(&vec![NEVER; n]),
            end: cfg.end_ticks(),
            rows: m.rows,
            cols: m.cols,
            stencil: m.stencil(),
            quantum: cfg.run.quantum as f32,
            totals: StepTotals::default(),
        };
        for i in 0..n as u32 {
            s.reschedule(i, 0);
        }
        s
    }

    /// Recomputes the rate of cell `i` (already advanced to `now`) and its next event.
    fn reschedule(&mut self, i: u32, now: Ticks) {
        let (r, c) = (i / self.cols, i % self.cols);
        let f = self.stencil.rate_at(&self.q, self.rows, self.cols, r, c);
        self.rate[i as usize] = f;
        let at = crossing_ticks(self.quantum, self.x[i as usize], self.q[i as usize], f)
            .map_or(NEVER, |d| now.saturating_add(d));
        self.events.update(i, at);
    }

    /// Brings cell `i` to time `now`; true if its value changed.
    fn bring_to(&mut self, i: u32, now: Ticks) -> bool {
        let k = i as usize;
        let old = self.x[k];
        self.x[k] = self
            .stencil
            .advance(old, self.rate[k], units(now - self.since[k]));
        self.since[k] = now;
        self.x[k] != old
    }

    /// The cells whose rate depends on cell `i`: itself and its neighbours in the grid
    /// (a fixed array and a count: this runs once per event, so it must not allocate).
    fn affected(&self, i: u32) -> ([u32; 5], usize) {
        let (r, c, cols, rows) = (i / self.cols, i % self.cols, self.cols, self.rows);
        let mut cells = [i; 5];
        let mut n = 1;
        for (present, j) in [
            (c > 0, i.wrapping_sub(1)),
            (c + 1 < cols, i + 1),
            (r > 0, i.wrapping_sub(cols)),
            (r + 1 < rows, i + cols),
        ] {
            if present {
                cells[n] = j;
                n += 1;
            }
        }
        (cells, n)
    }

    /// Processes the earliest event; false if none is left before the end time.
    pub fn step(&mut self) -> bool {
        let Some((now, cell)) = self.events.peek() else {
            return false;
        };
        if now >= self.end {
            return false;
        }
        let mut changed = 0;
        let (cells, n) = self.affected(cell);
        for &j in &cells[..n] {
            changed += u64::from(self.bring_to(j, now));
        }
        self.q[cell as usize] = self.x[cell as usize];
        for &j in &cells[..n] {
            self.reschedule(j, now);
        }
        self.totals.record(changed, 0);
        true
    }

    /// Lower bound on every pending event (the end time once none is left before it).
    pub fn now(&self) -> Ticks {
        self.events
            .peek()
            .map_or(self.end, |(t, _)| t.min(self.end))
    }

    /// Advances within `budget` (a step is one event).
    pub fn advance(&mut self, budget: Budget) {
        let (limit, max_steps) = budget.limits(self.end);
        let mut n = 0;
        while n < max_steps && self.now() < limit && self.step() {
            n += 1;
        }
    }

    /// Every cell's value at time `t` (not before any cell's last update).
    pub fn values_at(&self, t: Ticks) -> Vec<f32> {
        (0..self.x.len() as u32)
            .map(|i| self.value_at(i, t))
            .collect()
    }

    /// One cell's value at time `t`.
    pub fn value_at(&self, cell: u32, t: Ticks) -> f32 {
        let k = cell as usize;
        self.stencil.advance(
            self.x[k],
            self.rate[k],
            units(t.saturating_sub(self.since[k])),
        )
    }
}
