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

fn median(v: Vec<f64>) -> f64 {
    crate::median(&v)
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

/// The median of `repeats` timed runs of what `encode` records, after one untimed run.
fn median_seconds(
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
        source: wgpu::ShaderSource::Wgsl(include_str!("../shaders/floor.wgsl").into()),
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
fn encode_chain(
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

/// One kernel of the stencil ladder and what a pass of it costs.
#[derive(Clone, Debug, Serialize)]
pub struct StencilRung {
    /// Entry point in `shaders/stencil_ladder.wgsl`.
    pub kernel: &'static str,
    /// Microseconds per pass in a chain of dependent passes, median.
    pub us: f64,
}

/// The ladder's kernels, from a plain copy to the diffusion step's layout.
pub const STENCIL_RUNGS: [&str; 5] = ["copy1", "point5", "strip", "strip_count", "quad"];

/// Times chains of `chain` passes of each `STENCIL_RUNGS` kernel over a `side` × `side`
/// f32 grid (side a multiple of 4), ping-ponging between two grids. Before timing, one pass
/// of each stencil kernel is checked against the same step on the CPU (within 1e-3: the
/// driver may fuse a multiply-add), and the copy against its source.
pub fn stencil_ladder(
    gpu: &Gpu,
    side: u32,
    chain: u32,
    repeats: u32,
) -> Result<Vec<StencilRung>, String> {
    if side == 0 || !side.is_multiple_of(4) {
        return Err(format!(
            "stencil ladder: side {side} must be a positive multiple of 4"
        ));
    }
    let device = &gpu.device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("stencil ladder"),
        source: wgpu::ShaderSource::Wgsl(include_str!("../shaders/stencil_ladder.wgsl").into()),
    });
    let uses = [
        Use::Read,
        Use::ReadWrite,
        Use::ReadWrite,
        Use::Read,
        Use::ReadWrite,
    ];
    let layout = kit::layout(device, "stencil ladder", &uses);
    let pl = kit::pipeline_layout(device, "stencil ladder", &[&layout]);
    let n = (side as usize) * (side as usize);
    let grid: Vec<f32> = (0..n)
        .map(|i| ((i as u32).wrapping_mul(0x9e37_79b1) >> 8) as f32 * (100.0 / 16_777_216.0))
        .collect();
    let a = kit::buffer_init(
        device,
        "ladder a",
        bytemuck::cast_slice(&grid),
        kit::STORAGE_RW,
    );
    let b = kit::buffer_init(device, "ladder b", &vec![0u8; n * 4], kit::STORAGE_RW);
    let count = kit::buffer_init(device, "ladder count", &[0u8; 256], kit::STORAGE_RW);
    let a_to_b = kit::bind_group(device, "ladder a→b", &layout, &[&a, &b, &count, &a, &b]);
    let b_to_a = kit::bind_group(device, "ladder b→a", &layout, &[&b, &a, &count, &b, &a]);
    let expected = cpu_stencil(&grid, side as usize);
    // workgroups of 256 for `threads` threads, as (x, y) within the 65,535 limit
    let flat = |threads: u64| {
        let g = threads.div_ceil(256);
        let x = g.min(4096);
        (x as u32, g.div_ceil(x) as u32)
    };
    let strip_groups = (side.div_ceil(256), side.div_ceil(10));
    let mut rungs = Vec::new();
    for kernel in STENCIL_RUNGS {
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(kernel),
            layout: Some(&pl),
            module: &module,
            entry_point: Some(kernel),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &[("SIDE", f64::from(side))],
                ..Default::default()
            },
            cache: None,
        });
        let groups = match kernel {
            "strip" | "strip_count" => strip_groups,
            "quad" => flat(n as u64 / 4),
            _ => flat(n as u64),
        };
        let run = |passes: u32, enc: &mut wgpu::CommandEncoder| {
            encode_chain(enc, &pipeline, [&a_to_b, &b_to_a], groups, passes)
        };
        // one pass from the initial grid, checked
        gpu.queue.write_buffer(&a, 0, bytemuck::cast_slice(&grid));
        let mut enc = device.create_command_encoder(&Default::default());
        run(1, &mut enc);
        gpu.queue.submit([enc.finish()]);
        let out = kit::read_buffers(gpu, &[&b]).map_err(|e| e.to_string())?;
        let got: &[f32] = bytemuck::cast_slice(&out[0]);
        let want = if kernel == "copy1" { &grid } else { &expected };
        if let Some(i) = (0..n).find(|&i| (got[i] - want[i]).abs() > 1e-3) {
            return Err(format!(
                "stencil ladder {kernel}: cell {i} is {} where the CPU step gives {}",
                got[i], want[i]
            ));
        }
        let t = median_seconds(gpu, repeats, &|enc| run(chain, enc))?;
        rungs.push(StencilRung {
            kernel,
            us: t * 1e6 / f64::from(chain),
        });
    }
    Ok(rungs)
}

