//! `timestepped` and `hybrid` on the CPU: every step advances every cell by one step h with
//! the five-point stencil (paper 001 Fig. 3 and Fig. 8). They differ only in h: fixed `dt`
//! for `timestepped`; for `hybrid`, the minimum over all cells of the time each needs to move
//! one quantum (Fig. 8 steps 1.2–1.3), capped at the stability bound. This is the CPU twin of
//! `shaders/diffusion.wgsl`: the same f32 operations in the same order.
//!
//! The grid is stored with a one-cell ring at the boundary temperature, so the inner loop has
//! no branches and the compiler vectorizes it (the baseline every speedup is measured
//! against should be a good CPU implementation, not a strawman). Since a cell's time to move
//! one quantum falls as its rate grows, hybrid's minimum over cells is
//! `quantum_ticks(max |rate|)`: one division per step, not one per cell.

use crate::diffusion::config::DiffusionAlgorithm;
use crate::diffusion::config::DiffusionConfig;
use crate::diffusion::{Stencil, quantum_ticks, step_units};
use pdes_core::sim::{Budget, StepRecord, StepTotals};
use pdes_core::time::{TICK_BITS, Ticks};

/// A synchronous diffusion run.
#[derive(Clone, Debug)]
pub struct Synchronous {
    /// Temperatures with the boundary ring: (rows + 2) × (cols + 2), row-major.
    padded: Vec<f32>,
    next: Vec<f32>,
    /// Simulated time reached.
    pub t: Ticks,
    end: Ticks,
    rows: usize,
    cols: usize,
    stencil: Stencil,
    /// `Some(quantum × 2^20)` for hybrid; `None` for timestepped.
    quantum_scaled: Option<f32>,
    /// Fixed step (timestepped) or the cap (hybrid), in ticks.
    step_ticks: u32,
    /// The step hybrid takes next, in ticks.
    planned: u32,
    /// Counters.
    pub totals: StepTotals,
    /// One record per step: start, end, cells whose value changed.
    pub log: pdes_core::sim::StepLog,
}

impl Synchronous {
    /// Starts a run of `cfg` (timestepped or hybrid) at time 0.
    pub fn new(cfg: &DiffusionConfig) -> Self {
        let m = &cfg.model;
        let hybrid = cfg.run.algorithm == DiffusionAlgorithm::Hybrid;
        let (rows, cols) = (m.rows as usize, m.cols as usize);
        let stencil = m.stencil();
        let mut padded = vec![stencil.boundary; (rows + 2) * (cols + 2)];
        for r in 1..=rows {
            padded[r * (cols + 2) + 1..r * (cols + 2) + 1 + cols].fill(m.initial_value());
        }
        let mut s = Self {
            next: padded.clone(),
            padded,
            t: 0,
            end: cfg.end_ticks(),
            rows,
            cols,
            stencil,
            quantum_scaled: hybrid.then_some(cfg.run.quantum as f32 * (1u32 << TICK_BITS) as f32),
            step_ticks: if hybrid {
                m.max_step_ticks()
            } else {
                cfg.dt_ticks()
            },
            planned: 0,
            totals: StepTotals::default(),
            log: pdes_core::sim::StepLog::new(),
        };
        s.planned = s.plan();
        s
    }

    /// The temperatures, row-major, without the ring.
    pub fn values(&self) -> Vec<f32> {
        let w = self.cols + 2;
        (1..=self.rows)
            .flat_map(|r| {
                self.padded[r * w + 1..r * w + 1 + self.cols]
                    .iter()
                    .copied()
            })
            .collect()
    }

    /// The temperature of one cell (row-major index, without the ring).
    pub fn value(&self, cell: u32) -> f32 {
        let (r, c) = (cell as usize / self.cols, cell as usize % self.cols);
        self.padded[(r + 1) * (self.cols + 2) + c + 1]
    }

    /// The step after the current grid: fixed, or hybrid's minimum over cells.
    fn plan(&self) -> u32 {
        let Some(qs) = self.quantum_scaled else {
            return self.step_ticks;
        };
        let st = self.stencil;
        let mut fastest = 0.0f32;
        for r in 1..=self.rows {
            let [west, mid, east, north, south] = neighbourhood(&self.padded, self.cols, r);
            for i in 0..self.cols {
                let f = st.rate(mid[i], west[i], east[i], north[i], south[i]);
                fastest = fastest.max(f.abs());
            }
        }
        quantum_ticks(qs, fastest, self.step_ticks)
    }

    /// Takes one step; false once the end time is reached.
    pub fn step(&mut self) -> bool {
        if self.t >= self.end {
            return false;
        }
        let dt = Ticks::from(self.planned).min(self.end - self.t) as u32;
        let h = step_units(dt);
        let w = self.cols + 2;
        let st = self.stencil;
        let mut changed = 0u64;
        for r in 1..=self.rows {
            let [west, mid, east, north, south] = neighbourhood(&self.padded, self.cols, r);
            let n = self.cols;
            let out = &mut self.next[r * w + 1..r * w + 1 + n];
            let mut row_changed = 0u32;
            for i in 0..n {
                let old = mid[i];
                let new = st.advance(old, st.rate(old, west[i], east[i], north[i], south[i]), h);
                out[i] = new;
                row_changed += u32::from(new != old);
            }
            changed += u64::from(row_changed);
        }
        std::mem::swap(&mut self.padded, &mut self.next);
        self.planned = self.plan();
        self.log.push(StepRecord {
            t_min: self.t,
            bound: self.t + Ticks::from(dt),
            events: changed,
            errors: 0,
        });
        self.t += Ticks::from(dt);
        self.totals.record(changed, 0);
        true
    }

    /// Advances within `budget`.
    pub fn advance(&mut self, budget: Budget) {
        let (limit, max_steps) = budget.limits(self.end);
        let mut n = 0;
        while n < max_steps && self.t < limit && self.step() {
            n += 1;
        }
    }
}

/// Row `r` of a padded grid `cols` wide as five slices of equal length — the cells' west,
/// own, east, north and south values — so the loops over them need no bounds checks and
/// vectorize.
fn neighbourhood(padded: &[f32], cols: usize, r: usize) -> [&[f32]; 5] {
    let w = cols + 2;
    let (up, cur, down) = (
        &padded[(r - 1) * w..r * w],
        &padded[r * w..(r + 1) * w],
        &padded[(r + 1) * w..(r + 2) * w],
    );
    [
        &cur[..cols],
        &cur[1..=cols],
        &cur[2..cols + 2],
        &up[1..=cols],
        &down[1..=cols],
    ]
}
