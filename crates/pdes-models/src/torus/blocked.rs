//! The window algorithm on the GPU with temporal blocking (`shaders/torus_block.wgsl`):
//! each workgroup advances its tile of the torus by up to `halo` windows per dispatch.
//!
//! Windows are anchored, [base + k·d, base + (k+1)·d), rather than started at each step's
//! earliest departure: with every service at least d long (shifted service), the events of
//! one such window are independent of each other and a token moves at most one facility
//! per window, so any partition of time into windows no wider than d gives the sequential
//! result. A workgroup loads its tile plus a halo of `halo` facilities into shared memory,
//! runs `halo` windows there (the halo's outer rings go stale one per window, the tile
//! stays exact), and stages its changes; a second dispatch commits them once every
//! workgroup has read the block's starting state. Two dispatches per `halo` windows, and
//! the events' random accesses become shared-memory accesses.
//!
//! The CPU twin of the result is `sequential` (and the stepped engine, whose windows start
//! at each step's earliest departure: the same events in other groupings); the step log
//! records one step per non-empty anchored window.

use crate::queueing::Algorithm;
use crate::torus::ServiceKind;
use crate::torus::config::TorusConfig;
use crate::torus::gpu::{
    Accumulated, StateWords, decode_state, departure_words, fac_words, token_words,
};
use crate::torus::state::TorusState;
use crate::torus::stats::{self, Summary};
use bytemuck::{Pod, Zeroable};
use pdes_core::rng::LN_TABLE;
use pdes_core::sim::{Budget, Engine, SimError, StepRecord, StepTotals};
use pdes_core::time::{Ticks, to_ticks};
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, join, read_buffers, split};
use pdes_gpu::read_ranges;
use std::sync::Arc;

/// Most windows per block (MAX_H in the shader, which gets it from here).
pub const MAX_HALO: u32 = 6;
/// The default halo (windows per block): measured best on the H100 (bench/NOTES.md).
pub const DEFAULT_HALO: u32 = 2;
/// Blocks per submitted batch.
const MAX_BLOCKS: u64 = 256;
/// Lanes of the per-window event counters (tiles add to lane tile % LANES, so that
/// thousands of workgroups do not queue on one atomic).
const LANES: u32 = 32;
/// Bytes of shared memory per region slot (torus_block.wgsl: one u64 and eight u32).
const SLOT_BYTES: u32 = 40;
/// Shared memory the kernel uses besides the slots (counters, limbs).
const SHARED_EXTRA: u32 = 256;

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct Params {
    rows: u32,
    cols: u32,
    tiles_x: u32,
    tiles_y: u32,
    ti: u32,
    halo: u32,
    cap: u32,
    stage_cap: u32,
    seed_lo: u32,
    seed_hi: u32,
    scale: u32,
    lanes: u32,
    shift: [u32; 2],
    d: [u32; 2],
    warmup: [u32; 2],
    pad: [u32; 2],
}

/// One block's parameters (Block in the shader), at a dynamic offset.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct Block {
    base: [u32; 2],
    limit: [u32; 2],
    windows: u32,
    log_block: u32,
    pad: [u32; 2],
}

/// The geometry of a blocked run: region and tile widths, tiles across and down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiling {
    /// Region width in facilities (tile plus two halos): 24 (measured faster than 32 on the
    /// H100, bench/NOTES.md; PDES_BLOCKED_REGION=32 where the memory allows).
    pub region: u32,
    /// Windows per block, and the halo's width.
    pub halo: u32,
    /// Tile width (region − 2·halo).
    pub tile: u32,
    /// Tiles across and down.
    pub tiles: (u32, u32),
}

