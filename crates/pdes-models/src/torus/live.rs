//! The torus's engines as the window sees them ([`LiveEngine`]): heatmap words (tokens and
//! the step of the latest causality error per facility), plot samples (utilization, sojourn,
//! causality errors), and the engine constructor the registry lists.

use super::cpu::{CpuEngine, CpuTorus};
use super::gpu::GpuTorus;
use super::stats::{Measures, sums};
use crate::config::Config;
use pdes_core::sim::{Engine, SimError};
use pdes_core::time::{Ticks, to_units};
use pdes_gpu::Gpu;
use pdes_gpu::{LiveEngine, Sample};
use std::sync::Arc;

/// The registry's constructor: the GPU engine when `device` is given, else the CPU one.
pub fn build(config: &Config, device: Option<Arc<Gpu>>) -> Result<Box<dyn LiveEngine>, SimError> {
    let Some(c) = config.get::<crate::torus::config::TorusConfig>() else {
        return Err(SimError::Gpu("not a torus configuration".into()));
    };
    Ok(match device {
        Some(g) => Box::new(GpuTorus::new(g, c)?),
        None => Box::new(CpuEngine {
            cpu: CpuTorus::new(c),
            config: c.clone(),
        }),
    })
}

/// The registry's CPU memory estimate.
pub fn cpu_bytes(config: &Config) -> u64 {
    config
        .get::<crate::torus::config::TorusConfig>()
        .map_or(0, super::cpu::cpu_memory_bytes)
}

/// A sample from the measures `run` reports (busy time counted up to `m.horizon`, the
/// services in progress included; sojourns of the visits completed), from the warm-up on:
/// the window's monitors, plots and exports then show at a run's end exactly the numbers
/// `pdes-lab run` prints.
fn torus_sample(engine: &dyn Engine, m: &Measures) -> Sample {
    let totals = engine.totals();
    Sample {
        time: to_units(m.horizon),
        steps: totals.steps,
        events: totals.events,
        utilization: m.utilization(),
        sojourn: m.mean_sojourn(),
        causality_errors: m.causality_errors,
        completions: m.completions,
        ..Sample::default()
    }
}

/// The heatmap words of a CPU engine: tokens (outlined when in the next step), and the
/// step of the latest causality error.
fn cpu_display_words(c: &CpuEngine) -> Vec<[u32; 2]> {
    let st = c.cpu.state();
    let next = st.next_step(c.config.run.step_rule(), c.config.end_ticks());
    let errors = c.cpu.last_error_steps();
    st.display_words(&next, (0..).map(|f| errors.get(f).copied().unwrap_or(0)))
}

impl LiveEngine for CpuEngine {
    fn write_display(&self, gpu: &Gpu, buf: &wgpu::Buffer) {
        gpu.queue
            .write_buffer(buf, 0, bytemuck::cast_slice(&cpu_display_words(self)));
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        Ok(cpu_display_words(self))
    }
    fn sample(&self, now: Ticks) -> Result<Sample, SimError> {
        let horizon = now.min(self.config.end_ticks());
        Ok(torus_sample(self, &sums(self.cpu.state(), horizon)))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl LiveEngine for GpuTorus {
    fn gpu_memory_bytes(&self) -> Option<u64> {
        Some(self.memory_bytes)
    }
    fn write_display(&self, _gpu: &Gpu, buf: &wgpu::Buffer) {
        GpuTorus::write_display(self, buf);
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        let st = self.download_state()?;
        let cfg = self.config();
        let next = st.next_step(cfg.run.step_rule(), cfg.end_ticks());
        Ok(st.display_words(&next, self.error_steps()?.into_iter()))
    }
    fn sample(&self, _now: Ticks) -> Result<Sample, SimError> {
        let mut x = torus_sample(self, &self.live_measures()?);
        // the GPU's own event count (the head's totals may lag it within a batch)
        x.events = self.live_events();
        Ok(x)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
