//! One running simulation as the app sees it: an engine of either model (CPU or GPU), the
//! display buffer its heatmap reads, and the series its plots draw.

use crate::engines::{Built, GpuFallback};
use crate::gpu::Gpu;
use crate::models::diffusion::cpu::{DiffusionEngine, grid_stats};
use crate::models::torus::cpu::{CpuEngine, CpuTorus};
use crate::models::torus::gpu::LiveStats;
use crate::preset::{Algorithm, Config, TorusConfig};
use crate::sim::{Budget, Engine, SimError};
use crate::time::{Ticks, to_units};
use std::sync::Arc;

/// One point of the live plots.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    /// Simulated time.
    pub time: f64,
    /// Steps so far (events for sequential and event).
    pub steps: u64,
    /// Events so far (diffusion: cell updates).
    pub events: u64,
    /// Torus: utilization of completed services up to `time`.
    pub utilization: f64,
    /// Torus: mean sojourn time of completed visits.
    pub sojourn: f64,
    /// Torus: causality errors so far.
    pub causality_errors: u64,
    /// Diffusion: mean temperature.
    pub mean_temperature: f64,
    /// Diffusion: lowest cell temperature.
    pub min_temperature: f64,
    /// Diffusion: highest cell temperature.
    pub max_temperature: f64,
}

/// A simulation the app runs and draws.
pub struct Session {
    /// Its validated configuration.
    pub config: Config,
    /// The engine.
    pub engine: Built,
    /// Heatmap words per cell, on the GPU: (tokens, latest error step) for the torus,
    /// (temperature's f32 bits, 0) for diffusion.
    pub display: Option<wgpu::Buffer>,
    /// Plot samples, one every few frames.
    pub samples: Vec<Sample>,
    /// Why the requested engine could not be used, if it fell back to the CPU.
    pub note: Option<String>,
    gpu: Option<Arc<Gpu>>,
}