impl Tiling {
    /// The tiling of `cfg` with `halo` on `gpu`, or why the blocked engine cannot run it.
    pub fn of(gpu: &Gpu, cfg: &TorusConfig, halo: u32) -> Result<Self, SimError> {
        let shared = gpu.limits.max_compute_workgroup_storage_size;
        // PDES_BLOCKED_REGION=32 asks for the larger region (an experiment: less redundant
        // work, fewer workgroups per multiprocessor)
        let forced = std::env::var("PDES_BLOCKED_REGION")
            .ok()
            .and_then(|v| v.parse::<u32>().ok());
        let region = [24u32, 32]
            .into_iter()
            .filter(|r| forced.unwrap_or(24) == *r)
            .find(|r| r * r * SLOT_BYTES + SHARED_EXTRA <= shared)
            .ok_or_else(|| {
                SimError::Gpu(format!(
                    "blocked: the adapter's {shared} bytes of workgroup memory hold no {}×{0} region",
                    forced.unwrap_or(24)
                ))
            })?;
        if !(1..=MAX_HALO).contains(&halo) || region < 2 * halo + 8 {
            return Err(SimError::Gpu(format!(
                "blocked: halo {halo} is out of range (1 to {})",
                MAX_HALO.min((region - 8) / 2)
            )));
        }
        let tile = region - 2 * halo;
        Ok(Self {
            region,
            halo,
            tile,
            tiles: (cfg.model.cols.div_ceil(tile), cfg.model.rows.div_ceil(tile)),
        })
    }

    /// Number of tiles.
    pub fn count(&self) -> u64 {
        u64::from(self.tiles.0) * u64::from(self.tiles.1)
    }
}

/// Why `cfg` cannot run blocked, if it cannot: the window algorithm with shifted service
/// (service never shorter than d) and a window short enough for 32-bit offsets.
pub fn unsupported(cfg: &TorusConfig, halo: u32) -> Option<String> {
    if cfg.run.algorithm != Algorithm::Window {
        return Some("blocked: needs run.algorithm = \"window\"".into());
    }
    if cfg.model.service != ServiceKind::Shifted {
        return Some(
            "blocked: needs model.service = \"shifted\" (a token moves at most one facility per window only when no service is shorter than d)"
                .into(),
        );
    }
    let d = to_ticks(cfg.run.d);
    if d == 0 || d.saturating_mul(u64::from(halo) + 1) >= 1 << 31 {
        return Some(format!(
            "blocked: run.d = {} is out of range for halo {halo} (0 < d·(halo + 1) < 2048)",
            cfg.run.d
        ));
    }
    None
}

struct Buffers {
    dep: wgpu::Buffer,
    fac: wgpu::Buffer,
    tok: wgpu::Buffer,
    tile_acc: wgpu::Buffer,
    blog: wgpu::Buffer,
    blocks: wgpu::Buffer,
}

struct Pipelines {
    layout0: wgpu::BindGroupLayout,
    layout1: wgpu::BindGroupLayout,
    block: wgpu::ComputePipeline,
    commit: wgpu::ComputePipeline,
}

/// The blocked GPU torus engine (window algorithm, shifted service, one run).
pub struct GpuTorusBlocked {
    gpu: Arc<Gpu>,
    config: TorusConfig,
    tiling: Tiling,
    end: Ticks,
    d: Ticks,
    /// Every event before this time has been processed (the next block's base).
    base: Ticks,
    buffers: Buffers,
    pipelines: Arc<Pipelines>,
    bind_group: wgpu::BindGroup,
    block_group: wgpu::BindGroup,
    block_stride: u64,
    totals: StepTotals,
    log: pdes_core::sim::StepLog,
    /// Bytes of GPU memory the run uses.
    pub memory_bytes: u64,
}

/// Bytes of the per-tile queue entries: one per departure in the region, at most one per
/// facility per window.
fn entry_bytes(tiling: &Tiling) -> u64 {
    16 * tiling.count() * u64::from(tiling.region * tiling.region * tiling.halo)
}

/// Bytes of the staged facilities: three vec4 per facility of every tile.
fn stage_bytes(tiling: &Tiling) -> u64 {
    48 * tiling.count() * u64::from(tiling.tile * tiling.tile)
}

