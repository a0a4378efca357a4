//! PHOLD's engines as the command line and the window see them: the CPU engine over either
//! simulator, heatmap words (pending events per LP, the next window's LPs marked), plot
//! samples, and the constructor the registry lists.

use super::config::PholdConfig;
use super::cpu::CpuPhold;
use super::gpu::GpuPhold;
use super::summary::Summary;
use crate::config::Config;
use pdes_core::sim::{Budget, Engine, Report, SimError, StepTotals};
use pdes_core::time::{Ticks, to_units};
use pdes_gpu::Gpu;
use pdes_gpu::{LiveEngine, NEXT_STEP_BIT, Sample};
use std::sync::Arc;

/// The registry's constructor: the GPU engine when `device` is given, else the CPU one.
pub fn build(config: &Config, device: Option<Arc<Gpu>>) -> Result<Box<dyn LiveEngine>, SimError> {
    let Some(c) = config.get::<PholdConfig>() else {
        return Err(SimError::Gpu("not a PHOLD configuration".into()));
    };
    Ok(match device {
        Some(g) => Box::new(GpuPhold::new(g, c)?),
        None => Box::new(CpuPhold::new(c)),
    })
}

/// The registry's CPU memory estimate: a 16-byte event per token and a counter per LP; the
/// sequential simulator's calendar queue adds a 64-byte bucket per token, rounded up to a
/// power of two (the step log grows by 32 bytes a step).
pub fn cpu_bytes(config: &Config) -> u64 {
    config.get::<PholdConfig>().map_or(0, |c| {
        let tokens = u64::from(c.events_in_flight());
        let queue = match c.algorithm {
            super::config::PholdAlgorithm::Sequential => tokens.next_power_of_two().max(16) * 64,
            super::config::PholdAlgorithm::Window => 0,
        };
        tokens * 16 + u64::from(c.lps) * 4 + queue
    })
}

/// A plot sample from the step counters.
pub fn sample(now: Ticks, t: &StepTotals) -> Sample {
    Sample {
        time: to_units(now),
        steps: t.steps,
        events: t.events,
        ..Sample::default()
    }
}

/// Heatmap words of each LP: (its pending events, with [`NEXT_STEP_BIT`] when one of them is
/// before the next step's bound — inside the next window —, the events it processed); the
/// grid's last cells, past the LPs, stay 0. The GPU's display passes write the same.
pub fn words(e: &CpuPhold) -> Vec<[u32; 2]> {
    let (rows, cols) = e.config.grid();
    let mut w: Vec<[u32; 2]> = (0..(rows * cols) as usize)
        .map(|i| [0, e.state.counts.get(i).copied().unwrap_or(0)])
        .collect();
    let bound = e.next_bound();
    for ev in &e.state.events {
        if let Some(cell) = w.get_mut(ev.lp as usize) {
            cell[0] += 1;
            if ev.time < bound {
                cell[0] |= NEXT_STEP_BIT;
            }
        }
    }
    w
}

impl Engine for CpuPhold {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        CpuPhold::advance(self, budget);
        Ok(())
    }
    fn now(&self) -> Ticks {
        CpuPhold::now(self).min(self.config.end_ticks())
    }
    fn finished(&self) -> bool {
        CpuPhold::finished(self)
    }
    fn totals(&self) -> StepTotals {
        CpuPhold::totals(self).clone()
    }
    fn steps(&self) -> Option<&pdes_core::sim::StepLog> {
        Some(self.log())
    }
    fn report(&mut self) -> Result<Report, SimError> {
        Ok(Report::of(&Summary::new(
            &self.config,
            "cpu",
            &self.state,
            CpuPhold::totals(self),
        )))
    }
}

impl LiveEngine for CpuPhold {
    fn write_display(&self, gpu: &Gpu, buf: &wgpu::Buffer) {
        let mut w = words(self);
        w.resize((buf.size() / 8) as usize, [0, 0]);
        gpu.queue.write_buffer(buf, 0, bytemuck::cast_slice(&w));
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        Ok(words(self))
    }
    fn sample(&self, now: Ticks) -> Result<Sample, SimError> {
        Ok(sample(now, CpuPhold::totals(self)))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
