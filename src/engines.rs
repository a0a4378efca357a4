//! The engine factory: which engine a configuration gets (its CPU twin or its GPU engine),
//! under which limits, and what happens when the GPU cannot be used. These rules live here
//! once, above [`crate::sim`] (CPU engines) and [`crate::gpu`] (GPU engines), so that
//! neither of those imports the other; the command line and the app build engines here.

use crate::gpu::Gpu;
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

/// One point of the live plots (each model fills its own quantities; the rest stay 0).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    /// Simulated time.
    pub time: f64,
    /// Steps so far (events for sequential and event).
    pub steps: u64,
    /// Events so far (diffusion: cell updates).
    pub events: u64,
    /// Torus: utilization of completed services up to `time` (M/M/c/k: busy fraction of a server).
    pub utilization: f64,
    /// Torus: mean sojourn time of completed visits (M/M/c/k: mean time in system).
    pub sojourn: f64,
    /// Torus: causality errors so far.
    pub causality_errors: u64,
    /// Open network: tokens in the system.
    pub tokens_in_system: f64,
    /// Diffusion: mean temperature.
    pub mean_temperature: f64,
    /// Diffusion: lowest cell temperature.
    pub min_temperature: f64,
    /// Diffusion: highest cell temperature.
    pub max_temperature: f64,
    /// M/M/c/k: grand mean over replications of the time-average number in system.
    pub number_in_system: f64,
    /// M/M/c/k: half-width of its 95% confidence interval.
    pub number_in_system_ci: f64,
    /// M/M/c/k: blocked arrivals over all arrivals.
    pub blocking: f64,
    /// DEVS SIR: mean susceptible, infected and recovered fractions.
    pub compartments: [f64; 3],
    /// DEVS: imminent cells summed over the steps so far.
    pub imminent: u64,
    /// DEVS: messages routed so far.
    pub messages: u64,
}

/// What the window needs from an engine beyond [`Engine`]: where it runs, its heatmap
/// words, a plot sample, one cell's value. Every model's CPU and GPU engines implement it in
/// the model's folder; the app holds a `Box<dyn LiveEngine>` and never matches on the model.
pub trait LiveEngine: Engine {
    /// "gpu" or "cpu".
    fn runs_on(&self) -> &'static str;
    /// Bytes of GPU memory the engine holds (0 on the CPU).
    fn gpu_memory_bytes(&self) -> u64 {
        0
    }
    /// Writes the heatmap words (two u32 per cell) into `buf`: a compute pass for GPU
    /// engines, an upload for CPU ones.
    fn write_display(&self, gpu: &Gpu, buf: &wgpu::Buffer);
    /// The heatmap words, on the CPU (PNG export, tests).
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError>;
    /// A plot sample at simulated time `now` (ticks, capped at the end time).
    fn sample(&self, now: crate::time::Ticks) -> Result<Sample, SimError>;
    /// The engine as `Any`, for a model's own panel to reach its engine's details.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A model's engine constructor: `device` is Some when the engine must run on the GPU.
pub type BuildFn = fn(&Config, Option<Arc<Gpu>>) -> Result<Box<dyn LiveEngine>, SimError>;

/// True when the configured algorithm has a GPU engine (the registry says: sequential and
/// event-driven diffusion are one event at a time, CPU only).
pub fn has_gpu_engine(config: &Config) -> bool {
    config.algorithm_info().gpu
}

/// Bytes the CPU engine of `config` allocates for its state.
pub fn cpu_bytes(config: &Config) -> u64 {
    (config.model_info().cpu_bytes)(config)
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
) -> Result<(Box<dyn LiveEngine>, Option<String>), SimError> {
    let wants_gpu = config.engine() == EngineKind::Gpu;
    let why_not = if !wants_gpu {
        None
    } else if !has_gpu_engine(config) {
        Some(format!(
            "{} of the {} runs on the CPU only",
            config.algorithm_info().name,
            config.model_info().label
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
    let built = (config.model_info().build)(config, device)?;
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
            engine: built,
        })
    }
}
