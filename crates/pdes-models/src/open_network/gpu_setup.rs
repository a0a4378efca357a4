//! What an open-network run on the GPU is made of before its first step: the parameter
//! and control blocks and the token record (as in common.wgsl), the memory plan, the
//! buffers ([`Buffers::upload`]) and the passes ([`build_pipelines`]). `gpu.rs` steps them.

use super::config::OpenConfig;
use super::state::NONE;
use crate::queueing::{Algorithm, Timestamps};
use bytemuck::{Pod, Zeroable};
use pdes_core::rng::LN_TABLE;
use pdes_core::time::to_ticks;
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, Region, Use, split};
use pdes_gpu::shaders::Reductions;
use pdes_gpu::stepped::{LOG_BYTES, LOG_LEN, StepCtl, StepPipelines};

/// Threads per workgroup (WG in u64.wgsl).
pub(super) const WG: u64 = 256;
/// Facilities per segment (SEG in stepped.wgsl, at its default ITEMS: the open network keeps
/// it; segments of 4096 measured no different at 1 M facilities, bench/NOTES.md).
pub(super) const SEG: u64 = pdes_gpu::stepped::ScanItems::EIGHT.segment();
/// Bytes of one token record (Token in common.wgsl).
pub(super) const TOKEN_BYTES: u64 = 48;
/// 128-bit accumulators per segment (ACC_PER_SEGMENT in common.wgsl).
pub(super) const ACC_PER_SEGMENT: usize = 7;

/// The open network's own phase (PHASE_FULL in common.wgsl): the next step needs more
/// token slots than the pool has.
pub(super) const PHASE_FULL: u32 = 4;

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(super) struct Params {
    pub(super) lines: u32,
    pub(super) servers: u32,
    pub(super) k: u32,
    pub(super) n_wg: u32,
    pub(super) seed_lo: u32,
    pub(super) seed_hi: u32,
    pub(super) rule: u32,
    pub(super) log_len: u32,
    pub(super) d: [u32; 2],
    pub(super) end_t: [u32; 2],
    pub(super) shift: [u32; 2],
    pub(super) scale: u32,
    pub(super) interarrival: u32,
    pub(super) exit_q32: [u32; 2],
    pub(super) warmup: [u32; 2],
}

/// The GPU's step control block (Ctl in common.wgsl): the shared head, then the source's
/// and the pool's state.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(super) struct Ctl {
    pub(super) head: StepCtl,
    pub(super) next_arrival: [u32; 2],
    pub(super) arrivals: [u32; 2],
    pub(super) entered_sum: [u32; 4],
    pub(super) pool_used: u32,
    pub(super) pool_cap: u32,
    pub(super) pool_short: u32,
    pub(super) step_arrivals: u32,
    pub(super) src_count: u32,
    pub(super) pad: [u32; 3],
}

/// A token record as the GPU stores it (Token in common.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(super) struct GpuToken {
    pub(super) arrival: [u32; 2],
    pub(super) entered: [u32; 2],
    pub(super) arrived: [u32; 2],
    pub(super) visits: u32,
    pub(super) next: u32,
    pub(super) link: u32,
    pub(super) sender: u32,
    pub(super) pad: [u32; 2],
}

/// The slots a fresh engine's pool starts with: twice the Jackson mean number in the
/// system at the configured load (shifted service included), at least 256, a power of
/// two, and no more than a quarter of what one buffer of `gpu` may hold (the run starts
/// empty; the pool grows if the network fills further).
pub fn initial_pool(cfg: &OpenConfig, gpu: &Gpu) -> u32 {
    let rho = cfg.model.rho().min(0.999);
    let expected = f64::from(cfg.model.facilities()) * rho / (1.0 - rho);
    let cap = (gpu.max_storage_buffer() / TOKEN_BYTES / 4).max(256);
    ((2.0 * expected) as u64 + 64)
        .next_power_of_two()
        .min(cap)
        .clamp(256, 1 << 30) as u32
}

