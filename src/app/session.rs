//! One running simulation as the app sees it: an engine (CPU or GPU), the display buffer
//! its heatmap reads, and the series its plots draw.

use crate::gpu::Gpu;
use crate::gpu::torus::{GpuTorus, LiveStats};
use crate::preset::{Algorithm, EngineKind, TorusConfig};
use crate::sim::{Budget, CpuEngine, CpuTorus, Engine, SimError};
use crate::time::{Ticks, to_units};
use std::sync::Arc;

/// The engine behind a session.
pub enum SessionEngine {
    /// A CPU engine (every algorithm).
    Cpu(Box<CpuEngine>),
    /// The GPU engine (window and interval).
    Gpu(Box<GpuTorus>),
}

/// One point of the live plots.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    /// Simulated time.
    pub time: f64,
    /// Utilization of completed services up to `time`.
    pub utilization: f64,
    /// Mean sojourn time of completed visits.
    pub sojourn: f64,
    /// Causality errors so far.
    pub causality_errors: u64,
    /// Events so far.
    pub events: u64,
}

/// A simulation the app runs and draws.
pub struct Session {
    /// Its validated configuration.
    pub config: TorusConfig,
    /// The engine.
    pub engine: SessionEngine,
    /// Heatmap words (tokens, latest error step) per facility, on the GPU.
    pub display: Option<wgpu::Buffer>,
    /// Plot samples, one every few frames.
    pub samples: Vec<Sample>,
    /// Why the requested engine could not be used, if it fell back to the CPU.
    pub note: Option<String>,
    gpu: Option<Arc<Gpu>>,
}

impl Session {
    /// Builds the engine `config` asks for. The GPU engine needs `gpu` and an algorithm it
    /// implements; otherwise the session runs on the CPU and `note` says why.
    pub fn new(config: TorusConfig, gpu: Option<Arc<Gpu>>) -> Result<Self, SimError> {
        let mut note = None;
        let on_cpu = config.run.engine == EngineKind::Cpu
            || config.run.algorithm == Algorithm::Sequential
            || gpu.is_none();
        let bytes = crate::sim::cpu_memory_bytes(&config);
        if on_cpu && bytes > crate::sim::CPU_MEMORY_LIMIT {
            return Err(SimError::TooLarge(format!(
                "model.rows × model.cols: {}×{} needs {:.1} GiB on the CPU (limit {} GiB); use the GPU engine or a smaller torus",
                config.model.rows,
                config.model.cols,
                bytes as f64 / (1u64 << 30) as f64,
                crate::sim::CPU_MEMORY_LIMIT >> 30
            )));
        }
        let engine = match (config.run.engine, &gpu) {
            (EngineKind::Gpu, Some(g)) if config.run.algorithm != Algorithm::Sequential => {
                SessionEngine::Gpu(Box::new(GpuTorus::new(g.clone(), &config)?))
            }
            (EngineKind::Gpu, _) => {
                note = Some(if gpu.is_none() {
                    "no GPU compute device: running on the CPU".to_string()
                } else {
                    "sequential runs on the CPU only".to_string()
                });
                SessionEngine::Cpu(Box::new(CpuEngine {
                    cpu: CpuTorus::new(&config),
                    config: config.clone(),
                }))
            }
            (EngineKind::Cpu, _) => SessionEngine::Cpu(Box::new(CpuEngine {
                cpu: CpuTorus::new(&config),
                config: config.clone(),
            })),
        };
        // The heatmap words need one buffer of 8 bytes per facility; past the adapter's
        // limit the heatmap is off (the simulation still runs).
        let display_bytes = 8 * u64::from(config.model.facilities());
        let display = gpu
            .as_ref()
            .filter(|g| display_bytes <= g.max_storage_buffer())
            .map(|g| {
                g.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("heatmap cells"),
                    size: 8 * u64::from(config.model.facilities()),
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

    /// The engine through the common interface.
    pub fn engine(&self) -> &dyn Engine {
        match &self.engine {
            SessionEngine::Cpu(e) => e.as_ref(),
            SessionEngine::Gpu(e) => e.as_ref(),
        }
    }

    fn engine_mut(&mut self) -> &mut dyn Engine {
        match &mut self.engine {
            SessionEngine::Cpu(e) => e.as_mut(),
            SessionEngine::Gpu(e) => e.as_mut(),
        }
    }

    /// "gpu" or "cpu": where it actually runs.
    pub fn runs_on(&self) -> &'static str {
        match self.engine {
            SessionEngine::Cpu(_) => "cpu",
            SessionEngine::Gpu(_) => "gpu",
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

    /// Writes the heatmap words: a compute pass for the GPU engine, an upload for CPU ones.
    pub fn refresh_display(&mut self) {
        let (Some(buf), Some(gpu)) = (&self.display, &self.gpu) else {
            return;
        };
        match &self.engine {
            SessionEngine::Gpu(g) => g.write_display(buf),
            SessionEngine::Cpu(c) => {
                let words = cpu_display_words(c);
                gpu.queue.write_buffer(buf, 0, bytemuck::cast_slice(&words));
            }
        }
    }

    /// Tokens and latest error step per facility, computed on the CPU (for CPU engines,
    /// PNG export and tests).
    pub fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        match &self.engine {
            SessionEngine::Cpu(c) => Ok(cpu_display_words(c)),
            SessionEngine::Gpu(g) => {
                let occ = g.download_state()?.occupancy();
                let err = g.error_steps()?;
                Ok(occ.into_iter().zip(err).map(|(o, e)| [o, e]).collect())
            }
        }
    }

    /// Live statistics (sums over completed services).
    pub fn live_stats(&self) -> Result<LiveStats, SimError> {
        match &self.engine {
            SessionEngine::Gpu(g) => g.live_stats(),
            SessionEngine::Cpu(c) => {
                let st = c.cpu.state();
                let now = self.now();
                // On the CPU the services in progress are cheap to add: exact utilization.
                let in_progress: u128 = st
                    .facilities
                    .iter()
                    .filter(|f| f.serving != crate::sim::state::NONE)
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
        }
    }

    /// Appends a plot sample from the live statistics.
    pub fn sample(&mut self) -> Result<(), SimError> {
        let s = self.live_stats()?;
        let k = f64::from(self.config.model.facilities());
        let completions = self.engine().totals().events;
        let time = to_units(s.time);
        self.samples.push(Sample {
            time,
            utilization: if s.time > 0 {
                s.busy_completed as f64 / (s.time as f64 * k)
            } else {
                0.0
            },
            sojourn: if completions > 0 {
                to_units(1) * s.sojourn_sum as f64 / completions as f64
            } else {
                0.0
            },
            causality_errors: s.causality_errors,
            events: s.events,
        });
        Ok(())
    }
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
