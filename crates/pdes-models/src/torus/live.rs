//! The torus's engines as the window sees them ([`LiveEngine`]): heatmap words (tokens and
//! the step of the latest causality error per facility), plot samples (utilization, sojourn,
//! causality errors), and the engine constructor the registry lists.

use super::cpu::{CpuEngine, CpuTorus};
use super::gpu::{Accumulated, GpuTorus};
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

/// A sample from sums over completed services from the warm-up on (both engines).
fn torus_sample(
    engine: &dyn Engine,
    facilities: f64,
    time: Ticks,
    warmup: Ticks,
    sums: Accumulated,
    causality_errors: u64,
) -> Sample {
    let totals = engine.totals();
    let covered = time.saturating_sub(warmup);
    Sample {
        time: to_units(time),
        steps: totals.steps,
        events: totals.events,
        utilization: if covered > 0 {
            sums.busy as f64 / (covered as f64 * facilities)
        } else {
            0.0
        },
        sojourn: if sums.completions > 0 {
            to_units(1) * sums.sojourn as f64 / sums.completions as f64
        } else {
            0.0
        },
        causality_errors,
        completions: sums.completions,
        ..Sample::default()
    }
}

/// The heatmap words of a CPU engine: tokens (outlined when in the next step), and the
/// step of the latest causality error.
fn cpu_display_words(c: &CpuEngine) -> Vec<[u32; 2]> {
    let st = c.cpu.state();
    let next = st.next_step(c.config.run.step_rule(), c.config.end_ticks());
    match &c.cpu {
        CpuTorus::Stepped(s) => st.display_words(&next, s.last_error_step.iter().copied()),
        CpuTorus::Sequential(_) => st.display_words(&next, std::iter::repeat(0)),
    }
}

impl LiveEngine for CpuEngine {
    fn runs_on(&self) -> &'static str {
        "cpu"
    }
    fn write_display(&self, gpu: &Gpu, buf: &wgpu::Buffer) {
        gpu.queue
            .write_buffer(buf, 0, bytemuck::cast_slice(&cpu_display_words(self)));
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        Ok(cpu_display_words(self))
    }
    fn sample(&self, now: Ticks) -> Result<Sample, SimError> {
        let st = self.cpu.state();
        // Completed services only, as the GPU engine counts them: the same quantity on both
        // engines (with the services in progress added the CPU's curve fell from 1 while the
        // GPU's rose from 0; the final values agree either way).
        let sums = st
            .facilities
            .iter()
            .fold(Accumulated::default(), |s, f| Accumulated {
                busy: s.busy + u128::from(f.busy),
                sojourn: s.sojourn + u128::from(f.sojourn),
                completions: s.completions + f.completions,
            });
        Ok(torus_sample(
            self,
            st.facilities.len() as f64,
            now,
            st.warmup,
            sums,
            st.facilities.iter().map(|f| f.causality_errors).sum(),
        ))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl LiveEngine for GpuTorus {
    fn runs_on(&self) -> &'static str {
        "gpu"
    }
    fn gpu_memory_bytes(&self) -> u64 {
        self.memory_bytes
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
        let s = self.live_stats()?;
        let (rows, cols) = self.grid_shape();
        let k = f64::from(rows) * f64::from(cols);
        let mut x = torus_sample(
            self,
            k,
            s.time,
            self.config().run.warmup_ticks(),
            s.sums,
            s.causality_errors,
        );
        x.events = s.events;
        Ok(x)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