/// Bytes of the window log: one counter per lane, window and block of a batch.
const BLOG_BYTES: u64 = 4 * MAX_BLOCKS * (MAX_HALO * LANES) as u64;

/// Bytes the blocked engine needs for `cfg` with `tiling`, by buffer.
pub fn memory_plan(cfg: &TorusConfig, tiling: &Tiling) -> Vec<(&'static str, u64)> {
    let k = u64::from(cfg.model.facilities());
    let n = u64::from(cfg.model.tokens());
    let tiles = tiling.count();
    vec![
        ("departure times", 8 * k),
        ("facility records", 32 * k),
        ("token records", 16 * n),
        ("queue entries", entry_bytes(tiling)),
        ("staged facilities", stage_bytes(tiling)),
        ("tile counters", 4 * tiles + 32 * tiles),
        ("window log", BLOG_BYTES),
        ("ln table", 4 * 1025),
    ]
}

impl GpuTorusBlocked {
    /// Uploads the initial state of `cfg` and prepares the two passes.
    pub fn new(gpu: Arc<Gpu>, cfg: &TorusConfig, halo: u32) -> Result<Self, SimError> {
        if let Some(why) = unsupported(cfg, halo) {
            return Err(SimError::Gpu(why));
        }
        let tiling = Tiling::of(&gpu, cfg, halo)?;
        let what = format!("{}×{} blocked", cfg.model.rows, cfg.model.cols);
        let memory_bytes = pdes_gpu::stepped::check_fits(&gpu, &what, &memory_plan(cfg, &tiling))?;
        let max = gpu.limits.max_compute_workgroups_per_dimension;
        if tiling.tiles.0 > max || tiling.tiles.1 > max {
            return Err(SimError::Gpu(format!(
                "blocked: {}×{} tiles exceed this adapter's {max} workgroups per dimension",
                tiling.tiles.0, tiling.tiles.1
            )));
        }
        let law = cfg.service_law();
        let d = to_ticks(cfg.run.d);
        let slots = tiling.region * tiling.region;
        let params = Params {
            rows: cfg.model.rows,
            cols: cfg.model.cols,
            tiles_x: tiling.tiles.0,
            tiles_y: tiling.tiles.1,
            ti: tiling.tile,
            halo,
            cap: slots * halo,
            stage_cap: tiling.tile * tiling.tile,
            seed_lo: cfg.run.seed as u32,
            seed_hi: (cfg.run.seed >> 32) as u32,
            scale: law.scale,
            lanes: LANES,
            shift: split(law.shift),
            d: split(d),
            warmup: split(cfg.run.warmup_ticks()),
            pad: [0; 2],
        };
        let device = &gpu.device;
        let oom = pdes_gpu::kit::OomScope::push(device);
        let storage = kit::STORAGE_RW;
        let init =
            |label: &str, contents: &[u8], usage| kit::buffer_init(device, label, contents, usage);
        let zeroed = |label: &str, bytes: u64| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes.max(16),
                usage: storage,
                mapped_at_creation: false,
            })
        };
        let state =
            TorusState::new(&cfg.model, law, cfg.run.seed).with_warmup(cfg.run.warmup_ticks());
        let tiles = tiling.count();
        let block_stride = u64::from(gpu.limits.min_uniform_buffer_offset_alignment)
            .max(std::mem::size_of::<Block>() as u64);
        let params_buf = init(
            "blocked params",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM,
        );
        let ln_table = init("ln_table", bytemuck::cast_slice(&LN_TABLE[..]), storage);
        let entries = zeroed("queue entries", entry_bytes(&tiling));
        let stage = zeroed("staged facilities", stage_bytes(&tiling));
        let stage_count = zeroed("stage counts", 4 * tiles);
        let buffers = Buffers {
            dep: init(
                "dep",
                bytemuck::cast_slice(&departure_words(&state)),
                storage,
            ),
            fac: init("fac", bytemuck::cast_slice(&fac_words(&state)), storage),
            tok: init("tok", bytemuck::cast_slice(&token_words(&state)), storage),
            tile_acc: zeroed("tile sums", 32 * tiles),
            blog: zeroed("window log", BLOG_BYTES),
            blocks: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("blocks"),
                size: block_stride * MAX_BLOCKS,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
        };
        drop(state);
        oom.check(format_args!("{memory_bytes} bytes"))?;
        let pipelines = gpu.cached(
            &format!(
                "torus blocked pipelines, region {}, {} threads, {:?}",
                tiling.region,
                threads(),
                std::env::var_os("PDES_WGSL_DIR")
            ),
            || build_pipelines(device, tiling.region, threads()),
        );
        let all = [
            &params_buf,
            &buffers.dep,
            &buffers.fac,
            &buffers.tok,
            &entries,
            &stage,
            &stage_count,
            &buffers.tile_acc,
            &buffers.blog,
            &ln_table,
        ];
        let bind_group = kit::bind_group(device, "torus blocked", &pipelines.layout0, &all);
        let block_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("torus block"),
            layout: &pipelines.layout1,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &buffers.blocks,
                    offset: 0,
                    size: wgpu::BufferSize::new(std::mem::size_of::<Block>() as u64),
                }),
            }],
        });
        Ok(Self {
            gpu,
            config: cfg.clone(),
            tiling,
            end: cfg.end_ticks(),
            d,
            base: 0,
            buffers,
            pipelines,
            bind_group,
            block_group,
            block_stride,
            totals: StepTotals::default(),
            log: pdes_core::sim::StepLog::new(),
            memory_bytes,
        })
    }

    /// The run's tiling.
    pub fn tiling(&self) -> Tiling {
        self.tiling
    }

    /// Runs the blocks of one batch: each covers up to `halo` windows from the current
    /// base, the last window of the run (or of the caller's limit) cut at the limit.
    /// Returns the windows run.
    fn run_batch(&mut self, limit: Ticks, max_windows: u64) -> Result<u64, SimError> {
        let h = u64::from(self.tiling.halo);
        let mut blocks = Vec::new();
        let mut base = self.base;
        let mut windows_left = max_windows;
        while base < limit && windows_left > 0 && (blocks.len() as u64) < MAX_BLOCKS {
            let windows = h.min(windows_left).min((limit - base).div_ceil(self.d));
            let block_end = base.saturating_add(windows * self.d).min(limit);
            blocks.push(Block {
                base: split(base),
                limit: split(block_end),
                windows: windows as u32,
                log_block: blocks.len() as u32,
                pad: [0; 2],
            });
            windows_left -= windows;
            base = block_end;
        }
        if blocks.is_empty() {
            return Ok(0);
        }
        let mut bytes = vec![0u8; (self.block_stride * blocks.len() as u64) as usize];
        for (i, b) in blocks.iter().enumerate() {
            let at = i * self.block_stride as usize;
            bytes[at..at + std::mem::size_of::<Block>()].copy_from_slice(bytemuck::bytes_of(b));
        }
        let gpu = &self.gpu;
        gpu.queue.write_buffer(&self.buffers.blocks, 0, &bytes);
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&self.buffers.blog, 0, None);
        // PDES_GPU_PROFILE: a timestamp after every dispatch, printed as µs per pass
        let stamps = (std::env::var_os("PDES_GPU_PROFILE").is_some()
            && gpu
                .device
                .features()
                .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES))
        .then(|| {
            let count = 1 + 2 * blocks.len() as u32;
            let set = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("blocked passes"),
                ty: wgpu::QueryType::Timestamp,
                count,
            });
            (set, count)
        });
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &self.bind_group, &[]);
            let (tx, ty) = self.tiling.tiles;
            let mut q = 0;
            let mut stamp = |pass: &mut wgpu::ComputePass| {
                if let Some((set, _)) = &stamps {
                    pass.write_timestamp(set, q);
                    q += 1;
                }
            };
            stamp(&mut pass);
            for i in 0..blocks.len() as u64 {
                pass.set_bind_group(1, &self.block_group, &[(i * self.block_stride) as u32]);
                pass.set_pipeline(&self.pipelines.block);
                pass.dispatch_workgroups(tx, ty, 1);
                stamp(&mut pass);
                pass.set_pipeline(&self.pipelines.commit);
                pass.dispatch_workgroups(tx, ty, 1);
                stamp(&mut pass);
            }
        }
        let resolved = stamps
            .as_ref()
            .map(|(set, count)| kit::resolve_timestamps(&gpu.device, &mut enc, set, *count));
        gpu.queue.submit([enc.finish()]);
        if let Some(buf) = &resolved {
            let bytes = read_buffers(gpu, &[buf])?;
            let t: &[u64] = bytemuck::cast_slice(&bytes[0]);
            let period = f64::from(gpu.queue.get_timestamp_period()) / 1000.0;
            let (mut block_us, mut commit_us) = (0.0, 0.0);
            for i in 0..blocks.len() {
                block_us += (t[2 * i + 1] - t[2 * i]) as f64 * period;
                commit_us += (t[2 * i + 2] - t[2 * i + 1]) as f64 * period;
            }
            let n = blocks.len() as f64;
            eprintln!(
                "blocked batch of {} blocks: block {:.1} µs, commit {:.1} µs per block (GPU timestamps)",
                blocks.len(),
                block_us / n,
                commit_us / n
            );
        }
        let used = blocks.len() as u64 * u64::from(MAX_HALO * LANES) * 4;
        let log = read_ranges(gpu, &[(&self.buffers.blog, 0, used)])?;
        let lanes: &[u32] = bytemuck::cast_slice(&log[0]);
        let mut run = 0;
        for (i, b) in blocks.iter().enumerate() {
            let base = join(b.base);
            for k in 0..u64::from(b.windows) {
                let at = (i * MAX_HALO as usize + k as usize) * LANES as usize;
                let events: u64 = lanes[at..at + LANES as usize]
                    .iter()
                    .map(|&n| u64::from(n))
                    .sum();
                let lo = base + k * self.d;
                if events > 0 {
                    self.totals.record(events, 0);
                    self.log.push(StepRecord {
                        t_min: lo,
                        bound: (lo + self.d).min(join(b.limit)) - 1,
                        events,
                        errors: 0,
                    });
                }
                run += 1;
            }
        }
        self.base = base;
        Ok(run)
    }

    /// Downloads the network state (statistics fields zero: the GPU keeps them per tile).
    pub fn download_state(&self) -> Result<TorusState, SimError> {
        let b = &self.buffers;
        let bytes = read_buffers(&self.gpu, &[&b.dep, &b.fac, &b.tok])?;
        let words = StateWords {
            dep: bytemuck::cast_slice(&bytes[0]),
            last: None,
            fac: bytemuck::cast_slice(&bytes[1]),
            tok: bytemuck::cast_slice(&bytes[2]),
        };
        Ok(decode_state(&self.config, self.config.run.seed, 0, &words))
    }

    /// The exact sums over the tiles: busy and sojourn ticks, completed visits.
    pub fn accumulated(&self) -> Result<Accumulated, SimError> {
        let bytes = read_buffers(&self.gpu, &[&self.buffers.tile_acc])?;
        let acc: &[[[u32; 4]; 2]] = bytemuck::cast_slice(&bytes[0]);
        Ok(acc
            .iter()
            .fold(Accumulated::default(), |sum, [sums, counts]| Accumulated {
                busy: sum.busy + u128::from(join([sums[0], sums[1]])),
                sojourn: sum.sojourn + u128::from(join([sums[2], sums[3]])),
                completions: sum.completions + join([counts[0], counts[1]]),
            }))
    }
}

