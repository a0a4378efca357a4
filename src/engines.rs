//! The engine factory: which engine a configuration gets (its CPU twin or its GPU engine),
//! under which limits, and what happens when the GPU cannot be used. These rules live here
//! once, above [`crate::sim`] (CPU engines) and [`crate::gpu`] (GPU engines), so that
//! neither of those imports the other; the command line and the app build engines here.

use crate::gpu::Gpu;
use crate::models::diffusion::cpu::CpuDiffusion;
use crate::models::diffusion::gpu::GpuDiffusion;
use crate::models::torus::cpu::{CpuEngine, CpuTorus};
use crate::models::torus::gpu::GpuTorus;
use crate::preset::{Config, EngineKind};
use crate::sim::{CPU_MEMORY_LIMIT, Engine, SimError};
use std::sync::Arc;

/// What to do when the configuration asks for the GPU and cannot have it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuFallback {
    /// Refuse with the reason (the command line: `--engine gpu` means the GPU).
    Refuse,
    /// Run on the CPU and say why (the app: the window keeps working).
    Cpu,
}

/// A built engine, by model and place. The app needs the concrete engines (heatmap words,
/// live statistics, the inspector); everything else uses [`Built::engine`].
pub enum Built {
    /// A CPU torus engine (every algorithm).
    TorusCpu(Box<CpuEngine>),
    /// The GPU torus engine (window and interval).
    TorusGpu(Box<GpuTorus>),
    /// A CPU diffusion engine (every algorithm).
    DiffusionCpu(Box<CpuDiffusion>),
    /// The GPU diffusion engine (timestepped and hybrid).
    DiffusionGpu(Box<GpuDiffusion>),
}

impl Built {
    /// The engine through the common interface.
    pub fn engine(&self) -> &dyn Engine {
        match self {
            Self::TorusCpu(e) => e.as_ref(),
            Self::TorusGpu(e) => e.as_ref(),
            Self::DiffusionCpu(e) => e.as_ref(),
            Self::DiffusionGpu(e) => e.as_ref(),
        }
    }

    /// The engine through the common interface, mutably.
    pub fn engine_mut(&mut self) -> &mut dyn Engine {
        match self {
            Self::TorusCpu(e) => e.as_mut(),
            Self::TorusGpu(e) => e.as_mut(),
            Self::DiffusionCpu(e) => e.as_mut(),
            Self::DiffusionGpu(e) => e.as_mut(),
        }
    }

    /// The engine as a box of the common interface (the command line needs nothing else).
    pub fn into_engine(self) -> Box<dyn Engine> {
        match self {
            Self::TorusCpu(e) => e,
            Self::TorusGpu(e) => e,
            Self::DiffusionCpu(e) => e,
            Self::DiffusionGpu(e) => e,
        }
    }

    /// "gpu" or "cpu": where it runs.
    pub fn runs_on(&self) -> &'static str {
        match self {
            Self::TorusCpu(_) | Self::DiffusionCpu(_) => "cpu",
            Self::TorusGpu(_) | Self::DiffusionGpu(_) => "gpu",
        }
    }
}

/// True when the configured algorithm has a GPU engine (the registry says: sequential and
/// event-driven diffusion are one event at a time, CPU only).
pub fn has_gpu_engine(config: &Config) -> bool {
    config.algorithm_info().gpu
}

/// Bytes the CPU engine of `config` allocates for its state.
pub fn cpu_bytes(config: &Config) -> u64 {
    match config {
        Config::Torus(c) => crate::models::torus::cpu::cpu_memory_bytes(c),
        Config::Diffusion(c) => crate::models::diffusion::cpu::diffusion_cpu_bytes(c),
    }
}

/// The refusal of a run whose CPU state would exceed [`CPU_MEMORY_LIMIT`], with the
/// exact figures (a rounded "8.0 GiB (limit 8 GiB)" did not say why).
fn too_large(config: &Config, bytes: u64) -> SimError {
    let (rows, cols) = config.shape();
    SimError::TooLarge(format!(
        "model.rows × model.cols: {rows}×{cols} needs {:.3} GiB ({bytes} bytes) on the CPU, more than the limit of {} GiB ({CPU_MEMORY_LIMIT} bytes); {}",
        bytes as f64 / (1u64 << 30) as f64,
        CPU_MEMORY_LIMIT >> 30,
        if has_gpu_engine(config) {
            "use the GPU engine or a smaller grid"
        } else {
            "use a smaller grid"
        }
    ))
}

/// Builds the engine `config` asks for. `gpu` is the device for GPU engines (None: there is
/// none). Returns the engine and, when it runs on the CPU although the GPU was asked for,
/// why.
pub fn build(
    config: &Config,
    gpu: Option<Arc<Gpu>>,
    fallback: GpuFallback,
) -> Result<(Built, Option<String>), SimError> {
    let wants_gpu = config.engine() == EngineKind::Gpu;
    let why_not = if !wants_gpu {
        None
    } else if !has_gpu_engine(config) {
        Some(format!(
            "{} runs on the CPU only (one event at a time)",
            config.algorithm_info().name
        ))
    } else if gpu.is_none() {
        Some("no GPU compute device".to_string())
    } else {
        None
    };
    let on_gpu = wants_gpu && why_not.is_none();
    let note = match (why_not, fallback) {
        (Some(why), GpuFallback::Refuse) => {
            return Err(SimError::Gpu(format!("{why}; use --engine cpu")));
        }
        (Some(why), GpuFallback::Cpu) => Some(format!("{why}: running on the CPU")),
        (None, _) => None,
    };
    let device = gpu.filter(|_| on_gpu);
    if device.is_none() && cpu_bytes(config) > CPU_MEMORY_LIMIT {
        return Err(too_large(config, cpu_bytes(config)));
    }
    let built = match (config, device) {
        (Config::Torus(c), Some(g)) => Built::TorusGpu(Box::new(GpuTorus::new(g, c)?)),
        (Config::Torus(c), None) => Built::TorusCpu(Box::new(CpuEngine {
            cpu: CpuTorus::new(c),
            config: c.clone(),
        })),
        (Config::Diffusion(c), Some(g)) => Built::DiffusionGpu(Box::new(GpuDiffusion::new(g, c)?)),
        (Config::Diffusion(c), None) => Built::DiffusionCpu(Box::new(CpuDiffusion::new(c))),
    };
    Ok((built, note))
}

/// A configured engine of any model: what the command line runs.
pub struct Simulation {
    /// The validated configuration.
    pub config: Config,
    /// The engine.
    pub engine: Box<dyn Engine>,
}

impl Simulation {
    /// Builds the engine `config` names; `--engine gpu` without a GPU engine or an adapter
    /// is refused (the command line never silently runs elsewhere).
    pub fn new(config: Config) -> Result<Self, SimError> {
        let gpu = if config.engine() == EngineKind::Gpu && has_gpu_engine(&config) {
            Some(Gpu::shared().map_err(SimError::Gpu)?)
        } else {
            None
        };
        let (built, _) = build(&config, gpu, GpuFallback::Refuse)?;
        Ok(Self {
            config,
            engine: built.into_engine(),
        })
    }
}
