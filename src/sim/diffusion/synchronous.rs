//! `timestepped` and `hybrid` on the CPU: every step advances every cell by one step h with
//! the five-point stencil (paper 001 Fig. 3 and Fig. 8). They differ only in h: fixed `dt`
//! for `timestepped`; for `hybrid`, the minimum over all cells of the time each needs to move
//! one quantum (Fig. 8 steps 1.2–1.3), capped at the stability bound. This is the CPU twin of
//! `shaders/diffusion.wgsl`: the same f32 operations in the same order.

use crate::model::diffusion::{Stencil, quantum_ticks, step_units};
use crate::preset::{DiffusionAlgorithm, DiffusionConfig};
use crate::sim::{Budget, StepRecord, StepTotals};
use crate::time::{TICK_BITS, Ticks};

/// A synchronous diffusion run.
#[derive(Clone, Debug)]
pub struct Synchronous {
    /// Temperatures, row-major.
    pub q: Vec<f32>,
    next: Vec<f32>,
    /// Simulated time reached.
    pub t: Ticks,
    end: Ticks,
    rows: u32,
    cols: u32,
    stencil: Stencil,
    /// `Some(quantum × 2^20)` for hybrid; `None` for timestepped.
    quantum_scaled: Option<f32>,
    /// Fixed step (timestepped) or the cap (hybrid), in ticks.
    step_ticks: u32,
    /// The step hybrid takes next (minimum over cells), in ticks.
    planned: u32,
    /// Counters.
    pub totals: StepTotals,
    /// One record per step: start, end, cells whose value changed.
    pub log: Vec<StepRecord>,
}

impl Synchronous {
    /// Starts a run of `cfg` (timestepped or hybrid) at time 0.
    pub fn new(cfg: &DiffusionConfig) -> Self {
        let m = &cfg.model;
        let hybrid = cfg.run.algorithm == DiffusionAlgorithm::Hybrid;
        let q = vec![m.initial as f32; m.cells() as usize];
        let mut s = Self {
            next: q.clone(),
            q,
            t: 0,
            end: cfg.end_ticks(),
            rows: m.rows,
            cols: m.cols,
            stencil: m.stencil(),
            quantum_scaled: hybrid.then(|| cfg.run.quantum as f32 * (1u32 << TICK_BITS) as f32),
            step_ticks: if hybrid {
                m.max_step_ticks()
            } else {
                cfg.dt_ticks()
            },
            planned: 0,
            totals: StepTotals::default(),
            log: Vec::new(),
        };
        s.planned = s.plan(&s.q);
        s
    }

    /// The step after the grid reached `q`: fixed, or hybrid's minimum over cells.
    fn plan(&self, q: &[f32]) -> u32 {
        let Some(qs) = self.quantum_scaled else {
            return self.step_ticks;
        };
        let mut m = self.step_ticks;
        for r in 0..self.rows {
            for c in 0..self.cols {
                let f = self.stencil.rate_at(q, self.rows, self.cols, r, c);
                m = m.min(quantum_ticks(qs, f, self.step_ticks));
            }
        }
        m
    }

    /// Takes one step; false once the end time is reached.
    pub fn step(&mut self) -> bool {
        if self.t >= self.end {
            return false;
        }
        let dt = Ticks::from(self.planned).min(self.end - self.t) as u32;
        let h = step_units(dt);
        let mut changed = 0u64;
        for r in 0..self.rows {
            for c in 0..self.cols {
                let i = (r * self.cols + c) as usize;
                let old = self.q[i];
                let new = old + self.stencil.rate_at(&self.q, self.rows, self.cols, r, c) * h;
                self.next[i] = new;
                changed += u64::from(new != old);
            }
        }
        std::mem::swap(&mut self.q, &mut self.next);
        self.planned = self.plan(&self.q);
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