impl Engine for GpuTorusBlocked {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        let (limit, mut windows) = budget.limits(self.end);
        while self.base < limit && windows > 0 {
            windows -= self.run_batch(limit, windows)?;
        }
        Ok(())
    }
    fn now(&self) -> Ticks {
        self.base
    }
    fn finished(&self) -> bool {
        self.base >= self.end
    }
    fn totals(&self) -> StepTotals {
        self.totals.clone()
    }
    fn step_log(&self) -> &[StepRecord] {
        &self.log
    }
    fn step_stride(&self) -> u64 {
        self.log.stride()
    }
    fn report(&mut self) -> Result<pdes_core::sim::Report, SimError> {
        Ok(pdes_core::sim::Report::of(
            &crate::torus::cpu::TorusEngine::summary(self)?,
        ))
    }
}

impl crate::torus::cpu::TorusEngine for GpuTorusBlocked {
    fn summary(&mut self) -> Result<Summary, SimError> {
        let state = self.download_state()?;
        let mut m = stats::measure(&state, self.base.min(self.end))?;
        self.accumulated()?.add_to(&mut m);
        Ok(Summary::new(&self.config, &self.totals, &m))
    }
    fn occupancy(&mut self) -> Result<Vec<u32>, SimError> {
        Ok(self.download_state()?.occupancy())
    }
}