/// One rung of the latency ladder: what a pass costs whose active threads each follow a
/// chain of dependent random reads.
#[derive(Clone, Debug, Serialize)]
pub struct ChaseRung {
    /// Threads of each 256-thread workgroup that chase (the others return at once).
    pub active: u32,
    /// Dependent reads per active thread per pass.
    pub depth: u32,
    /// Microseconds per pass in a chain of dependent passes, median.
    pub us: f64,
}

/// The hash both sides of the chase use (`hash` in `shaders/floor.wgsl`).
fn chase_hash(x: u32) -> u32 {
    let mut h = x.wrapping_mul(0x9e37_79b1);
    h ^= h >> 15;
    h = h.wrapping_mul(0x85eb_ca77);
    h ^= h >> 13;
    h
}

/// Two variants (an override constant false and true) of a chain of pass pairs: the
/// pipelines of `entries` for each, built with `constants` plus the variant's `flag`.
struct PairVariants {
    pipelines: [[wgpu::ComputePipeline; 2]; 2],
}

impl PairVariants {
    fn new(
        device: &wgpu::Device,
        pl: &wgpu::PipelineLayout,
        module: &wgpu::ShaderModule,
        entries: [&str; 2],
        constants: &[(&str, f64)],
        flag: &str,
    ) -> Self {
        let pipelines = [false, true].map(|on| {
            let mut all = constants.to_vec();
            all.push((flag, f64::from(u8::from(on))));
            entries.map(|e| kit::pipeline_with_constants(device, pl, module, e, &all))
        });
        Self { pipelines }
    }

    /// Records `count` pairs of variant `on`, `workgroups` each, in one compute pass.
    fn encode(
        &self,
        enc: &mut wgpu::CommandEncoder,
        group: &wgpu::BindGroup,
        workgroups: u32,
        count: u32,
        on: bool,
    ) {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_bind_group(0, group, &[]);
        for _ in 0..count {
            for pipeline in &self.pipelines[usize::from(on)] {
                pass.set_pipeline(pipeline);
                pass.dispatch_workgroups(workgroups, 1, 1);
            }
        }
    }

    /// Microseconds per pair of each variant (off, on): chains of `chain`, the variants
    /// interleaved `repeats` times so that a drift of the device's clocks falls on both,
    /// medians.
    fn time(
        &self,
        gpu: &Gpu,
        group: &wgpu::BindGroup,
        workgroups: u32,
        chain: u32,
        repeats: u32,
    ) -> Result<(f64, f64), String> {
        let (mut off, mut on) = (Vec::new(), Vec::new());
        for _ in 0..repeats.max(1) {
            off.push(median_seconds(gpu, 1, &|enc| {
                self.encode(enc, group, workgroups, chain, false)
            })?);
            on.push(median_seconds(gpu, 1, &|enc| {
                self.encode(enc, group, workgroups, chain, true)
            })?);
        }
        let us = |v: Vec<f64>| median(v) * 1e6 / f64::from(chain);
        Ok((us(off), us(on)))
    }
}

/// What the chase and block ladders share: their shader module and bind group layout (a
/// read-only record table, a read-write cursor buffer), and 2^`sectors_log2` records of 32
/// bytes whose first word is a hash of the sector's number (`salt` apart) and the rest
/// padding, on the GPU and here.
struct RecordTable {
    module: wgpu::ShaderModule,
    layout: wgpu::BindGroupLayout,
    pl: wgpu::PipelineLayout,
    /// Eight words per record, as uploaded.
    words: Vec<u32>,
    records: wgpu::Buffer,
    sectors: u32,
}

