//! The mixture log-likelihood on the GPU (paper 003 §3; its speed against the CPU is in
//! bench/NOTES.md). The distinct values (centred on the sample mean, so that f32 keeps their
//! differences) and their counts stay on the device; a batch of mixtures (a fit's round)
//! uploads their component terms, runs one dispatch (one row of workgroups per mixture) and
//! reads back one f32 per 256 values per mixture, each mixture's summed in f64 — the same
//! value for a mixture whatever else is in its batch.
//!
//! Accuracy: each term is computed in f32 (relative error a few ulp, ~1e-6 with the
//! exp/log of a Vulkan driver) and summed in f32 over 256 terms, so
//! |ln L_gpu − ln L_cpu| ≤ [`TOLERANCE`] · Σ_i |ln f(x_i)| — tested against the CPU's f64
//! evaluation, and checked by `pdes-lab verify`.

use super::{Data, Loglik, Mixture};
use bytemuck::{Pod, Zeroable};
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, Use};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Most components the shader holds.
pub const MAX_COMPONENTS: usize = 10;
/// Relative bound of the f32 evaluation against the f64 one, in units of Σ|ln f(x_i)|.
pub const TOLERANCE: f64 = 1e-5;
const WG: u32 = 256;
/// How long a round's readback asks the fence in a loop before it blocks.
const SPIN: std::time::Duration = std::time::Duration::from_millis(2);

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Params {
    n: u32,
    groups: u32,
    pad: [u32; 2],
}

/// One mixture as the shader reads it (`Mix` in mixture.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct MixWords {
    k: u32,
    pad: [u32; 3],
    comp: [[f32; 4]; MAX_COMPONENTS],
}

struct Pipeline {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

/// The buffers of a batch, sized for `capacity` mixtures (grown when a larger batch comes):
/// kept from round to round, so that a round is one upload, one submit (the dispatch and
/// the copy to `staging`) and one wait — no buffer made per round.
struct BatchBuffers {
    capacity: u64,
    mixes: wgpu::Buffer,
    partial: wgpu::Buffer,
    staging: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

/// The data on the device, ready for evaluations.
pub struct GpuLoglik {
    gpu: Arc<Gpu>,
    groups: u32,
    shift: f64,
    params: wgpu::Buffer,
    xs: wgpu::Buffer,
    counts: wgpu::Buffer,
    batch: Mutex<Option<BatchBuffers>>,
    pipeline: Arc<Pipeline>,
}

/// The shader's source (validation tests).
pub fn module_source() -> String {
    include_str!("mixture.wgsl").to_string()
}

impl GpuLoglik {
    /// Uploads `data`. Refuses more distinct values than one dispatch or buffer holds.
    pub fn new(gpu: Arc<Gpu>, data: &Data) -> Result<Self, String> {
        let n = data.values.len();
        let most = (u64::from(gpu.limits.max_compute_workgroups_per_dimension) * u64::from(WG))
            .min(gpu.max_storage_buffer() / 4);
        if n as u64 > most {
            return Err(format!(
                "{n} distinct values: this adapter evaluates at most {most} in one pass"
            ));
        }
        let (shift, _) = data.moments();
        let xs: Vec<f32> = data.values.iter().map(|x| (x - shift) as f32).collect();
        let counts: Vec<f32> = data.counts.iter().map(|&c| c as f32).collect();
        let device = &gpu.device;
        let init = |label: &str, contents: &[u8], usage| {
            pdes_gpu::kit::buffer_init(device, label, contents, usage)
        };
        let groups = (n as u32).div_ceil(WG);
        let params = init(
            "mixture params",
            bytemuck::bytes_of(&Params {
                n: n as u32,
                groups,
                pad: [0; 2],
            }),
            wgpu::BufferUsages::UNIFORM,
        );
        let xs = init(
            "mixture values",
            bytemuck::cast_slice(&xs),
            wgpu::BufferUsages::STORAGE,
        );
        let counts = init(
            "mixture counts",
            bytemuck::cast_slice(&counts),
            wgpu::BufferUsages::STORAGE,
        );
        let pipeline = gpu.cached("mixture pipeline", || {
            let layout = kit::layout(
                device,
                "mixture",
                &[
                    Use::Uniform,
                    Use::Read,
                    Use::Read,
                    Use::ReadWrite,
                    Use::Read,
                ],
            );
            let pl = kit::pipeline_layout(device, "mixture", &[&layout]);
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("mixture"),
                source: wgpu::ShaderSource::Wgsl(module_source().into()),
            });
            Pipeline {
                pipeline: kit::pipeline(device, &pl, &module, "loglik"),
                layout,
            }
        });
        Ok(Self {
            gpu,
            groups,
            shift,
            params,
            xs,
            counts,
            batch: Mutex::new(None),
            pipeline,
        })
    }