impl Session {
    /// Builds the engine `config` asks for. The GPU engines need `gpu` and an algorithm
    /// they implement; otherwise the session runs on the CPU and `note` says why.
    pub fn new(config: Config, gpu: Option<Arc<Gpu>>) -> Result<Self, SimError> {
        let (engine, note) = crate::engines::build(&config, gpu.clone(), GpuFallback::Cpu)?;
        let (rows, cols) = config.shape();
        // The heatmap words need one buffer of 8 bytes per cell; past the adapter's limit
        // the heatmap is off (the simulation still runs).
        let display_bytes = 8 * u64::from(rows) * u64::from(cols);
        let display = gpu
            .as_ref()
            .filter(|g| display_bytes <= g.max_storage_buffer())
            .map(|g| {
                g.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("heatmap cells"),
                    size: display_bytes,
                    usage: wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_DST
                        | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                })
            });
        let mut s = Self {
            config,
            engine,
            display,
            samples: Vec::new(),
            note,
            gpu,
        };
        s.refresh_display();
        s.sample()?;
        Ok(s)
    }

    /// The torus configuration, if this is a torus session.
    pub fn torus(&self) -> Option<&TorusConfig> {
        match &self.config {
            Config::Torus(c) => Some(c),
            Config::Diffusion(_) => None,
        }
    }

    /// True for a diffusion session.
    pub fn is_diffusion(&self) -> bool {
        matches!(self.config, Config::Diffusion(_))
    }

    /// (rows, cols) of the grid.
    pub fn shape(&self) -> (u32, u32) {
        self.config.shape()
    }

    /// The end time in time units.
    pub fn end_time(&self) -> f64 {
        match &self.config {
            Config::Torus(c) => c.run.end_time,
            Config::Diffusion(c) => c.run.end_time,
        }
    }

    /// The algorithm's name as the UI shows it.
    pub fn algorithm_label(&self) -> String {
        match &self.config {
            Config::Torus(c) => match c.run.algorithm {
                Algorithm::Interval => format!("interval / {}", c.run.timestamps.name()),
                a => a.name().to_string(),
            },
            Config::Diffusion(c) => c.run.algorithm.name().to_string(),
        }
    }

    /// The engine through the common interface.
    pub fn engine(&self) -> &dyn Engine {
        self.engine.engine()
    }

    fn engine_mut(&mut self) -> &mut dyn Engine {
        self.engine.engine_mut()
    }

    /// "gpu" or "cpu": where it actually runs.
    pub fn runs_on(&self) -> &'static str {
        self.engine.runs_on()
    }

    /// Bytes of GPU memory the engine uses (0 on the CPU).
    pub fn gpu_memory_bytes(&self) -> u64 {
        match &self.engine {
            Built::TorusGpu(g) => g.memory_bytes,
            Built::DiffusionGpu(g) => g.memory_bytes,
            _ => 0,
        }
    }

    /// Advances within `budget`, then refreshes the heatmap words.
    pub fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        self.engine_mut().advance(budget)?;
        self.refresh_display();
        Ok(())
    }

    /// Simulated time reached (ticks), capped at the end time.
    pub fn now(&self) -> Ticks {
        self.engine().now().min(self.config.end_ticks())
    }

    /// Steps so far.
    pub fn steps(&self) -> u64 {
        self.engine().totals().steps
    }

    /// Writes the heatmap words: a compute pass for the GPU engines, an upload for CPU ones.
    pub fn refresh_display(&mut self) {
        let (Some(buf), Some(gpu)) = (&self.display, &self.gpu) else {
            return;
        };
        match &self.engine {
            Built::TorusGpu(g) => g.write_display(buf),
            Built::DiffusionGpu(g) => g.write_display(buf),
            Built::TorusCpu(c) => {
                let words = cpu_display_words(c);
                gpu.queue.write_buffer(buf, 0, bytemuck::cast_slice(&words));
            }
            Built::DiffusionCpu(c) => {
                if let Ok(t) = c.temperatures() {
                    let words = temperature_words(&t);
                    gpu.queue.write_buffer(buf, 0, bytemuck::cast_slice(&words));
                }
            }
        }
    }

    /// The heatmap words, computed on the CPU (for CPU engines, PNG export and tests).
    pub fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        match &self.engine {
            Built::TorusCpu(c) => Ok(cpu_display_words(c)),
            Built::TorusGpu(g) => {
                let occ = g.download_state()?.occupancy();
                let err = g.error_steps()?;
                Ok(occ.into_iter().zip(err).map(|(o, e)| [o, e]).collect())
            }
            Built::DiffusionCpu(c) => Ok(temperature_words(&c.temperatures()?)),
            Built::DiffusionGpu(g) => Ok(temperature_words(&g.temperatures()?)),
        }
    }

    /// The temperature of one cell (diffusion sessions only).
    pub fn temperature_at(&self, cell: u32) -> Option<f32> {
        match &self.engine {
            Built::DiffusionCpu(c) => Some(c.temperature_at(cell)),
            Built::DiffusionGpu(g) => {
                let buf = self.display.as_ref()?;
                let bytes =
                    crate::gpu::read_ranges(g.gpu(), &[(buf, 8 * u64::from(cell), 8)]).ok()?;
                Some(f32::from_bits(
                    bytemuck::pod_read_unaligned::<[u32; 2]>(&bytes[0])[0],
                ))
            }
            _ => None,
        }
    }

    /// The range the temperature colormap spans: the initial and boundary temperatures,
    /// widened to the latest sample's extremes (heating can go past the boundary).
    pub fn temperature_range(&self) -> (f32, f32) {
        let Config::Diffusion(c) = &self.config else {
            return (0.0, 1.0);
        };
        let (mut lo, mut hi) = (
            c.model.initial.min(c.model.boundary),
            c.model.initial.max(c.model.boundary),
        );
        if let Some(s) = self.samples.last() {
            lo = lo.min(s.min_temperature);
            hi = hi.max(s.max_temperature);
        }
        if hi <= lo {
            hi = lo + 1.0;
        }
        (lo as f32, hi as f32)
    }

    /// Live torus statistics (sums over completed services).
    pub fn live_stats(&self) -> Result<LiveStats, SimError> {
        match &self.engine {
            Built::TorusGpu(g) => g.live_stats(),
            Built::TorusCpu(c) => {
                let st = c.cpu.state();
                let now = self.now();
                // On the CPU the services in progress are cheap to add: exact utilization.
                let in_progress: u128 = st
                    .facilities
                    .iter()
                    .filter(|f| f.serving != crate::models::torus::state::NONE)
                    .map(|f| u128::from(now.min(f.departure).saturating_sub(f.service_start)))
                    .sum();
                Ok(LiveStats {
                    time: now,
                    events: c.totals().events,
                    busy_completed: in_progress
                        + st.facilities
                            .iter()
                            .map(|f| u128::from(f.busy))
                            .sum::<u128>(),
                    sojourn_sum: st.facilities.iter().map(|f| u128::from(f.sojourn)).sum(),
                    causality_errors: st.facilities.iter().map(|f| f.causality_errors).sum(),
                })
            }
            _ => Err(SimError::Gpu(
                "torus statistics of a diffusion session".into(),
            )),
        }
    }

    /// Appends a plot sample.
    pub fn sample(&mut self) -> Result<(), SimError> {
        let totals = self.engine().totals();
        let mut x = Sample {
            time: to_units(self.now()),
            steps: totals.steps,
            events: totals.events,
            ..Sample::default()
        };
        match &self.engine {
            Built::DiffusionCpu(c) => {
                (x.mean_temperature, x.min_temperature, x.max_temperature) =
                    grid_stats(&c.temperatures()?);
            }
            Built::DiffusionGpu(g) => {
                // reduced on the GPU: a sample costs a few KiB of readback, not the grid
                (x.mean_temperature, x.min_temperature, x.max_temperature) = g.grid_stats()?;
            }
            _ => {
                let s = self.live_stats()?;
                let k = f64::from(self.shape().0) * f64::from(self.shape().1);
                x.time = to_units(s.time);
                x.utilization = if s.time > 0 {
                    s.busy_completed as f64 / (s.time as f64 * k)
                } else {
                    0.0
                };
                x.sojourn = if totals.events > 0 {
                    to_units(1) * s.sojourn_sum as f64 / totals.events as f64
                } else {
                    0.0
                };
                x.causality_errors = s.causality_errors;
                x.events = s.events;
            }
        }
        self.samples.push(x);
        Ok(())
    }
}

/// Heatmap words of a temperature grid: the f32 bits and 0.
fn temperature_words(t: &[f32]) -> Vec<[u32; 2]> {
    t.iter().map(|v| [v.to_bits(), 0]).collect()
}

fn cpu_display_words(c: &CpuEngine) -> Vec<[u32; 2]> {
    let occ = c.cpu.state().occupancy();
    match &c.cpu {
        CpuTorus::Stepped(s) => occ
            .into_iter()
            .zip(&s.last_error_step)
            .map(|(o, e)| [o, *e])
            .collect(),
        CpuTorus::Sequential(_) => occ.into_iter().map(|o| [o, 0]).collect(),
    }
}