/// Checks a ladder's sizes (records from 2^4 to 2^`max_log2`, within the adapter's binding
/// limit; 1 to 256 active threads per workgroup) and builds its record table.
fn record_table(
    gpu: &Gpu,
    ladder: &str,
    sectors_log2: u32,
    max_log2: u32,
    actives: &[u32],
    salt: u32,
) -> Result<RecordTable, String> {
    let bytes = 32u64 << sectors_log2.min(40);
    if !(4..=max_log2).contains(&sectors_log2) || bytes > gpu.max_storage_buffer() {
        return Err(format!(
            "{ladder} ladder: 2^{sectors_log2} records of 32 bytes (valid: 2^4 to 2^{max_log2}, within the adapter's largest binding, {} bytes)",
            gpu.max_storage_buffer()
        ));
    }
    if let Some(a) = actives.iter().find(|&&a| !(1..=256).contains(&a)) {
        return Err(format!(
            "{ladder} ladder: {a} active threads (valid: 1 to 256)"
        ));
    }
    let device = &gpu.device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(ladder),
        source: wgpu::ShaderSource::Wgsl(include_str!("../shaders/floor.wgsl").into()),
    });
    let layout = kit::layout(device, ladder, &[Use::Read, Use::ReadWrite]);
    let pl = kit::pipeline_layout(device, ladder, &[&layout]);
    let sectors = 1u32 << sectors_log2;
    let mut words = vec![0u32; 8 * sectors as usize];
    for s in 0..sectors {
        words[8 * s as usize] = chase_hash(s ^ salt);
    }
    let records = kit::buffer_init(
        device,
        &format!("{ladder} records"),
        bytemuck::cast_slice(&words),
        wgpu::BufferUsages::STORAGE,
    );
    Ok(RecordTable {
        module,
        layout,
        pl,
        words,
        records,
        sectors,
    })
}

/// Times chains of `chain` passes of `workgroups` 256-thread workgroups over a table of
/// 2^`sectors_log2` 32-byte records, for every (active threads per workgroup, dependent
/// reads per thread) of `actives` × `depths`: the latency floor of a pass shaped like a
/// step's (the torus at 2048²: 1,024 workgroups over 2²² facility records). Before timing,
/// one pass of each rung is checked against the same chase on the CPU.
pub fn chase_ladder(
    gpu: &Gpu,
    sectors_log2: u32,
    workgroups: u32,
    actives: &[u32],
    depths: &[u32],
    chain: u32,
    repeats: u32,
) -> Result<Vec<ChaseRung>, String> {
    // the x word of every sector's first half is what the chase reads; the rest is padding
    let RecordTable {
        module,
        layout,
        pl,
        words,
        records,
        sectors,
    } = record_table(gpu, "chase", sectors_log2, 30, actives, 0x5bd1_e995)?;
    let device = &gpu.device;
    let threads = workgroups as usize * 256;
    let start: Vec<u32> = (0..threads as u32)
        .map(|t| chase_hash(t ^ 0x2545_f491))
        .collect();
    let cursor = kit::buffer_init(
        device,
        "chase cursor",
        bytemuck::cast_slice(&start),
        kit::STORAGE_RW,
    );
    let group = kit::bind_group(device, "chase", &layout, &[&records, &cursor]);
    let mut rungs = Vec::new();
    for &active in actives {
        for &depth in depths {
            let constants = [("DEPTH", f64::from(depth)), ("ACTIVE", f64::from(active))];
            let pipeline = kit::pipeline_with_constants(device, &pl, &module, "chase", &constants);
            let run = |passes: u32, enc: &mut wgpu::CommandEncoder| {
                encode_chain(enc, &pipeline, [&group, &group], (workgroups, 1), passes)
            };
            gpu.queue
                .write_buffer(&cursor, 0, bytemuck::cast_slice(&start));
            let mut enc = device.create_command_encoder(&Default::default());
            run(1, &mut enc);
            gpu.queue.submit([enc.finish()]);
            let out = kit::read_buffers(gpu, &[&cursor]).map_err(|e| e.to_string())?;
            let got: &[u32] = bytemuck::cast_slice(&out[0]);
            for (t, (&g, &a0)) in got.iter().zip(&start).enumerate() {
                let mut a = a0;
                if t % 256 < active as usize {
                    for _ in 0..depth {
                        a = chase_hash(words[8 * (a & (sectors - 1)) as usize] ^ a);
                    }
                }
                if g != a {
                    return Err(format!(
                        "chase ladder (active {active}, depth {depth}): thread {t} ended at {g:#x} where the CPU's chase ends at {a:#x}"
                    ));
                }
            }
            let t = median_seconds(gpu, repeats, &|enc| run(chain, enc))?;
            rungs.push(ChaseRung {
                active,
                depth,
                us: t * 1e6 / f64::from(chain),
            });
        }
    }
    Ok(rungs)
}

