//! The DEVS engines as the command line and the window see them: the CPU engine over
//! either simulator ([`CpuDevs`]), the heatmap words (each cell's state word), plot
//! samples, and the constructor the registry lists.

use super::config::{DevsAlgorithm, DevsConfig};
use super::flattened::Flattened;
use super::gpu::GpuDevs;
use super::sequential::Sequential;
use super::summary::{Summary, compartments};
use super::{Cell, DevsSim, DevsStep, PASSIVE, Rule, budget_limits, ticks};
use crate::config::Config;
use pdes_core::sim::{Budget, Engine, Report, SimError, StepRecord, StepTotals};
use pdes_core::time::{Ticks, to_units};
use pdes_gpu::Gpu;
use pdes_gpu::{LiveEngine, Sample};
use std::sync::Arc;

/// The registry's constructor: the GPU engine when `device` is given, else the CPU one.
pub fn build(config: &Config, device: Option<Arc<Gpu>>) -> Result<Box<dyn LiveEngine>, SimError> {
    let Some(c) = config.get::<DevsConfig>() else {
        return Err(SimError::Gpu("not a DEVS configuration".into()));
    };
    Ok(match device {
        Some(g) => Box::new(GpuDevs::new(g, c)?),
        None => Box::new(CpuDevs::new(c)),
    })
}

/// The registry's CPU memory estimate: the arrays of either simulator per cell, plus one
/// step record per step.
pub fn cpu_bytes(config: &Config) -> u64 {
    config.get::<DevsConfig>().map_or(0, |c| {
        u64::from(c.space.cells()) * 48 + u64::from(c.end_time) * 56
    })
}

/// Running counters over a step log.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    totals: StepTotals,
    imminent: u64,
    messages: u64,
    records: Vec<StepRecord>,
}

impl Counters {
    /// Adds the steps of `log` past those already counted.
    pub fn catch_up(&mut self, log: &[DevsStep]) {
        for s in &log[self.records.len().min(log.len())..] {
            self.totals.record(s.transitions(), 0);
            self.imminent += u64::from(s.imminent);
            self.messages += u64::from(s.messages);
            self.records.push(s.record());
        }
    }

    /// The generic counters.
    pub fn totals(&self) -> StepTotals {
        self.totals.clone()
    }

    /// The generic step log.
    pub fn records(&self) -> &[StepRecord] {
        &self.records
    }
}

/// Where a run stands: the next step's time, or the end once none is left before it.
pub fn now_of(t: u32, end: u32) -> Ticks {
    ticks(if t == PASSIVE { end } else { t.min(end) })
}

/// A plot sample.
pub fn sample(cfg: &DevsConfig, now: Ticks, cells: &[Cell], c: &Counters) -> Sample {
    let mut s = Sample {
        time: to_units(now),
        steps: c.totals.steps,
        events: c.totals.events,
        imminent: c.imminent,
        messages: c.messages,
        ..Sample::default()
    };
    if matches!(cfg.rule, Rule::Sir(_)) {
        s.compartments = compartments(cells).0;
    }
    s
}

/// Heatmap words: each cell's state word, and its value with its flips undone — the value
/// XOR the parity of its last transition's time. In the benchmark (ta = 1) every cell flips
/// at every step, so that second word stays as it was at the start: the window's calm view
/// (a cell that missed a flip would change there), where the first flips the whole field.
pub fn words(cells: &[Cell], last: &[u32]) -> Vec<[u32; 2]> {
    cells
        .iter()
        .zip(last)
        .map(|(c, &t)| [c.value, c.value ^ (t & 1)])
        .collect()
}

/// The CPU engine: the sequential simulator or the flattened coordinator's twin.
pub struct CpuDevs {
    config: DevsConfig,
    sim: Box<dyn DevsSim>,
    counters: Counters,
}

impl CpuDevs {
    /// Every cell of `cfg` at time 0, with the simulator it names.
    pub fn new(cfg: &DevsConfig) -> Self {
        let sim: Box<dyn DevsSim> = match cfg.algorithm {
            DevsAlgorithm::Sequential => Box::new(Sequential::new(cfg.space, cfg.rule)),
            DevsAlgorithm::Flattened => Box::new(Flattened::new(cfg.space, cfg.rule)),
        };
        Self {
            config: cfg.clone(),
            sim,
            counters: Counters::default(),
        }
    }

    /// The simulator (states, last and next times, step log).
    pub fn sim(&self) -> &dyn DevsSim {
        self.sim.as_ref()
    }

    /// Its configuration.
    pub fn config(&self) -> &DevsConfig {
        &self.config
    }
}

impl Engine for CpuDevs {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        let (t_limit, steps) = budget_limits(budget, self.config.end_time);
        let mut done = 0;
        while done < steps {
            let t = self.sim.next_time();
            if t == PASSIVE || t > t_limit {
                break;
            }
            self.sim.step();
            done += 1;
        }
        self.counters.catch_up(self.sim.log());
        Ok(())
    }
    fn now(&self) -> Ticks {
        now_of(self.sim.next_time(), self.config.end_time)
    }
    fn finished(&self) -> bool {
        let t = self.sim.next_time();
        t == PASSIVE || t > self.config.end_time
    }
    fn totals(&self) -> StepTotals {
        self.counters.totals()
    }
    fn step_log(&self) -> &[StepRecord] {
        self.counters.records()
    }
    fn report(&mut self) -> Result<Report, SimError> {
        Ok(Report::of(&Summary::new(
            &self.config,
            "cpu",
            self.sim.cells(),
            self.sim.log(),
        )))
    }
}

impl LiveEngine for CpuDevs {
    fn write_display(&self, gpu: &Gpu, buf: &wgpu::Buffer) {
        let mut w = words(self.sim.cells(), self.sim.last());
        w.resize((buf.size() / 8) as usize, [0, 0]);
        gpu.queue.write_buffer(buf, 0, bytemuck::cast_slice(&w));
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        Ok(words(self.sim.cells(), self.sim.last()))
    }
    fn sample(&self, now: Ticks) -> Result<Sample, SimError> {
        Ok(sample(&self.config, now, self.sim.cells(), &self.counters))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