/// Bytes of GPU memory an open-network run of `cfg` needs with a pool of `pool` slots, by
/// buffer: (name, bytes).
pub fn memory_plan(cfg: &OpenConfig, pool: u32) -> Vec<(&'static str, u64)> {
    let k = u64::from(cfg.model.facilities());
    let n_wg = k.div_ceil(SEG);
    let pool = u64::from(pool);
    let original =
        cfg.run.algorithm == Algorithm::Interval && cfg.run.timestamps == Timestamps::Original;
    vec![
        ("departure times", 8 * k),
        ("service starts", 8 * k),
        ("last arrivals", if original { 8 * k } else { 8 }),
        ("facility words", 16 * k),
        ("token pool", TOKEN_BYTES * pool),
        ("free stack", 4 * pool),
        ("announcement heads", 4 * (k + 1)),
        ("segment minima", 8 * n_wg + 16 * n_wg),
        ("segment counts", 16 * n_wg),
        ("segment sums", 16 * ACC_PER_SEGMENT as u64 * n_wg),
        ("departure list", 4 * k),
        ("receiver lists", 4 * (k + u64::from(cfg.model.lines))),
        ("ln table", 4 * 1025),
        ("step log", LOG_BYTES),
    ]
}

/// Buffers in binding order (common.wgsl).
pub(super) struct Buffers {
    pub(super) params: wgpu::Buffer,
    pub(super) ctl: wgpu::Buffer,
    /// Segment counts, then the segment sums (wg_acc), then the facility records (fac).
    pub(super) seg_count: wgpu::Buffer,
    pub(super) tok: wgpu::Buffer,
    /// Departure times, then service starts, then last arrivals.
    pub(super) dep: wgpu::Buffer,
    /// Departure lists, then receiver lists, then the free stack (last: the pool grows).
    pub(super) lists: wgpu::Buffer,
    pub(super) heads: wgpu::Buffer,
    pub(super) scan_min: wgpu::Buffer,
    pub(super) part_min: wgpu::Buffer,
    pub(super) ln_table: wgpu::Buffer,
    pub(super) steplog: wgpu::Buffer,
    /// The arrays the host reads inside the shared bindings.
    pub(super) wg_acc: Region,
    pub(super) fac: Region,
    pub(super) departures: Region,
    pub(super) start: Region,
    pub(super) last_arr: Region,
    /// Where the free stack starts in `lists`.
    pub(super) free_stack: Region,
}

impl Buffers {
    /// The bindings in the order of common.wgsl.
    pub(super) fn all(&self) -> [&wgpu::Buffer; 11] {
        [
            &self.params,
            &self.ctl,
            &self.seg_count,
            &self.tok,
            &self.dep,
            &self.lists,
            &self.heads,
            &self.scan_min,
            &self.part_min,
            &self.ln_table,
            &self.steplog,
        ]
    }
}

/// How the passes use the bindings, in order.
pub(super) const USES: [Use; 11] = {
    let mut u = [Use::ReadWrite; 11];
    u[0] = Use::Uniform;
    u[9] = Use::Read;
    u
};

/// The bindings the display pass and the in-service pass read (parameters, control block,
/// facilities, tokens, departure and start times): a layout of its own, since all of
/// [`USES`] and its output would be 11 storage buffers.
pub(super) const DISPLAY_BINDINGS: usize = 5;

pub(super) struct Pipelines {
    pub(super) layout: wgpu::BindGroupLayout,
    /// The display pass's group 0: the first bindings of `layout`.
    pub(super) display_cells_layout: wgpu::BindGroupLayout,
    pub(super) display_layout: wgpu::BindGroupLayout,
    pub(super) display: wgpu::ComputePipeline,
    /// The display module's `in_service_main`: busy time of the services in progress,
    /// per workgroup (the live samples' part of `run`'s busy time; gpu_live.rs).
    pub(super) in_service: wgpu::ComputePipeline,
    pub(super) step: StepPipelines,
}

pub(super) fn build_pipelines(gpu: &Gpu, reductions: Reductions) -> Pipelines {
    let device = &gpu.device;
    let layout = kit::layout(device, "open network", &USES);
    let display_cells_layout = kit::layout(
        device,
        "open network display cells",
        &USES[..DISPLAY_BINDINGS],
    );
    let display_layout = kit::layout(device, "open network display", &[Use::ReadWrite]);
    let pl = kit::pipeline_layout(device, "open network", &[&layout]);
    let pl_display = kit::pipeline_layout(
        device,
        "open network display",
        &[&display_cells_layout, &display_layout],
    );
    let module = |name: &str, src: &str| {
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(name),
            source: wgpu::ShaderSource::Wgsl(super::shaders::pass(src, reductions).into()),
        })
    };
    let scan = module(
        "stepped_scan (open network)",
        pdes_gpu::shaders::STEPPED_SCAN,
    );
    let depart = module("open_depart", super::shaders::DEPART);
    let arrive = module("open_arrive", super::shaders::ARRIVE);
    let plan = module("open_plan", super::shaders::PLAN);
    let display = module("open_display", super::shaders::DISPLAY);
    Pipelines {
        display: kit::pipeline(device, &pl_display, &display, "display_main"),
        in_service: kit::pipeline(device, &pl_display, &display, "in_service_main"),
        step: StepPipelines::new(device, &pl, [&scan, &depart, &arrive, &plan]),
        layout,
        display_cells_layout,
        display_layout,
    }
}