/// One rung of the block ladder: a pass pair whose second pass reads, per active thread,
/// the other sector of the 64-byte block the first pass read, or another random sector.
#[derive(Clone, Debug, Serialize)]
pub struct BlockRung {
    /// Threads of each 256-thread workgroup that read (the others return at once).
    pub active: u32,
    /// Microseconds per pair of passes, the second reading a random sector, median.
    pub far_us: f64,
    /// The same, the second reading the first's 64-byte neighbour, median.
    pub near_us: f64,
}

/// The block ladder's pair on the CPU (`block_first`, `block_second` in floor.wgsl): a
/// thread's next (state, sector) from its state `state`.
fn block_pair(words: &[u32], mask: u32, state: u32, near: bool) -> (u32, u32) {
    let s = chase_hash(state) & mask;
    let state = state ^ words[8 * s as usize];
    let s2 = if near {
        s ^ 1
    } else {
        chase_hash(state ^ 0x27d4_eb2f) & mask
    };
    (chase_hash(state ^ words[8 * s2 as usize]), s)
}

/// Times chains of `chain` pass pairs of `workgroups` 256-thread workgroups over 2^`sectors_log2`
/// 32-byte records (at most 2^23), for every count of `actives` threads per workgroup, the
/// second pass of a pair reading the 64-byte neighbour of the first's sector and, interleaved,
/// another random sector. Before timing, one pair of each is checked against the CPU.
pub fn block_ladder(
    gpu: &Gpu,
    sectors_log2: u32,
    workgroups: u32,
    actives: &[u32],
    chain: u32,
    repeats: u32,
) -> Result<Vec<BlockRung>, String> {
    let RecordTable {
        module,
        layout,
        pl,
        words,
        records,
        sectors,
    } = record_table(gpu, "block", sectors_log2, 23, actives, 0x1b87_3593)?;
    let device = &gpu.device;
    let threads = workgroups as usize * 256;
    // per thread: its state, the sector its first pass read
    let start: Vec<u32> = (0..threads as u32)
        .flat_map(|t| [chase_hash(t ^ 0x3c6e_f372), 0])
        .collect();
    let cursor = kit::buffer_init(
        device,
        "block cursor",
        bytemuck::cast_slice(&start),
        kit::STORAGE_RW,
    );
    let group = kit::bind_group(device, "block", &layout, &[&records, &cursor]);
    let mut rungs = Vec::new();
    for &active in actives {
        let pairs = PairVariants::new(
            device,
            &pl,
            &module,
            ["block_first", "block_second"],
            &[("ACTIVE", f64::from(active))],
            "NEAR",
        );
        for near in [false, true] {
            gpu.queue
                .write_buffer(&cursor, 0, bytemuck::cast_slice(&start));
            let mut enc = device.create_command_encoder(&Default::default());
            pairs.encode(&mut enc, &group, workgroups, 1, near);
            gpu.queue.submit([enc.finish()]);
            let out = kit::read_buffers(gpu, &[&cursor]).map_err(|e| e.to_string())?;
            let got: &[u32] = bytemuck::cast_slice(&out[0]);
            for (t, (g, c)) in got.chunks(2).zip(start.chunks(2)).enumerate() {
                let want = if t % 256 < active as usize {
                    block_pair(&words, sectors - 1, c[0], near)
                } else {
                    (c[0], c[1])
                };
                if (g[0], g[1]) != want {
                    return Err(format!(
                        "block ladder (active {active}, near {near}): thread {t} ended at {:#x?} where the CPU's pair ends at {want:#x?}",
                        (g[0], g[1])
                    ));
                }
            }
        }
        let (far_us, near_us) = pairs.time(gpu, &group, workgroups, chain, repeats)?;
        rungs.push(BlockRung {
            active,
            far_us,
            near_us,
        });
    }
    Ok(rungs)
}

