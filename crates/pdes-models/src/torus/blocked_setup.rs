//! What a blocked torus run on the GPU is made of before its first block: its tiling
//! ([`Tiling`]), the parameter blocks (as in torus_block.wgsl), the buffers with the
//! initial state uploaded and the passes ([`Resources::new`]). `blocked.rs` runs them.

use crate::queueing::Algorithm;
use crate::torus::ServiceKind;
use crate::torus::config::TorusConfig;
use crate::torus::gpu::{departure_words, fac_words, token_words};
use crate::torus::state::TorusState;
use bytemuck::{Pod, Zeroable};
use pdes_core::rng::LN_TABLE;
use pdes_core::sim::SimError;
use pdes_core::time::to_ticks;
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, split};
use std::sync::Arc;

/// Most windows per block (MAX_H in the shader, which gets it from here).
pub const MAX_HALO: u32 = 6;
/// The default halo (windows per block): measured best on the H100 (bench/NOTES.md).
pub const DEFAULT_HALO: u32 = 2;
/// Blocks per submitted batch.
pub(super) const MAX_BLOCKS: u64 = 256;
/// Lanes of the per-window event counters (tiles add to lane tile % LANES, so that
/// thousands of workgroups do not queue on one atomic).
pub(super) const LANES: u32 = 32;
/// Bytes of shared memory per region slot (torus_block.wgsl: one u64 and eight u32).
const SLOT_BYTES: u32 = 40;
/// Shared memory the kernel uses besides the slots (counters, limbs).
const SHARED_EXTRA: u32 = 256;

/// Params in torus_block.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(super) struct Params {
    pub(super) rows: u32,
    pub(super) cols: u32,
    pub(super) tiles_x: u32,
    pub(super) tiles_y: u32,
    pub(super) ti: u32,
    pub(super) halo: u32,
    pub(super) cap: u32,
    pub(super) stage_cap: u32,
    pub(super) seed_lo: u32,
    pub(super) seed_hi: u32,
    pub(super) scale: u32,
    pub(super) lanes: u32,
    pub(super) shift: [u32; 2],
    pub(super) d: [u32; 2],
    pub(super) warmup: [u32; 2],
    pub(super) pad: [u32; 2],
}

/// One block's parameters (Block in the shader), at a dynamic offset.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(super) struct Block {
    pub(super) base: [u32; 2],
    pub(super) limit: [u32; 2],
    pub(super) windows: u32,
    pub(super) log_block: u32,
    pub(super) pad: [u32; 2],
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

/// The buffers an engine reads back or rewrites (the others live in its bind group).
pub(super) struct Buffers {
    pub(super) dep: wgpu::Buffer,
    pub(super) fac: wgpu::Buffer,
    pub(super) tok: wgpu::Buffer,
    pub(super) tile_acc: wgpu::Buffer,
    pub(super) blog: wgpu::Buffer,
    pub(super) blocks: wgpu::Buffer,
}

/// The two passes and their layouts (group 0: the run's buffers; group 1: the block).
pub(super) struct Pipelines {
    pub(super) layout0: wgpu::BindGroupLayout,
    pub(super) layout1: wgpu::BindGroupLayout,
    pub(super) block: wgpu::ComputePipeline,
    pub(super) commit: wgpu::ComputePipeline,
}

/// Bytes of the per-tile queue entries: one per departure in the region, at most one per
/// facility per window.
pub(super) fn entry_bytes(tiling: &Tiling) -> u64 {
    16 * tiling.count() * u64::from(tiling.region * tiling.region * tiling.halo)
}

/// Bytes of the staged facilities: three vec4 per facility of every tile.
pub(super) fn stage_bytes(tiling: &Tiling) -> u64 {
    48 * tiling.count() * u64::from(tiling.tile * tiling.tile)
}

/// Bytes of the window log: one counter per lane, window and block of a batch.
pub(super) const BLOG_BYTES: u64 = 4 * MAX_BLOCKS * (MAX_HALO * LANES) as u64;

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

impl Params {
    /// The parameters of a blocked run of `cfg` in `tiling`.
    pub(super) fn of(cfg: &TorusConfig, tiling: &Tiling) -> Self {
        let law = cfg.service_law();
        let slots = tiling.region * tiling.region;
        let halo = tiling.halo;
        Self {
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
            d: split(to_ticks(cfg.run.d)),
            warmup: split(cfg.run.warmup_ticks()),
            pad: [0; 2],
        }
    }
}

/// An engine's buffers, bind groups and passes, the initial state uploaded.
pub(super) struct Resources {
    pub(super) buffers: Buffers,
    pub(super) pipelines: Arc<Pipelines>,
    pub(super) bind_group: wgpu::BindGroup,
    pub(super) block_group: wgpu::BindGroup,
    pub(super) block_stride: u64,
}

impl Resources {
    /// Everything a blocked run of `cfg` in `tiling` needs on `gpu` (`memory_bytes`, as
    /// planned: named in an out-of-memory refusal).
    pub(super) fn new(
        gpu: &Gpu,
        cfg: &TorusConfig,
        tiling: &Tiling,
        memory_bytes: u64,
    ) -> Result<Self, SimError> {
        let law = cfg.service_law();
        let params = Params::of(cfg, tiling);
        let device = &gpu.device;
        let oom = pdes_gpu::kit::OomScope::push(device);
        let storage = kit::STORAGE_RW;
        let init =
            |label: &str, contents: &[u8], usage| kit::buffer_init(device, label, contents, usage);
        let zeroed = |label: &str, bytes: u64| kit::buffer(device, label, bytes.max(16), storage);
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
        let entries = zeroed("queue entries", entry_bytes(tiling));
        let stage = zeroed("staged facilities", stage_bytes(tiling));
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
            blocks: kit::buffer(
                device,
                "blocks",
                block_stride * MAX_BLOCKS,
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            ),
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
        let block_group = kit::dynamic_uniform_group(
            device,
            "torus block",
            &pipelines.layout1,
            &buffers.blocks,
            std::mem::size_of::<Block>() as u64,
        );
        Ok(Self {
            buffers,
            pipelines,
            bind_group,
            block_group,
            block_stride,
        })
    }
}

/// Group 0: parameters, state, scratch, the ln table; group 1: the block, at a dynamic offset.
fn layouts(device: &wgpu::Device) -> (wgpu::BindGroupLayout, wgpu::BindGroupLayout) {
    let mut uses = [kit::Use::ReadWrite; 10];
    uses[0] = kit::Use::Uniform;
    uses[9] = kit::Use::Read;
    let layout0 = kit::layout(device, "torus blocked", &uses);
    let layout1 = kit::dynamic_uniform_layout(device, "torus block");
    (layout0, layout1)
}

/// Threads per workgroup of the blocked passes: 256, or PDES_BLOCKED_THREADS (64, 128 or
/// 256; an experiment knob: with a register-heavy kernel, smaller workgroups give the
/// multiprocessor more independent latency chains).
pub(super) fn threads() -> u32 {
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
        "{}\n{}\nconst R: u32 = {region}u;\nconst BWG: u32 = {threads}u;\nconst MAX_H: u32 = {MAX_HALO}u;\n{}\n{}",
        pdes_gpu::shaders::U64,
        pdes_gpu::shaders::MUL32_EMULATED,
        pdes_gpu::shaders::part("torus_block.wgsl", super::shaders::BLOCK),
        pdes_gpu::shaders::part("philox.wgsl", pdes_gpu::shaders::PHILOX)
    )
}

pub(super) fn build_pipelines(device: &wgpu::Device, region: u32, threads: u32) -> Pipelines {
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
