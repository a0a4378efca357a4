//! The device's floors, measured without timestamps (issue 15): the wall time of a chain
//! of dispatches in one compute pass (empty ones, and ones that depend on the previous one
//! through a storage word, as a step's passes do), and the bandwidth of a plain buffer copy
//! through wgpu; and chains of whole-buffer passes at the sizes of a real step's state (a
//! copy, as a stencil step reads and writes its grid, and a read, as the torus scan reads
//! its departure times), which is what "bytes over bandwidth" costs in a step rather than
//! in one long stream. Each figure is the median of several timed submits after a warm-up.

use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, Use};
use serde::Serialize;

mod chase;
mod events;
mod stencil;
#[cfg(test)]
mod tests;

pub use chase::{BlockRung, ChaseRung, block_ladder, chase_ladder};
pub use events::{EventRung, event_ladder};
pub use stencil::{STENCIL_RUNGS, StencilRung, stencil_ladder};

/// What the floors are.
#[derive(Clone, Debug, Serialize)]
pub struct Floors {
    /// Dispatches per timed submit.
    pub dispatches: u32,
    /// Microseconds per empty dispatch (one workgroup each), median.
    pub empty_dispatch_us: f64,
    /// Microseconds per dispatch that reads and writes the word the previous one wrote.
    pub dependent_dispatch_us: f64,
    /// The same, the chain alternating between two pipelines of the same code (as a
    /// torus step alternates its scan and arrive passes).
    pub dependent_alternating_us: f64,
    /// Bytes per buffer copy.
    pub copy_bytes: u64,
    /// GB/s of `copy_buffer_to_buffer` (bytes read + bytes written, per second), median.
    pub copy_gb_per_s: f64,
    /// Bytes a compute shader streams (read once, coalesced) and a gather draws from.
    pub stream_bytes: u64,
    /// GB/s read by a compute shader streaming `stream_bytes`, median.
    pub stream_gb_per_s: f64,
    /// Random 16-byte reads per gather, each from its own 32-byte sector of the buffer.
    pub gather_reads: u64,
    /// Millions of such random sector reads per second, median (the rate that bounds a
    /// pass whose events touch records scattered over memory).
    pub gather_m_per_s: f64,
    /// Millions of sector reads per second when they come in pairs, both sectors of random
    /// 64-byte blocks (as many sectors as the gather), median.
    pub gather_pairs_m_per_s: f64,
    /// Chains of dependent whole-buffer passes, one entry per size asked.
    pub passes: Vec<PassFloor>,
    /// Timed repetitions behind each median.
    pub repeats: u32,
}

/// What one pass over a buffer of `bytes` costs when it depends on the pass before it.
#[derive(Clone, Debug, Serialize)]
pub struct PassFloor {
    /// Bytes read by each pass (a copy also writes as many).
    pub bytes: u64,
    /// Passes per timed chain.
    pub chain: u32,
    /// Microseconds per copy pass (`bytes` read, `bytes` written), median, at the best of
    /// the thread counts tried.
    pub copy_us: f64,
    /// 16-byte elements per thread of that best copy.
    pub copy_items: u32,
    /// Microseconds per read-only pass over `bytes`, median, at its best thread count.
    pub read_us: f64,
    /// 16-byte elements per thread of that best read.
    pub read_items: u32,
}

/// Elements per thread tried for each pass: from one (most threads) to 8 (fewest).
const ITEMS_TRIED: [u32; 3] = [1, 2, 8];

pub(crate) fn median(v: Vec<f64>) -> f64 {
    crate::median(&v)
}

