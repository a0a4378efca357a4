//! The mixture log-likelihood on the GPU (paper 003 §3; its speed against the CPU is in
//! bench/NOTES.md). The distinct values (centred on the sample mean, so that f32 keeps their
//! differences) and their counts stay on the device; an evaluation uploads the k component
//! terms, runs one dispatch and reads back one f32 per 256 values, summed in f64.
//!
//! Accuracy: each term is computed in f32 (relative error a few ulp, ~1e-6 with the
//! exp/log of a Vulkan driver) and summed in f32 over 256 terms, so
//! |ln L_gpu − ln L_cpu| ≤ [`TOLERANCE`] · Σ_i |ln f(x_i)| — tested against the CPU's f64
//! evaluation, and checked by `pdes-lab verify`.

use super::{Data, Loglik, Mixture};
use bytemuck::{Pod, Zeroable};
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, Use, read_buffers};
use std::sync::Arc;

/// Most components the shader holds.
pub const MAX_COMPONENTS: usize = 10;
/// Relative bound of the f32 evaluation against the f64 one, in units of Σ|ln f(x_i)|.
pub const TOLERANCE: f64 = 1e-5;
const WG: u32 = 256;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Params {
    n: u32,
    k: u32,
    pad: [u32; 2],
    comp: [[f32; 4]; MAX_COMPONENTS],
}

struct Pipeline {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

/// The data on the device, ready for evaluations.
pub struct GpuLoglik {
    gpu: Arc<Gpu>,
    n: u32,
    shift: f64,
    params: wgpu::Buffer,
    partial: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
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
        let params = init(
            "mixture params",
            bytemuck::bytes_of(&Params::zeroed()),
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        let xs_buf = init(
            "mixture values",
            bytemuck::cast_slice(&xs),
            wgpu::BufferUsages::STORAGE,
        );
        let counts_buf = init(
            "mixture counts",
            bytemuck::cast_slice(&counts),
            wgpu::BufferUsages::STORAGE,
        );
        let groups = (n as u32).div_ceil(WG);
        let partial = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("mixture partial sums"),
            size: 4 * u64::from(groups),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let pipeline = gpu.cached("mixture pipeline", || {
            let layout = kit::layout(
                device,
                "mixture",
                &[Use::Uniform, Use::Read, Use::Read, Use::ReadWrite],
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
        let bind_group = kit::bind_group(
            device,
            "mixture",
            &pipeline.layout,
            &[&params, &xs_buf, &counts_buf, &partial],
        );
        Ok(Self {
            gpu,
            n: n as u32,
            shift,
            params,
            partial,
            bind_group,
            pipeline,
        })
    }
}

impl Loglik for GpuLoglik {
    fn loglik(&self, mix: &Mixture) -> Result<f64, String> {
        if mix.k() > MAX_COMPONENTS {
            return Err(format!(
                "{} components: the GPU evaluates at most {MAX_COMPONENTS}",
                mix.k()
            ));
        }
        let mut p = Params {
            n: self.n,
            k: mix.k() as u32,
            pad: [0; 2],
            comp: [[0.0; 4]; MAX_COMPONENTS],
        };
        for (j, (a, inv, mu)) in mix.terms().into_iter().enumerate() {
            p.comp[j] = [a as f32, inv as f32, (mu - self.shift) as f32, 0.0];
        }
        let q = &self.gpu.queue;
        q.write_buffer(&self.params, 0, bytemuck::bytes_of(&p));
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.set_pipeline(&self.pipeline.pipeline);
            pass.dispatch_workgroups(self.n.div_ceil(WG), 1, 1);
        }
        q.submit([enc.finish()]);
        let bytes = read_buffers(&self.gpu, &[&self.partial]).map_err(|e| e.to_string())?;
        let partial: &[f32] = bytemuck::cast_slice(&bytes[0]);
        Ok(partial.iter().map(|&v| f64::from(v)).sum())
    }
}
