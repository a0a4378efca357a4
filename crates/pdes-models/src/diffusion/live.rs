//! The diffusion grid's engines as the window sees them ([`LiveEngine`]): heatmap words
//! (each cell's temperature bits), plot samples (mean, lowest and highest temperature), and
//! the engine constructor the registry lists.

use super::cpu::{CpuDiffusion, DiffusionEngine, diffusion_cpu_bytes, grid_stats};
use super::gpu::GpuDiffusion;
use crate::config::Config;
use crate::diffusion::config::DiffusionConfig;
use pdes_core::sim::{Engine, SimError};
use pdes_core::time::{Ticks, to_units};
use pdes_gpu::Gpu;
use pdes_gpu::{LiveEngine, Sample};
use std::sync::Arc;

/// The registry's constructor: the GPU engine when `device` is given, else the CPU one.
pub fn build(config: &Config, device: Option<Arc<Gpu>>) -> Result<Box<dyn LiveEngine>, SimError> {
    let Some(c) = config.get::<DiffusionConfig>() else {
        return Err(SimError::Gpu("not a diffusion configuration".into()));
    };
    Ok(match device {
        Some(g) => Box::new(GpuDiffusion::new(g, c)?),
        None => Box::new(CpuDiffusion::new(c)),
    })
}

/// The registry's CPU memory estimate.
pub fn cpu_bytes(config: &Config) -> u64 {
    config
        .get::<DiffusionConfig>()
        .map_or(0, diffusion_cpu_bytes)
}

/// Heatmap words of a temperature grid: the f32 bits and 0.
fn temperature_words(t: &[f32]) -> Vec<[u32; 2]> {
    t.iter().map(|v| [v.to_bits(), 0]).collect()
}

/// A sample with the grid's mean, lowest and highest temperature.
fn diffusion_sample(engine: &dyn Engine, now: Ticks, (mean, lo, hi): (f64, f64, f64)) -> Sample {
    let totals = engine.totals();
    Sample {
        time: to_units(now),
        steps: totals.steps,
        events: totals.events,
        mean_temperature: mean,
        min_temperature: lo,
        max_temperature: hi,
        ..Sample::default()
    }
}

impl LiveEngine for CpuDiffusion {
    fn write_display(&self, gpu: &Gpu, buf: &wgpu::Buffer) {
        if let Ok(t) = self.temperatures() {
            gpu.queue
                .write_buffer(buf, 0, bytemuck::cast_slice(&temperature_words(&t)));
        }
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        Ok(temperature_words(&self.temperatures()?))
    }
    fn sample(&self, now: Ticks) -> Result<Sample, SimError> {
        Ok(diffusion_sample(
            self,
            now,
            grid_stats(&self.temperatures()?),
        ))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl LiveEngine for GpuDiffusion {
    fn gpu_memory_bytes(&self) -> Option<u64> {
        Some(self.memory_bytes)
    }
    fn write_display(&self, _gpu: &Gpu, buf: &wgpu::Buffer) {
        GpuDiffusion::write_display(self, buf);
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        Ok(temperature_words(&self.temperatures()?))
    }
    fn sample(&self, now: Ticks) -> Result<Sample, SimError> {
        // the grid read back and reduced as the summary reduces it (f64, cell order): the
        // GPU's own f32 reduction differed from `run`'s mean in the 8th digit (issue 56 §1);
        // 4 bytes a cell every few frames (in a page, read back with the batch)
        Ok(diffusion_sample(self, now, self.exact_grid_stats()?))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
