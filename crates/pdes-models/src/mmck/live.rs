//! The replications as the window sees them ([`LiveEngine`]): one heatmap cell per
//! replication (customers in its system now), plot samples of the analysis so far, and
//! the engine constructor the registry lists.

use super::Replication;
use super::config::MmckConfig;
use super::cpu::CpuMmck;
use super::gpu::GpuMmck;
use super::summary::Summary;
use crate::config::Config;
use pdes_core::sim::{Engine, SimError};
use pdes_core::time::{Ticks, to_units};
use pdes_gpu::Gpu;
use pdes_gpu::{LiveEngine, Sample};
use std::sync::Arc;

/// The registry's constructor: the GPU engine when `device` is given, else the CPU one.
pub fn build(config: &Config, device: Option<Arc<Gpu>>) -> Result<Box<dyn LiveEngine>, SimError> {
    let Some(c) = config.get::<MmckConfig>() else {
        return Err(SimError::Gpu("not an mmck configuration".into()));
    };
    Ok(match device {
        Some(g) => {
            // more than one buffer or dispatch holds: parts, each as large as one holds
            if u64::from(c.run.replications) > GpuMmck::most_in_one(&g, c, c.run.replications) {
                Box::new(super::spread::SpreadMmck::chunked(&g, c)?)
            } else {
                Box::new(GpuMmck::new(g, c)?)
            }
        }
        None => Box::new(CpuMmck::new(c)),
    })
}

/// The registry's CPU memory estimate: one replication's state, times their number.
pub fn cpu_bytes(config: &Config) -> u64 {
    config.get::<MmckConfig>().map_or(0, |c| {
        let per = std::mem::size_of::<Replication>() as u64
            + 16 * u64::from(c.model.servers + c.model.capacity)
            + 8 * u64::from(c.model.capacity + 1);
        per * u64::from(c.run.replications)
    })
}

/// Heatmap words: customers in system per replication, 0 past the last one.
pub(super) fn words(cells: usize, reps: &[Replication]) -> Vec<[u32; 2]> {
    let mut w: Vec<[u32; 2]> = reps.iter().map(|r| [r.n, 0]).collect();
    w.resize(cells.max(reps.len()), [0, 0]);
    w
}

/// A plot sample of an engine with summary `s` at `now`.
pub(super) fn sample(engine: &dyn Engine, now: Ticks, s: &Summary) -> Sample {
    let totals = engine.totals();
    Sample {
        time: to_units(now),
        steps: totals.steps,
        events: totals.events,
        utilization: s.utilization,
        sojourn: s.mean_system_time,
        number_in_system: s.mean_number_in_system,
        number_in_system_ci: (s.ci95_high - s.ci95_low) / 2.0,
        blocking: s.blocking_probability,
        ..Sample::default()
    }
}

/// Every replication's L̂ so far (those still before their warm-up's end left out).
pub fn l_hats(reps: &[Replication]) -> Vec<f64> {
    reps.iter()
        .filter_map(|r| {
            let len = r.t.saturating_sub(r.tally.t_start);
            (len > 0 && r.tally.departures > 0).then(|| r.tally.area as f64 / len as f64)
        })
        .collect()
}

fn cells(c: &MmckConfig) -> usize {
    let (rows, cols) = c.grid();
    rows as usize * cols as usize
}

impl LiveEngine for CpuMmck {
    fn write_display(&self, gpu: &Gpu, buf: &wgpu::Buffer) {
        let w = words((buf.size() / 8) as usize, self.replications());
        gpu.queue.write_buffer(buf, 0, bytemuck::cast_slice(&w));
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        Ok(words(cells(self.config()), self.replications()))
    }
    fn sample(&self, now: Ticks) -> Result<Sample, SimError> {
        Ok(sample(self, now, &self.summary()))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl LiveEngine for GpuMmck {
    fn gpu_memory_bytes(&self) -> Option<u64> {
        Some(self.memory_bytes)
    }
    fn write_display(&self, _gpu: &Gpu, buf: &wgpu::Buffer) {
        GpuMmck::write_display(self, buf);
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        Ok(words(cells(self.config()), &self.replications()?))
    }
    fn sample(&self, now: Ticks) -> Result<Sample, SimError> {
        Ok(sample(self, now, &self.summary()?))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
