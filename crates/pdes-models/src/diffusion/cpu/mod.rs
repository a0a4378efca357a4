//! The CPU engines of the diffusion grid (Perumalla 2006 §3): `timestepped` and `hybrid`
//! share one synchronous step ([`synchronous`]), `event` is the quantized-state discrete-event
//! simulator with an indexed priority queue ([`event`]). Times are integer ticks like the
//! torus's, so the end time is reached exactly and the GPU twin keeps the same clock.

pub mod event;
pub mod synchronous;

use crate::diffusion::config::DiffusionAlgorithm;
use crate::diffusion::config::DiffusionConfig;
use pdes_core::sim::{Budget, Engine, Report, SimError, StepTotals};
use pdes_core::time::{Ticks, to_units};
use serde::Serialize;

/// The statistics of a diffusion run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DiffusionSummary {
    /// Always "diffusion".
    #[serde(rename = "model")]
    pub kind: &'static str,
    /// `timestepped`, `event` or `hybrid`.
    pub algorithm: &'static str,
    /// `cpu` or `gpu`.
    pub engine: &'static str,
    /// The grid's parameters (serialized inline: rows, cols, alpha_x, … dx).
    #[serde(flatten)]
    pub model: crate::diffusion::DiffusionParams,
    /// Fixed step of `timestepped` (as run: rounded to a tick), else null.
    pub dt: Option<f64>,
    /// Quantum of `event` and `hybrid`, else null.
    pub quantum: Option<f64>,
    /// Largest stable step dx²/(2(αx+αy)) (null without diffusion).
    pub stability_bound: Option<f64>,
    /// Requested end time.
    pub end_time: f64,
    /// Simulated time reached.
    pub sim_time: f64,
    /// Steps (events for `event`).
    pub steps: u64,
    /// Cell updates that changed a cell's value.
    pub cell_updates: u64,
    /// Mean cell updates per step.
    pub mean_updates_per_step: f64,
    /// Most cell updates in one step.
    pub max_updates_per_step: u64,
    /// Mean simulated time per step.
    pub mean_step: f64,
    /// Mean temperature over the grid at `sim_time`.
    pub mean_temperature: f64,
    /// Lowest cell temperature.
    pub min_temperature: f64,
    /// Highest cell temperature.
    pub max_temperature: f64,
    /// Wall-clock seconds of the run (filled in by the caller).
    pub wall_seconds: f64,
    /// Cell updates per wall-clock second.
    pub updates_per_second: f64,
}