/// Group 0: parameters, state, scratch, the ln table; group 1: the block, at a dynamic offset.
fn layouts(device: &wgpu::Device) -> (wgpu::BindGroupLayout, wgpu::BindGroupLayout) {
    let mut uses = [kit::Use::ReadWrite; 10];
    uses[0] = kit::Use::Uniform;
    uses[9] = kit::Use::Read;
    let layout0 = kit::layout(device, "torus blocked", &uses);
    let mut entry = kit::layout_entry(0, kit::Use::Uniform);
    if let wgpu::BindingType::Buffer {
        has_dynamic_offset, ..
    } = &mut entry.ty
    {
        *has_dynamic_offset = true;
    }
    let layout1 = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("torus block"),
        entries: &[entry],
    });
    (layout0, layout1)
}

/// Threads per workgroup of the blocked passes: 256, or PDES_BLOCKED_THREADS (64, 128 or
/// 256; an experiment knob: with a register-heavy kernel, smaller workgroups give the
/// multiprocessor more independent latency chains).
fn threads() -> u32 {
    std::env::var("PDES_BLOCKED_THREADS")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|t| [64, 128, 256].contains(t))
        .unwrap_or(256)
}

/// The blocked passes' source for regions `region` wide, `threads` per workgroup.
pub fn module_source(region: u32, threads: u32) -> String {
    // no reductions module: its shared arrays would count against the region's memory
    format!(
        "{}\nconst R: u32 = {region}u;\nconst BWG: u32 = {threads}u;\nconst MAX_H: u32 = {MAX_HALO}u;\n{}\n{}",
        pdes_gpu::shaders::U64,
        pdes_gpu::shaders::part("torus_block.wgsl", super::shaders::BLOCK),
        pdes_gpu::shaders::part("philox.wgsl", pdes_gpu::shaders::PHILOX)
    )
}

fn build_pipelines(device: &wgpu::Device, region: u32, threads: u32) -> Pipelines {
    let (layout0, layout1) = layouts(device);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("torus blocked"),
        source: wgpu::ShaderSource::Wgsl(module_source(region, threads).into()),
    });
    let pl = kit::pipeline_layout(device, "torus blocked", &[&layout0, &layout1]);
    // Both passes write every shared word before reading it: zero-filling 36 KB per
    // workgroup first would only cost time.
    let pipeline = |entry: &str| {
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: Some(&pl),
            module: &module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                zero_initialize_workgroup_memory: false,
                ..Default::default()
            },
            cache: None,
        })
    };
    Pipelines {
        layout0,
        layout1,
        block: pipeline("block"),
        commit: pipeline("commit"),
    }
}
