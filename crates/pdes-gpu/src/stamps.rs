//! A batch of GPU-resident steps submitted in chunks ([`submit_steps`]) and, with
//! `PDES_GPU_PROFILE`, timed on the GPU ([`BatchStamps`]): what the diffusion, DEVS and
//! PHOLD engines and the accumulators share.

use super::{Gpu, read_ranges};
use pdes_core::sim::SimError;

/// `PDES_GPU_PROFILE`: the GPU time of one batch of dispatches from two timestamps written
/// inside its compute pass (when the adapter has TIMESTAMP_QUERY_INSIDE_PASSES), printed
/// per step next to the encode and wall-clock times.
pub struct BatchStamps {
    set: wgpu::QuerySet,
    resolved: wgpu::Buffer,
}

/// Queues a batch of `steps` GPU-resident steps in one compute pass per submission of at
/// most `per_submit` steps (the GPU starts on the first while the host encodes the next;
/// one submit per batch put encoding and execution in series), each step's dispatches
/// written by `encode_step` after the bind group is set; with `stamps`, the batch is timed
/// between its first and last dispatch. Returns the host's encoding seconds.
pub fn submit_steps(
    gpu: &Gpu,
    bind_group: &wgpu::BindGroup,
    steps: u32,
    per_submit: u32,
    stamps: Option<&BatchStamps>,
    mut encode_step: impl FnMut(&mut wgpu::ComputePass<'_>),
) -> f64 {
    let mut encode = 0.0;
    let mut done = 0;
    while done < steps {
        let chunk = (steps - done).min(per_submit);
        let last = done + chunk == steps;
        let t_chunk = web_time::Instant::now();
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            if let (Some(s), 0) = (stamps, done) {
                s.write(&mut pass, 0);
            }
            pass.set_bind_group(0, bind_group, &[]);
            for _ in 0..chunk {
                encode_step(&mut pass);
            }
            if let (Some(s), true) = (stamps, last) {
                s.write(&mut pass, 1);
            }
        }
        if let (Some(s), true) = (stamps, last) {
            s.resolve(&mut enc);
        }
        let cmd = enc.finish();
        encode += t_chunk.elapsed().as_secs_f64();
        gpu.queue.submit([cmd]);
        done += chunk;
    }
    encode
}

/// True when PDES_GPU_PROFILE asks for GPU timestamps and the adapter can write them inside
/// passes (every profile of passes and batches asks this).
pub fn profiling_wanted(gpu: &Gpu) -> bool {
    std::env::var_os("PDES_GPU_PROFILE").is_some()
        && gpu
            .device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES)
}

impl BatchStamps {
    /// Timestamps for a batch, when profiling is asked for and the adapter has them.
    pub fn new(gpu: &Gpu, label: &str) -> Option<Self> {
        profiling_wanted(gpu).then(|| Self {
            set: gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some(label),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolved: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
        })
    }

    /// Writes timestamp `i` (0 at the start of the batch, 1 at its end) in `pass`.
    pub fn write(&self, pass: &mut wgpu::ComputePass, i: u32) {
        pass.write_timestamp(&self.set, i);
    }

    /// Resolves both timestamps into the readable buffer (after the pass).
    pub fn resolve(&self, enc: &mut wgpu::CommandEncoder) {
        enc.resolve_query_set(&self.set, 0..2, &self.resolved, 0);
    }

    /// The range to read back with the batch's other results.
    pub fn range(&self) -> (&wgpu::Buffer, u64, u64) {
        (&self.resolved, 0, 16)
    }

    /// Reads the timestamps back and prints the batch's times per step; `encode` and
    /// `wall` are the host's encode and whole-batch durations (profiling, on a device that
    /// waits).
    pub fn read_and_report(
        &self,
        gpu: &Gpu,
        steps: u64,
        encode: f64,
        wall: f64,
    ) -> Result<(), SimError> {
        let bytes = read_ranges(gpu, &[self.range()])?;
        let t: &[u64] = bytemuck::cast_slice(&bytes[0]);
        let gpu_us =
            t[1].saturating_sub(t[0]) as f64 * f64::from(gpu.queue.get_timestamp_period()) / 1e3;
        let n = steps.max(1) as f64;
        eprintln!(
            "batch {steps} steps: encode {:.1} µs/step, GPU {:.1} µs/step, wall {:.1} µs/step",
            encode * 1e6 / n,
            gpu_us / n,
            wall * 1e6 / n
        );
        Ok(())
    }
}

/// `PDES_GPU_PROFILE`: the wall time of an engine's host phases (set-up, read-back,
/// summary), printed to stderr as one line when dropped — where the time outside the
/// GPU's steps goes. Does nothing without the variable.
pub struct HostPhases {
    what: &'static str,
    last: Option<web_time::Instant>,
    parts: Vec<(&'static str, f64)>,
}

impl HostPhases {
    /// Starts timing `what`'s phases (when `PDES_GPU_PROFILE` is set).
    pub fn start(what: &'static str) -> Self {
        Self {
            what,
            last: std::env::var_os("PDES_GPU_PROFILE").map(|_| web_time::Instant::now()),
            parts: Vec::new(),
        }
    }

    /// Ends the phase `name` (begun at the last mark or the start).
    pub fn mark(&mut self, name: &'static str) {
        if let Some(t) = self.last {
            let now = web_time::Instant::now();
            self.parts.push((name, (now - t).as_secs_f64()));
            self.last = Some(now);
        }
    }
}

impl Drop for HostPhases {
    fn drop(&mut self) {
        if self.last.is_some() && !self.parts.is_empty() {
            let parts: Vec<String> = self
                .parts
                .iter()
                .map(|(n, s)| format!("{n} {:.1} ms", s * 1e3))
                .collect();
            eprintln!("{}: {}", self.what, parts.join(", "));
        }
    }
}
