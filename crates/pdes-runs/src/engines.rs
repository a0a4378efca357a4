//! The engine factory: which engine a configuration gets (its CPU twin or its GPU engine),
//! under which limits, and what happens when the GPU cannot be used. These rules live here
//! once, above [`pdes_core::sim`] (CPU engines) and [`pdes_gpu`] (GPU engines), so that
//! neither of those imports the other; the command line and the app build engines here.

use pdes_core::sim::{CPU_MEMORY_LIMIT, Engine, SimError};
use pdes_gpu::Gpu;
pub use pdes_gpu::{LiveEngine, Sample};
pub use pdes_models::config::BuildFn;
use pdes_models::preset::{Config, EngineKind};
use std::sync::Arc;

/// What to do when the configuration asks for the GPU and cannot have it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuFallback {
    /// Refuse with the reason (the command line: `--engine gpu` means the GPU).
    Refuse,
    /// Run on the CPU and say why (the app: the window keeps working).
    Cpu,
}

/// True when the configured algorithm has a GPU engine (the registry says: sequential and
/// event-driven diffusion are one event at a time, CPU only).
pub fn has_gpu_engine(config: &Config) -> bool {
    config.algorithm_info().gpu
}

/// Bytes the CPU engine of `config` allocates for its state.
pub fn cpu_bytes(config: &Config) -> u64 {
    (config.model_info().cpu_bytes)(config)
}

/// The values of the model's size keys, as "16384×16384" (each read from the preset).
fn size_of(config: &Config) -> String {
    let table: toml::Table = config.to_toml("").parse().unwrap_or_default();
    config
        .model_info()
        .size_keys
        .split(" × ")
        .map(|key| {
            let (section, name) = key.split_once('.').unwrap_or(("", key));
            table
                .get(section)
                .and_then(|t| t.get(name))
                .map_or_else(|| "?".to_string(), |v| v.to_string())
        })
        .collect::<Vec<_>>()
        .join("×")
}

/// The refusal of a run whose CPU state would exceed [`CPU_MEMORY_LIMIT`], with the
/// exact figures (a rounded "8.0 GiB (limit 8 GiB)" did not say why).
fn too_large(config: &Config, bytes: u64) -> SimError {
    SimError::TooLarge(format!(
        "{}: {} needs {:.3} GiB ({bytes} bytes) on the CPU, more than the limit of {} GiB ({CPU_MEMORY_LIMIT} bytes); {}",
        config.model_info().size_keys,
        size_of(config),
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
    } else if gpu.as_ref().is_some_and(|g| g.defers_readbacks())
        && config.model_info().page_checks.is_none()
    {
        // its engine reads results back by waiting for the device, which a page cannot
        Some(format!(
            "the {}'s GPU engine does not run in a browser tab yet",
            config.model_info().label
        ))
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
    // an engine that runs on the CPU although the GPU was asked for is built from the
    // configuration as it runs, so that its summary's `engine` says "cpu" (a page without
    // WebGPU said "gpu", issue 56 §4)
    let built = if wants_gpu && !on_gpu {
        let mut as_run = config.clone();
        as_run.set_engine(EngineKind::Cpu);
        (config.model_info().build)(&as_run, device)?
    } else {
        (config.model_info().build)(config, device)?
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
            engine: built,
        })
    }

    /// Refuses, before any device is opened, a run that cannot go on `count` devices: one
    /// on the CPU, or one of a model whose runs do not split, over several.
    pub fn check_devices(config: &Config, count: usize) -> Result<(), String> {
        if config.engine() != EngineKind::Gpu {
            return Err(
                "--devices: this run is on the CPU (run.engine = \"cpu\"); add --engine gpu".into(),
            );
        }
        if count > 1 && (config.model_info().spread.is_none() || !has_gpu_engine(config)) {
            return Err(format!(
                "--devices: a run of this model ({}) takes one GPU (M/M/c/k's replications split over several; `sweep --devices` spreads any model's runs)",
                config.model_info().label
            ));
        }
        Ok(())
    }

    /// Builds `config`'s GPU engine over `gpus` (`run --devices`): on one device, the
    /// usual engine; on several, the model's spread engine ([`Self::check_devices`] says
    /// which runs can).
    pub fn on_devices(config: Config, gpus: &[Arc<Gpu>]) -> Result<Self, SimError> {
        Self::check_devices(&config, gpus.len()).map_err(SimError::Gpu)?;
        let engine = match (gpus, config.model_info().spread) {
            ([one], _) => build(&config, Some(one.clone()), GpuFallback::Refuse)?.0,
            (_, Some(spread)) => spread(&config, gpus)?,
            (_, None) => return Err(SimError::Gpu("--devices: no spread engine".into())),
        };
        Ok(Self { config, engine })
    }
}