/// One rung of the events ladder: what a step's two passes cost when they do only the
/// memory operations of `active` events per workgroup (`ev_depart`, `ev_arrive` in
/// `shaders/floor.wgsl`).
#[derive(Clone, Debug, Serialize)]
pub struct EventRung {
    /// Departures (and as many arrivals) per workgroup per step.
    pub active: u32,
    /// Microseconds per step (both passes) in a chain of dependent steps, median: the
    /// mailbox with an announcement count, every word read and emptied (the torus until
    /// 70ce220).
    pub us: f64,
    /// The same with the mailbox as a mask of the directions announced, only the flagged
    /// words read, nothing emptied but the mask (`MASKED`; the torus since 70ce220).
    pub masked_us: f64,
}

/// Facilities per segment (one workgroup) of the events ladder (`SEG` in floor.wgsl).
const EVENT_SEG: u32 = 4096;
/// Steps of the events ladder checked against the CPU before each rung is timed.
const CHECKED_STEPS: u32 = 4;
/// An empty token slot (`EV_NONE`).
const EVENT_NONE: u32 = u32::MAX;

/// The events ladder's state, as the GPU holds it (`ev_*` in floor.wgsl).
#[derive(Clone)]
struct EventState {
    fac: Vec<[u32; 4]>,
    dep: Vec<[u32; 2]>,
    mail: Vec<u32>,
    tok: Vec<[u32; 4]>,
    /// Receivers listed by each segment (its first `count` entries; order free).
    list: Vec<u32>,
    /// [0] the step's salt, [1 + w] segment w's receivers.
    ctl: Vec<u32>,
}

impl EventState {
    /// The set-up: every word from the hash, mailboxes empty.
    fn new(facilities: u32) -> Self {
        let k = facilities as usize;
        let word = |i: usize, salt: u32| chase_hash(i as u32 ^ salt);
        Self {
            fac: (0..2 * k)
                .map(|i| std::array::from_fn(|c| word(4 * i + c, 0x2f6b_9d1d)))
                .collect(),
            dep: (0..k)
                .map(|i| std::array::from_fn(|c| word(2 * i + c, 0x61c8_8647)))
                .collect(),
            mail: (0..8 * k)
                .map(|i| if i % 8 < 4 { EVENT_NONE } else { 0 })
                .collect(),
            tok: (0..2 * k)
                .map(|i| std::array::from_fn(|c| word(4 * i + c, 0x7feb_352d)))
                .collect(),
            list: vec![0; k],
            ctl: std::iter::once(0x1234_567e)
                .chain(std::iter::repeat_n(0, k / EVENT_SEG as usize))
                .collect(),
        }
    }

