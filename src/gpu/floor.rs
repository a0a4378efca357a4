//! The device's floors, measured without timestamps (issue 15): the wall time of a chain
//! of dispatches in one compute pass (empty ones, and ones that depend on the previous one
//! through a storage word, as a step's passes do), and the bandwidth of a plain buffer copy
//! through wgpu. Each figure is the median of several timed submits after a warm-up.

use super::Gpu;
use super::kit::{self, Use};
use serde::Serialize;

/// What the floors are.
#[derive(Clone, Debug, Serialize)]
pub struct Floors {
    /// Dispatches per timed submit.
    pub dispatches: u32,
    /// Microseconds per empty dispatch (one workgroup each), median.
    pub empty_dispatch_us: f64,
    /// Microseconds per dispatch that reads and writes the word the previous one wrote.
    pub dependent_dispatch_us: f64,
    /// Bytes per buffer copy.
    pub copy_bytes: u64,
    /// GB/s of `copy_buffer_to_buffer` (bytes read + bytes written, per second), median.
    pub copy_gb_per_s: f64,
    /// Timed repetitions behind each median.
    pub repeats: u32,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Seconds from submit to completion of what `encode` records.
fn timed(gpu: &Gpu, encode: &dyn Fn(&mut wgpu::CommandEncoder)) -> Result<f64, String> {
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    encode(&mut enc);
    let cmd = enc.finish();
    let t0 = std::time::Instant::now();
    gpu.queue.submit([cmd]);
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| e.to_string())?;
    Ok(t0.elapsed().as_secs_f64())
}

/// Measures the floors with `dispatches` per chain and a copy of `copy_bytes`.
pub fn measure(
    gpu: &Gpu,
    dispatches: u32,
    copy_bytes: u64,
    repeats: u32,
) -> Result<Floors, String> {
    let device = &gpu.device;
    let layout = kit::layout(device, "floor", &[Use::ReadWrite]);
    let pl = kit::pipeline_layout(device, "floor", &[&layout]);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("floor"),
        source: wgpu::ShaderSource::Wgsl(include_str!("../../shaders/floor.wgsl").into()),
    });
    let empty = kit::pipeline(device, &pl, &module, "empty");
    let dependent = kit::pipeline(device, &pl, &module, "dependent");
    let word = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("floor word"),
        size: 256,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let group = kit::bind_group(device, "floor", &layout, &[&word]);
    let chain = |p: &wgpu::ComputePipeline| {
        let mut times = Vec::new();
        for r in 0..=repeats {
            let t = timed(gpu, &|enc| {
                let mut pass = enc.begin_compute_pass(&Default::default());
                pass.set_bind_group(0, &group, &[]);
                pass.set_pipeline(p);
                for _ in 0..dispatches {
                    pass.dispatch_workgroups(1, 1, 1);
                }
            })?;
            if r > 0 {
                times.push(t * 1e6 / f64::from(dispatches));
            }
        }
        Ok::<f64, String>(median(times))
    };
    let empty_dispatch_us = chain(&empty)?;
    let dependent_dispatch_us = chain(&dependent)?;
    let copy_bytes = copy_bytes.min(gpu.limits.max_buffer_size) & !255;
    let buf = |label| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: copy_bytes,
            usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    };
    let (src, dst) = (buf("floor copy source"), buf("floor copy destination"));
    let mut rates = Vec::new();
    for r in 0..=repeats {
        let t = timed(gpu, &|enc| {
            enc.copy_buffer_to_buffer(&src, 0, &dst, 0, copy_bytes)
        })?;
        if r > 0 {
            rates.push(2.0 * copy_bytes as f64 / t / 1e9);
        }
    }
    Ok(Floors {
        dispatches,
        empty_dispatch_us,
        dependent_dispatch_us,
        copy_bytes,
        copy_gb_per_s: median(rates),
        repeats,
    })
}
