//! What the window (and the factory above) needs from any engine beyond the engine
//! interface of [`pdes_core::sim::Engine`]: where it runs, its heatmap words, a plot sample,
//! one cell's value. Every model's CPU and GPU engines implement [`LiveEngine`].

/// Bit 31 of a heatmap cell's first word: the cell has an event in the next step (the
/// count is the low 31 bits); the heatmap draws it as an outline. Set by the torus's and
/// PHOLD's engines, CPU and GPU alike.
pub const NEXT_STEP_BIT: u32 = 1 << 31;

use crate::Gpu;
use pdes_core::sim::{Engine, SimError};

/// One point of the live plots (each model fills its own quantities; the rest stay 0).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    /// Simulated time.
    pub time: f64,
    /// Steps so far (events for sequential and event).
    pub steps: u64,
    /// Events so far (diffusion: cell updates).
    pub events: u64,
    /// Torus, networks: busy fraction from the warm-up up to `time`, the services in
    /// progress counted up to it, as `run` counts it (M/M/c/k: busy fraction of a server).
    pub utilization: f64,
    /// Torus: mean sojourn time of completed visits (M/M/c/k: mean time in system).
    pub sojourn: f64,
    /// Torus: causality errors so far.
    pub causality_errors: u64,
    /// Torus: services completed since the warm-up (the count the mean sojourn divides by;
    /// the monitors' batch means weigh by it).
    pub completions: u64,
    /// Open network: tokens in the system now.
    pub tokens_in_system: f64,
    /// Open network: time-average tokens in the system from the warm-up on.
    pub mean_tokens_in_system: f64,
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
    /// Bytes of GPU memory the engine holds; `None` for a CPU engine, which holds none.
    fn gpu_memory_bytes(&self) -> Option<u64> {
        None
    }
    /// "gpu" or "cpu": a GPU engine is one that holds GPU memory.
    fn runs_on(&self) -> &'static str {
        if self.gpu_memory_bytes().is_some() {
            "gpu"
        } else {
            "cpu"
        }
    }
    /// Writes the heatmap words (two u32 per cell) into `buf`: a compute pass for GPU
    /// engines, an upload for CPU ones.
    fn write_display(&self, gpu: &Gpu, buf: &wgpu::Buffer);
    /// The heatmap words, on the CPU (PNG export, tests).
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError>;
    /// A plot sample at simulated time `now` (ticks, capped at the end time).
    fn sample(&self, now: pdes_core::time::Ticks) -> Result<Sample, SimError>;
    /// The engine as `Any`, for a model's own panel to reach its engine's details.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// The words of a model's per-workgroup 64-bit sum pass (one u64 per workgroup, written by
/// an entry point run as a display pass is: the engine's bind group as group 0, these words
/// alone as group 1, [`crate::kit::run_display_pass`]) and their sum in 128 bits. The
/// torus's live samples add the services in progress this way. On
/// a page's device the pass runs after each batch and its words come back with the
/// control block ([`WorkgroupSums::range`], [`WorkgroupSums::keep_head`]): a pass run at
/// sample time could see a batch still in flight.
pub struct WorkgroupSums {
    buffer: wgpu::Buffer,
    groups: u32,
    /// With deferred readbacks: the words after the batch the control block was read at.
    at_head: Option<Vec<u8>>,
}

impl WorkgroupSums {
    /// Room for `groups` words on `gpu`.
    pub fn new(gpu: &Gpu, label: &str, groups: u32) -> Self {
        let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: 8 * u64::from(groups.max(1)),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        Self {
            buffer,
            groups,
            at_head: None,
        }
    }

    /// Runs `pass` over the engine's `state` now, its words into this buffer (nothing is
    /// waited for).
    pub fn submit(
        &self,
        gpu: &Gpu,
        state: &wgpu::BindGroup,
        pass: (&wgpu::BindGroupLayout, &wgpu::ComputePipeline),
    ) {
        crate::kit::run_display_pass(gpu, state, pass, &self.buffer, self.groups);
    }

    /// The words, as a range to copy with a control block.
    pub fn range(&self) -> (&wgpu::Buffer, u64, u64) {
        (&self.buffer, 0, 8 * u64::from(self.groups))
    }

    /// Keeps the words copied with the control block just read.
    pub fn keep_head(&mut self, bytes: Option<Vec<u8>>) {
        self.at_head = bytes;
    }

    /// The words' sum: on a page's device those kept with the control block
    /// (`SimError::NotYet` until the first comes back); elsewhere `pass` run now and read
    /// back as of the engine's batch `work`.
    pub fn sum(
        &self,
        gpu: &Gpu,
        state: &wgpu::BindGroup,
        pass: (&wgpu::BindGroupLayout, &wgpu::ComputePipeline),
        work: u64,
    ) -> Result<u128, SimError> {
        let read;
        let bytes = if gpu.defers_readbacks() {
            self.at_head.as_deref().ok_or(SimError::NotYet)?
        } else {
            self.submit(gpu, state, pass);
            read = crate::read_ranges_since(gpu, &[self.range()], work)?;
            &read[0]
        };
        let words: &[[u32; 2]] = bytemuck::cast_slice(bytes);
        Ok(words.iter().map(|w| u128::from(crate::kit::join(*w))).sum())
    }
}