    /// One step of `ev_depart` then `ev_arrive` on the CPU (each store's outcome is
    /// independent of the GPU threads' order: no two departures share a facility or a
    /// destination).
    fn step(&mut self, cols: u32, active: u32, masked: bool) {
        let k = self.dep.len() as u32;
        let rows = k / cols;
        let salt = self.ctl[0];
        let neighbour = |f: u32, dir: u32| {
            let (r, c) = (f / cols, f % cols);
            match dir {
                0 => (r + rows - 1) % rows * cols + c,
                1 => (r + 1) % rows * cols + c,
                2 => r * cols + (c + cols - 1) % cols,
                _ => r * cols + (c + 1) % cols,
            }
        };
        for w in 0..k / EVENT_SEG {
            let offset = chase_hash(salt ^ w.wrapping_mul(0x9e37_79b9));
            let spacing = (EVENT_SEG / active.max(1)).max(1);
            let mut listed = 0;
            for j in 0..active {
                let f = w * EVENT_SEG + (offset.wrapping_add(j * spacing) & (EVENT_SEG - 1));
                let dir = chase_hash(f ^ salt) >> 30;
                let (fu, dest) = (f as usize, neighbour(f, dir) as usize);
                let (t, a, b) = (self.dep[fu], self.fac[2 * fu], self.fac[2 * fu + 1]);
                self.mail[8 * dest + dir as usize] = f;
                let first = self.mail[8 * dest + 4] == 0;
                if masked {
                    self.mail[8 * dest + 4] |= 1 << dir;
                } else {
                    self.mail[8 * dest + 4] += 1;
                }
                self.tok[fu] = [t[0], t[1], EVENT_NONE, b[3].wrapping_add(1)];
                let mut next = t[0].wrapping_add(a[0]).wrapping_add(1);
                if a[3] & 1 == 1 {
                    let nt = self.tok[k as usize + fu];
                    next = next.wrapping_add(nt[0] ^ nt[2]);
                }
                self.dep[fu] = [next, t[1]];
                self.fac[2 * fu] = [a[0].wrapping_add(1), a[1], a[2], a[3]];
                self.fac[2 * fu + 1] = [b[0], t[0], t[1], b[3].wrapping_add(1)];
                if first {
                    self.list[(w * EVENT_SEG + listed) as usize] = dest as u32;
                    listed += 1;
                }
            }
            self.ctl[1 + w as usize] = listed;
        }
        for w in 0..k / EVENT_SEG {
            for j in 0..self.ctl[1 + w as usize] {
                let g = self.list[(w * EVENT_SEG + j) as usize] as usize;
                let (a, b, dg) = (self.fac[2 * g], self.fac[2 * g + 1], self.dep[g]);
                let mut sum = 0u32;
                let mask = self.mail[8 * g + 4];
                for d in 0..4 {
                    let token = if masked && mask >> d & 1 == 0 {
                        EVENT_NONE
                    } else {
                        self.mail[8 * g + d]
                    };
                    if token != EVENT_NONE {
                        let r = self.tok[token as usize];
                        sum = sum.wrapping_add(r[0].wrapping_add(r[3]));
                        if !masked {
                            self.mail[8 * g + d] = EVENT_NONE;
                        }
                    }
                }
                if a[2] & 1 == 1 {
                    self.tok[k as usize + g][2] = sum;
                } else {
                    self.dep[g] = [dg[0].wrapping_add(sum), dg[1]];
                }
                self.fac[2 * g] = [a[0] ^ sum, a[1], a[2], a[3]];
                self.fac[2 * g + 1] = [b[0], b[1].wrapping_add(1), b[2], b[3]];
                self.mail[8 * g + 4] = 0;
            }
        }
        self.ctl[0] = chase_hash(salt);
    }

    /// The six buffers' bytes, in binding order.
    fn bytes(&self) -> [&[u8]; 6] {
        [
            bytemuck::cast_slice(&self.fac),
            bytemuck::cast_slice(&self.dep),
            bytemuck::cast_slice(&self.mail),
            bytemuck::cast_slice(&self.tok),
            bytemuck::cast_slice(&self.list),
            bytemuck::cast_slice(&self.ctl),
        ]
    }

    /// The state from the six buffers' bytes, in binding order.
    fn from_bytes(b: &[Vec<u8>]) -> Self {
        Self {
            fac: bytemuck::pod_collect_to_vec(&b[0]),
            dep: bytemuck::pod_collect_to_vec(&b[1]),
            mail: bytemuck::pod_collect_to_vec(&b[2]),
            tok: bytemuck::pod_collect_to_vec(&b[3]),
            list: bytemuck::pod_collect_to_vec(&b[4]),
            ctl: bytemuck::pod_collect_to_vec(&b[5]),
        }
    }

    /// Every receiver listed, in increasing order: which segment lists a receiver that two
    /// segments' departures reach depends on which announced first, on the GPU as here.
    fn listed(&self) -> Vec<u32> {
        let mut all: Vec<u32> = self.ctl[1..]
            .iter()
            .enumerate()
            .flat_map(|(w, &n)| {
                let at = w * EVENT_SEG as usize;
                self.list[at..at + (n as usize).min(EVENT_SEG as usize)].to_vec()
            })
            .collect();
        all.sort_unstable();
        all
    }
}

