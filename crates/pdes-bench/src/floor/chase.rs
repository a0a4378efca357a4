//! The latency and block ladders: passes whose threads follow chains of dependent random
//! reads, or read the other half of a 64-byte block, at a step's sizes.

use super::*;
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, Use};
use serde::Serialize;

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
pub(crate) fn chase_hash(x: u32) -> u32 {
    let mut h = x.wrapping_mul(0x9e37_79b1);
    h ^= h >> 15;
    h = h.wrapping_mul(0x85eb_ca77);
    h ^= h >> 13;
    h
}

/// Two variants (an override constant false and true) of a chain of pass pairs: the
/// pipelines of `entries` for each, built with `constants` plus the variant's `flag`.
pub(crate) struct PairVariants {
    pipelines: [[wgpu::ComputePipeline; 2]; 2],
}

impl PairVariants {
    pub(crate) fn new(
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
    pub(crate) fn encode(
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
    pub(crate) fn time(
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
        source: wgpu::ShaderSource::Wgsl(include_str!("../../shaders/floor.wgsl").into()),
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