/// Seconds from submit to completion of what `encode` records.
pub(crate) fn timed(gpu: &Gpu, encode: &dyn Fn(&mut wgpu::CommandEncoder)) -> Result<f64, String> {
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

/// The median of `repeats` timed runs of what `encode` records, after one untimed run.
pub(crate) fn median_seconds(
    gpu: &Gpu,
    repeats: u32,
    encode: &dyn Fn(&mut wgpu::CommandEncoder),
) -> Result<f64, String> {
    let mut times = Vec::new();
    for r in 0..=repeats {
        let t = timed(gpu, encode)?;
        if r > 0 {
            times.push(t);
        }
    }
    Ok(median(times))
}

/// Measures the floors with `dispatches` per chain, a copy of `copy_bytes`, and chains of
/// `chain` dependent passes over each of `pass_sizes` bytes.
pub fn measure(
    gpu: &Gpu,
    dispatches: u32,
    copy_bytes: u64,
    pass_sizes: &[u64],
    chain: u32,
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
    let dependent_b = kit::pipeline(device, &pl, &module, "dependent_b");
    // dispatch k uses pipelines[k % pipelines.len()], set only when it changes
    let dispatch_chain = |pipelines: &[&wgpu::ComputePipeline]| {
        let t = median_seconds(gpu, repeats, &|enc| {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &group, &[]);
            pass.set_pipeline(pipelines[0]);
            for k in 0..dispatches as usize {
                if pipelines.len() > 1 {
                    pass.set_pipeline(pipelines[k % pipelines.len()]);
                }
                pass.dispatch_workgroups(1, 1, 1);
            }
        })?;
        Ok::<f64, String>(t * 1e6 / f64::from(dispatches))
    };
    let empty_dispatch_us = dispatch_chain(&[&empty])?;
    let dependent_dispatch_us = dispatch_chain(&[&dependent])?;
    let dependent_alternating_us = dispatch_chain(&[&dependent, &dependent_b])?;
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
    let copy_seconds = median_seconds(gpu, repeats, &|enc| {
        enc.copy_buffer_to_buffer(&src, 0, &dst, 0, copy_bytes)
    })?;
    drop((src, dst));
    let (stream_bytes, stream_gb_per_s, gather_reads, gather_m_per_s, gather_pairs_m_per_s) =
        memory_floors(gpu, &module, copy_bytes, repeats)?;
    let passes = pass_sizes
        .iter()
        .map(|&b| pass_floor(gpu, &module, b, chain, repeats))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Floors {
        dispatches,
        empty_dispatch_us,
        dependent_dispatch_us,
        dependent_alternating_us,
        copy_bytes,
        copy_gb_per_s: 2.0 * copy_bytes as f64 / copy_seconds / 1e9,
        stream_bytes,
        stream_gb_per_s,
        gather_reads,
        gather_m_per_s,
        gather_pairs_m_per_s,
        passes,
        repeats,
    })
}

/// Streams a buffer of up to `bytes` (within the binding limit) through a compute shader,
/// and gathers random sectors from it, alone and in 64-byte pairs: (bytes, GB/s, reads per
/// gather, M reads/s, M reads/s in pairs).
fn memory_floors(
    gpu: &Gpu,
    module: &wgpu::ShaderModule,
    bytes: u64,
    repeats: u32,
) -> Result<(u64, f64, u64, f64, f64), String> {
    let device = &gpu.device;
    let layout = kit::layout(device, "floor memory", &[Use::ReadWrite, Use::ReadWrite]);
    let pl = kit::pipeline_layout(device, "floor memory", &[&layout]);
    let stream = kit::pipeline(device, &pl, module, "stream");
    let gather = kit::pipeline(device, &pl, module, "gather");
    let gather_pairs = kit::pipeline(device, &pl, module, "gather_pairs");
    let bytes = bytes.min(gpu.max_storage_buffer()) & !255;
    let big = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("floor stream"),
        size: bytes,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let sink = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("floor sink"),
        size: 1024,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let group = kit::bind_group(device, "floor memory", &layout, &[&big, &sink]);
    let run = |p: &wgpu::ComputePipeline, groups: u32| {
        median_seconds(gpu, repeats, &|enc| {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &group, &[]);
            pass.set_pipeline(p);
            pass.dispatch_workgroups(groups, 1, 1);
        })
    };
    // enough threads to fill any GPU several times over, each streaming 16 bytes a load
    let stream_groups = (bytes / 16 / 256 / 8).clamp(1, 16_384) as u32;
    let stream_gb_per_s = bytes as f64 / run(&stream, stream_groups)? / 1e9;
    // 4 reads per thread (GATHER in floor.wgsl), as many reads as the buffer has sectors
    let gather_groups = (bytes / 32 / 4 / 256).clamp(1, 65_535) as u32;
    let gather_reads = u64::from(gather_groups) * 256 * 4;
    let gather_m_per_s = gather_reads as f64 / run(&gather, gather_groups)? / 1e6;
    let pairs_m_per_s = gather_reads as f64 / run(&gather_pairs, gather_groups)? / 1e6;
    Ok((
        bytes,
        stream_gb_per_s,
        gather_reads,
        gather_m_per_s,
        pairs_m_per_s,
    ))
}