/// Times chains of `chain` steps of the events ladder on a `rows` × `cols` torus (a whole
/// number of 4,096-facility segments, one 256-thread workgroup each) for every count of
/// `actives` (departures per workgroup per step): the memory operations of a torus step's
/// events without the simulation around them, with the mailbox as the torus kept it until
/// 70ce220 (a count; every word read and emptied) and as it keeps it since (a mask). Before
/// timing, four steps of each rung and mailbox are checked word for word against
/// `EventState::step` on the CPU.
pub fn event_ladder(
    gpu: &Gpu,
    rows: u32,
    cols: u32,
    actives: &[u32],
    chain: u32,
    repeats: u32,
) -> Result<Vec<EventRung>, String> {
    let k = u64::from(rows) * u64::from(cols);
    if rows < 3 || cols < 3 || k % u64::from(EVENT_SEG) != 0 || 32 * k > gpu.max_storage_buffer() {
        return Err(format!(
            "events ladder: a {rows} × {cols} torus (valid: at least 3 × 3, a multiple of {EVENT_SEG} facilities, 32 bytes each within the adapter's largest binding, {} bytes)",
            gpu.max_storage_buffer()
        ));
    }
    if let Some(a) = actives.iter().find(|&&a| a > EVENT_SEG) {
        return Err(format!(
            "events ladder: {a} departures per workgroup (valid: 0 to {EVENT_SEG})"
        ));
    }
    let device = &gpu.device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("events"),
        source: wgpu::ShaderSource::Wgsl(include_str!("../shaders/floor.wgsl").into()),
    });
    let layout = kit::layout(device, "events", &[Use::ReadWrite; 6]);
    let pl = kit::pipeline_layout(device, "events", &[&layout]);
    let start = EventState::new(k as u32);
    let buffers: Vec<wgpu::Buffer> = ["fac", "dep", "mail", "tok", "list", "ctl"]
        .iter()
        .zip(start.bytes())
        .map(|(name, bytes)| {
            kit::buffer_init(device, &format!("events {name}"), bytes, kit::STORAGE_RW)
        })
        .collect();
    let refs: Vec<&wgpu::Buffer> = buffers.iter().collect();
    let group = kit::bind_group(device, "events", &layout, &refs);
    let segments = (k / u64::from(EVENT_SEG)) as u32;
    let mut rungs = Vec::new();
    for &active in actives {
        let steps = PairVariants::new(
            device,
            &pl,
            &module,
            ["ev_depart", "ev_arrive"],
            &[("ACTIVE", f64::from(active)), ("COLS", f64::from(cols))],
            "MASKED",
        );
        for masked in [false, true] {
            let mut want = start.clone();
            for _ in 0..CHECKED_STEPS {
                want.step(cols, active, masked);
            }
            // the checked steps from the set-up
            for (b, bytes) in buffers.iter().zip(start.bytes()) {
                gpu.queue.write_buffer(b, 0, bytes);
            }
            let mut enc = device.create_command_encoder(&Default::default());
            steps.encode(&mut enc, &group, segments, CHECKED_STEPS, masked);
            gpu.queue.submit([enc.finish()]);
            let out = kit::read_buffers(gpu, &refs).map_err(|e| e.to_string())?;
            let got = EventState::from_bytes(&out);
            let differs = [
                ("facility records", got.fac != want.fac),
                ("departure times", got.dep != want.dep),
                ("mailboxes", got.mail != want.mail),
                ("token records", got.tok != want.tok),
                ("salt", got.ctl[0] != want.ctl[0]),
                ("receivers listed", got.listed() != want.listed()),
            ];
            if let Some((what, _)) = differs.iter().find(|(_, d)| *d) {
                let how = if masked { ", masked mailboxes" } else { "" };
                return Err(format!(
                    "events ladder ({active} departures per workgroup{how}): the GPU's {what} after {CHECKED_STEPS} steps differ from the CPU's"
                ));
            }
        }
        let (us, masked_us) = steps.time(gpu, &group, segments, chain, repeats)?;
        rungs.push(EventRung {
            active,
            us,
            masked_us,
        });
    }
    Ok(rungs)
}

/// The ladder's step on the CPU: the five-point update with the boundary 100 outside.
fn cpu_stencil(grid: &[f32], side: usize) -> Vec<f32> {
    let at = |r: isize, c: isize| {
        if r < 0 || c < 0 || r >= side as isize || c >= side as isize {
            100.0
        } else {
            grid[r as usize * side + c as usize]
        }
    };
    let (ax, ay) = (0.1f32, 0.1f32);
    (0..side * side)
        .map(|i| {
            let (r, c) = ((i / side) as isize, (i % side) as isize);
            let m = at(r, c);
            m + (ax * ((at(r, c - 1) + at(r, c + 1)) - 2.0 * m)
                + ay * ((at(r - 1, c) + at(r + 1, c)) - 2.0 * m))
        })
        .collect()
}

/// The floor suites' WGSL modules by name (for the validation test).
pub fn shader_modules() -> Vec<(String, String)> {
    vec![
        ("floor".into(), include_str!("../shaders/floor.wgsl").into()),
        (
            "stencil_ladder".into(),
            include_str!("../shaders/stencil_ladder.wgsl").into(),
        ),
    ]
}