/// Mean, minimum and maximum of a grid (in f64).
pub fn grid_stats(values: &[f32]) -> (f64, f64, f64) {
    let (mut sum, mut lo, mut hi) = (0.0f64, f64::INFINITY, f64::NEG_INFINITY);
    for &v in values {
        let v = f64::from(v);
        sum += v;
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (sum / values.len().max(1) as f64, lo, hi)
}

impl DiffusionSummary {
    /// The summary of a run of `cfg` that reached `now` with `values`.
    pub fn new(
        cfg: &DiffusionConfig,
        totals: &StepTotals,
        now: Ticks,
        values: &[f32],
        engine: &'static str,
    ) -> Self {
        let (mean, lo, hi) = grid_stats(values);
        let sim_time = to_units(now.min(cfg.end_ticks()));
        let alg = cfg.run.algorithm;
        let bound = cfg.model.stability_bound();
        Self {
            kind: "diffusion",
            algorithm: alg.name(),
            engine,
            model: cfg.model.clone(),
            dt: (alg == DiffusionAlgorithm::Timestepped)
                .then(|| to_units(Ticks::from(cfg.dt_ticks()))),
            quantum: (alg != DiffusionAlgorithm::Timestepped).then_some(cfg.run.quantum),
            stability_bound: bound.is_finite().then_some(bound),
            end_time: cfg.run.end_time,
            sim_time,
            steps: totals.steps,
            cell_updates: totals.events,
            mean_updates_per_step: if totals.steps > 0 {
                totals.events as f64 / totals.steps as f64
            } else {
                0.0
            },
            max_updates_per_step: totals.max_events_per_step,
            mean_step: if totals.steps > 0 {
                sim_time / totals.steps as f64
            } else {
                0.0
            },
            mean_temperature: mean,
            min_temperature: lo,
            max_temperature: hi,
            wall_seconds: 0.0,
            updates_per_second: 0.0,
        }
    }
}

/// What every diffusion engine offers beyond [`Engine`].
pub trait DiffusionEngine: Engine {
    /// The temperature of every cell at `min(now, end)`, row-major.
    fn temperatures(&self) -> Result<Vec<f32>, SimError>;
}

/// The CPU engine of any diffusion algorithm.
#[derive(Clone, Debug)]
pub struct CpuDiffusion {
    /// Its configuration.
    pub config: DiffusionConfig,
    /// The algorithm's state.
    pub run: CpuDiffusionRun,
}

/// The state of one of the CPU algorithms.
#[derive(Clone, Debug)]
pub enum CpuDiffusionRun {
    /// `timestepped` or `hybrid`.
    Synchronous(synchronous::Synchronous),
    /// `event`.
    Event(event::Qss),
}

impl CpuDiffusion {
    /// The engine `cfg.run.algorithm` names.
    pub fn new(cfg: &DiffusionConfig) -> Self {
        let run = match cfg.run.algorithm {
            DiffusionAlgorithm::Event => CpuDiffusionRun::Event(event::Qss::new(cfg)),
            _ => CpuDiffusionRun::Synchronous(synchronous::Synchronous::new(cfg)),
        };
        Self {
            config: cfg.clone(),
            run,
        }
    }
}

impl CpuDiffusion {
    /// The temperature of one cell at `min(now, end)`.
    pub fn temperature_at(&self, cell: u32) -> f32 {
        let now = self.now().min(self.config.end_ticks());
        match &self.run {
            CpuDiffusionRun::Synchronous(s) => s.value(cell),
            CpuDiffusionRun::Event(e) => e.value_at(cell, now),
        }
    }
}

impl Engine for CpuDiffusion {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        match &mut self.run {
            CpuDiffusionRun::Synchronous(s) => s.advance(budget),
            CpuDiffusionRun::Event(e) => e.advance(budget),
        }
        Ok(())
    }
    fn now(&self) -> Ticks {
        match &self.run {
            CpuDiffusionRun::Synchronous(s) => s.t,
            CpuDiffusionRun::Event(e) => e.now(),
        }
    }
    fn finished(&self) -> bool {
        self.now() >= self.config.end_ticks()
    }
    fn totals(&self) -> StepTotals {
        match &self.run {
            CpuDiffusionRun::Synchronous(s) => s.totals.clone(),
            CpuDiffusionRun::Event(e) => e.totals.clone(),
        }
    }
    fn steps(&self) -> Option<&pdes_core::sim::StepLog> {
        match &self.run {
            CpuDiffusionRun::Synchronous(s) => Some(&s.log),
            CpuDiffusionRun::Event(_) => None,
        }
    }
    fn report(&mut self) -> Result<Report, SimError> {
        let values = self.temperatures()?;
        Ok(Report::of(&DiffusionSummary::new(
            &self.config,
            &self.totals(),
            self.now(),
            &values,
            "cpu",
        )))
    }
}

impl DiffusionEngine for CpuDiffusion {
    fn temperatures(&self) -> Result<Vec<f32>, SimError> {
        let now = self.now().min(self.config.end_ticks());
        Ok(match &self.run {
            CpuDiffusionRun::Synchronous(s) => s.values(),
            CpuDiffusionRun::Event(e) => e.values_at(now),
        })
    }
}

/// Bytes the CPU state of a diffusion run takes (the event algorithm's is the largest).
pub fn diffusion_cpu_bytes(cfg: &DiffusionConfig) -> u64 {
    u64::from(cfg.model.cells()) * 48
}

impl pdes_core::sim::ModelSummary for DiffusionSummary {
    const WORK: &'static str = "cell_updates";
    const RATE: &'static str = "updates_per_second";
    fn statistics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("mean_temperature", self.mean_temperature),
            ("min_temperature", self.min_temperature),
            ("max_temperature", self.max_temperature),
        ]
    }
}