    /// Most mixtures one dispatch takes: one row of workgroups each, within the adapter's
    /// dispatch limit and its largest partial-sums buffer.
    fn most_per_dispatch(&self) -> usize {
        let by_rows = u64::from(self.gpu.limits.max_compute_workgroups_per_dimension);
        let by_bytes = self.gpu.max_storage_buffer() / (4 * u64::from(self.groups));
        by_rows.min(by_bytes).clamp(1, 1 << 16) as usize
    }

    /// Waits until `mapped` is set by the staging buffer's map callback. A round is a few
    /// µs of GPU work, so the fence is asked in a loop for up to [`SPIN`] first: a blocking
    /// wait sleeps in the driver and wakes tens of µs after the GPU is done, on every one
    /// of a fit's ~17,000 rounds (bench/NOTES.md, "Fits in rounds").
    fn wait_for(&self, mapped: &AtomicBool) -> Result<(), String> {
        let device = &self.gpu.device;
        let started = web_time::Instant::now();
        while !mapped.load(Ordering::Acquire) && started.elapsed() < SPIN {
            device
                .poll(wgpu::PollType::Poll)
                .map_err(|e| format!("asking the GPU: {e}"))?;
            std::hint::spin_loop();
        }
        if !mapped.load(Ordering::Acquire) {
            device
                .poll(wgpu::PollType::Wait {
                    submission_index: None,
                    timeout: None,
                })
                .map_err(|e| format!("waiting for the GPU: {e}"))?;
        }
        Ok(())
    }

    /// Evaluates `mixes` (at most [`Self::most_per_dispatch`]) in one dispatch.
    fn dispatch(&self, mixes: &[Mixture]) -> Result<Vec<f64>, String> {
        let words: Vec<MixWords> = mixes
            .iter()
            .map(|mix| {
                let mut w = MixWords {
                    k: mix.k() as u32,
                    pad: [0; 3],
                    comp: [[0.0; 4]; MAX_COMPONENTS],
                };
                for (j, (a, inv, mu)) in mix.terms().into_iter().enumerate() {
                    w.comp[j] = [a as f32, inv as f32, (mu - self.shift) as f32, 0.0];
                }
                w
            })
            .collect();
        let count = words.len() as u64;
        let device = &self.gpu.device;
        let mut batch = self.batch.lock().unwrap_or_else(|e| e.into_inner());
        if batch.as_ref().is_none_or(|b| b.capacity < count) {
            // room for twice the batch, so that a growing fit reallocates a few times only
            let capacity = (2 * count).min(self.most_per_dispatch() as u64).max(count);
            let mixes = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("mixture batch"),
                size: capacity * std::mem::size_of::<MixWords>() as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let partial = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("mixture partial sums"),
                size: capacity * 4 * u64::from(self.groups),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let staging = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("mixture partial sums, read back"),
                size: capacity * 4 * u64::from(self.groups),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let bind_group = kit::bind_group(
                device,
                "mixture",
                &self.pipeline.layout,
                &[&self.params, &self.xs, &self.counts, &partial, &mixes],
            );
            *batch = Some(BatchBuffers {
                capacity,
                mixes,
                partial,
                staging,
                bind_group,
            });
        }
        let Some(b) = batch.as_ref() else {
            return Err("the mixture batch buffers are missing".into());
        };
        self.gpu
            .queue
            .write_buffer(&b.mixes, 0, bytemuck::cast_slice(&words));
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &b.bind_group, &[]);
            pass.set_pipeline(&self.pipeline.pipeline);
            pass.dispatch_workgroups(self.groups, count as u32, 1);
        }
        let size = count * 4 * u64::from(self.groups);
        enc.copy_buffer_to_buffer(&b.partial, 0, &b.staging, 0, size);
        self.gpu.queue.submit([enc.finish()]);
        let slice = b.staging.slice(..size);
        let mapped = Arc::new(AtomicBool::new(false));
        let flag = mapped.clone();
        slice.map_async(wgpu::MapMode::Read, move |_| {
            flag.store(true, Ordering::Release)
        });
        self.wait_for(&mapped)?;
        let view = slice
            .get_mapped_range()
            .map_err(|e| format!("reading the partial sums back: {e}"))?;
        let partial: Vec<f32> = bytemuck::pod_collect_to_vec(&view);
        drop(view);
        b.staging.unmap();
        Ok(partial
            .chunks(self.groups as usize)
            .map(|sums| sums.iter().map(|&v| f64::from(v)).sum())
            .collect())
    }
}

impl Loglik for GpuLoglik {
    fn speculate(&self) -> bool {
        true
    }

    fn logliks(&self, mixes: &[Mixture]) -> Result<Vec<f64>, String> {
        if let Some(m) = mixes.iter().find(|m| m.k() > MAX_COMPONENTS) {
            return Err(format!(
                "{} components: the GPU evaluates at most {MAX_COMPONENTS}",
                m.k()
            ));
        }
        let mut out = Vec::with_capacity(mixes.len());
        for part in mixes.chunks(self.most_per_dispatch()) {
            out.extend(self.dispatch(part)?);
        }
        Ok(out)
    }
}