impl Params {
    /// The parameters of a run of `cfg` stepping by `rule` (StepRule::gpu_code).
    pub(super) fn of(cfg: &OpenConfig, rule: u32) -> Self {
        let k = u64::from(cfg.model.facilities());
        let n_wg = k.div_ceil(SEG) as u32;
        let laws = cfg.laws();
        Self {
            lines: cfg.model.lines,
            servers: cfg.model.servers_per_line,
            k: k as u32,
            n_wg,
            seed_lo: cfg.run.seed as u32,
            seed_hi: (cfg.run.seed >> 32) as u32,
            rule,
            log_len: LOG_LEN,
            d: split(to_ticks(cfg.run.d)),
            end_t: split(cfg.end_ticks()),
            shift: split(laws.service.shift),
            scale: laws.service.scale,
            interarrival: laws.interarrival,
            exit_q32: split(laws.exit_q32),
            warmup: split(cfg.run.warmup_ticks()),
        }
    }
}

impl Buffers {
    /// Every buffer of a run with `params` and the control block `ctl`, a pool of `pool`
    /// token slots, the facilities idle.
    pub(super) fn upload(
        device: &wgpu::Device,
        params: &Params,
        ctl: &Ctl,
        pool: u32,
        original: bool,
    ) -> Self {
        let (k, n_wg, lines) = (u64::from(params.k), params.n_wg, params.lines);
        let init = |label: &str, contents: &[u8], usage| {
            pdes_gpu::kit::buffer_init(device, label, contents, usage)
        };
        let storage = pdes_gpu::kit::STORAGE_RW;
        let idle = |v: u64| vec![split(v); k as usize];
        let last_arr = if original { idle(0) } else { vec![[0; 2]] };
        let (seg_count, [_, wg_acc, fac]) = kit::packed(
            device,
            "seg_count, wg_acc, fac",
            [
                &vec![0u8; 16 * n_wg as usize],
                &vec![0u8; 16 * ACC_PER_SEGMENT * n_wg as usize],
                bytemuck::cast_slice(&vec![[NONE, NONE, NONE, 0]; k as usize]),
            ],
        );
        let (dep, [departures, start, last_arr]) = kit::packed(
            device,
            "dep, start_t, last_arr",
            [
                bytemuck::cast_slice(&idle(u64::MAX)),
                bytemuck::cast_slice(&idle(0)),
                bytemuck::cast_slice(&last_arr),
            ],
        );
        // the free stack's contents are written by the GPU before they are read
        let (lists, [_, _, free_stack]) = kit::packed(
            device,
            "dep_list, recv_list, free_stack",
            [
                &vec![0u8; 4 * k as usize],
                &vec![0u8; 4 * (k as usize + lines as usize)],
                &vec![0u8; 4 * pool as usize],
            ],
        );
        Self {
            params: init(
                "params",
                bytemuck::bytes_of(params),
                wgpu::BufferUsages::UNIFORM,
            ),
            ctl: init("ctl", bytemuck::bytes_of(ctl), storage),
            seg_count,
            tok: pool_buffer(device, "token pool", TOKEN_BYTES * u64::from(pool)),
            dep,
            lists,
            heads: init(
                "heads",
                bytemuck::cast_slice(
                    &(0..=k)
                        .map(|i| if i < k { NONE } else { 0 })
                        .collect::<Vec<u32>>(),
                ),
                storage,
            ),
            scan_min: init("scan_min", &vec![0u8; 8 * n_wg as usize], storage),
            // NEVER: a reduction before the first step must not see a zero minimum
            part_min: init("part_min", &vec![0xffu8; 16 * n_wg as usize], storage),
            ln_table: init("ln_table", bytemuck::cast_slice(&LN_TABLE[..]), storage),
            steplog: init("steplog", &vec![0u8; 32 * LOG_LEN as usize], storage),
            wg_acc,
            fac,
            departures,
            start,
            last_arr,
            free_stack,
        }
    }
}

/// A pool-sized storage buffer (contents written by the GPU before they are read).
pub(super) fn pool_buffer(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    kit::buffer(device, label, size, kit::STORAGE_RW)
}