/// Records `passes` dispatches of `pipeline` in one compute pass, alternating between the
/// two bind groups (pass k uses `groups[k % 2]`: a ping-pong of two buffers).
pub(crate) fn encode_chain(
    enc: &mut wgpu::CommandEncoder,
    pipeline: &wgpu::ComputePipeline,
    groups: [&wgpu::BindGroup; 2],
    workgroups: (u32, u32),
    passes: u32,
) {
    let mut pass = enc.begin_compute_pass(&Default::default());
    pass.set_pipeline(pipeline);
    for k in 0..passes {
        pass.set_bind_group(0, groups[(k % 2) as usize], &[]);
        pass.dispatch_workgroups(workgroups.0, workgroups.1, 1);
    }
}

/// Times chains of `chain` passes over `bytes` (a multiple of 16 within the binding limit):
/// copies alternating between two buffers (each pass reads what the previous one wrote),
/// and reads of one buffer; each at every count of `ITEMS_TRIED`, keeping the fastest. The
/// copy is checked: after the chains the second buffer holds the first one's pattern.
fn pass_floor(
    gpu: &Gpu,
    module: &wgpu::ShaderModule,
    bytes: u64,
    chain: u32,
    repeats: u32,
) -> Result<PassFloor, String> {
    let device = &gpu.device;
    let bytes = bytes.min(gpu.max_storage_buffer()) & !15;
    let layout = kit::layout(device, "floor pass", &[Use::ReadWrite, Use::ReadWrite]);
    let pl = kit::pipeline_layout(device, "floor pass", &[&layout]);
    let copy = kit::pipeline(device, &pl, module, "copy");
    let read = kit::pipeline(device, &pl, module, "stream");
    let pattern: Vec<u32> = (0..(bytes / 4) as u32)
        .map(|i| i.wrapping_mul(0x9e37_79b1) ^ 0x5bd1_e995)
        .collect();
    let a = kit::buffer_init(
        device,
        "floor pass a",
        bytemuck::cast_slice(&pattern),
        kit::STORAGE_RW,
    );
    let b = kit::buffer_init(
        device,
        "floor pass b",
        &vec![0u8; bytes as usize],
        kit::STORAGE_RW,
    );
    let sink = kit::buffer_init(device, "floor pass sink", &[0u8; 1024], kit::STORAGE_RW);
    let a_to_b = kit::bind_group(device, "floor a→b", &layout, &[&a, &b]);
    let b_to_a = kit::bind_group(device, "floor b→a", &layout, &[&b, &a]);
    let read_a = kit::bind_group(device, "floor read a", &layout, &[&a, &sink]);
    let elements = bytes / 16;
    let best = |p: &wgpu::ComputePipeline, groups: [&wgpu::BindGroup; 2]| {
        let mut best = (f64::INFINITY, 0);
        for items in ITEMS_TRIED {
            let wg = elements.div_ceil(256 * u64::from(items)).clamp(1, 65_535) as u32;
            let t = median_seconds(gpu, repeats, &|enc| {
                encode_chain(enc, p, groups, (wg, 1), chain)
            })?;
            let us = t * 1e6 / f64::from(chain);
            if us < best.0 {
                best = (us, items);
            }
        }
        Ok::<(f64, u32), String>(best)
    };
    let (copy_us, copy_items) = best(&copy, [&a_to_b, &b_to_a])?;
    let (read_us, read_items) = best(&read, [&read_a, &read_a])?;
    let copied = kit::read_buffers(gpu, &[&b]).map_err(|e| e.to_string())?;
    if copied[0] != bytemuck::cast_slice::<u32, u8>(&pattern) {
        return Err(format!(
            "the floor's copy pass of {bytes} bytes did not copy them"
        ));
    }
    Ok(PassFloor {
        bytes,
        chain,
        copy_us,
        copy_items,
        read_us,
        read_items,
    })
}

/// The floor suites' WGSL modules by name (for the validation test).
pub fn shader_modules() -> Vec<(String, String)> {
    vec![
        (
            "floor".into(),
            include_str!("../../shaders/floor.wgsl").into(),
        ),
        (
            "stencil_ladder".into(),
            include_str!("../../shaders/stencil_ladder.wgsl").into(),
        ),
    ]
}
