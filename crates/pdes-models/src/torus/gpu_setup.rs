//! What a torus run on the GPU is made of before its first step: the parameter and control
//! blocks (as in common.wgsl), the buffers ([`Buffers::create`]) with the initial state
//! written into them on the GPU ([`init_state`]), and the passes, compiled once per device
//! ([`pipelines`]).
//! `gpu.rs` steps them.

use crate::torus::config::TorusConfig;
use crate::torus::state::NONE;
use bytemuck::{Pod, Zeroable};
use pdes_core::rng::LN_TABLE;
use pdes_core::time::to_ticks;
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, Part, Region, Use, split};
use pdes_gpu::shaders::Reductions;
use pdes_gpu::stepped::{LOG_BYTES, LOG_LEN, ScanItems, StepCtl, StepPipelines};
use std::sync::Arc;

/// Params in common.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(super) struct Params {
    pub(super) rows: u32,
    pub(super) cols: u32,
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
    pub(super) k1: u32,
    pub(super) n_wg1: u32,
    pub(super) tok1: u32,
    pub(super) replicas: u32,
    pub(super) pad0: u32,
    pub(super) warmup: [u32; 2],
    pub(super) pad1: [u32; 2],
}

/// One replica's step control block (Ctl in common.wgsl): the shared head and what the
/// replica holds of its own — its seed, its d and its service law (whose shift is d for
/// shifted service), all in ticks.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(super) struct Ctl {
    pub(super) head: StepCtl,
    pub(super) seed: [u32; 2],
    pub(super) d: [u32; 2],
    pub(super) shift: [u32; 2],
    pub(super) scale: u32,
    pub(super) pad: u32,
}

impl Ctl {
    /// The block of a replica whose own run is `cfg`, before set-up's plan.
    pub(super) fn of(cfg: &TorusConfig) -> Self {
        let law = cfg.service_law();
        Self {
            seed: split(cfg.run.seed),
            d: split(to_ticks(cfg.run.d)),
            shift: split(law.shift),
            scale: law.scale,
            ..Self::default()
        }
    }
}

/// The buffers of one engine, in the order of common.wgsl's bindings. Some bindings hold
/// two arrays, the second after the first (a browser's WebGPU allows 10 storage buffers per
/// stage: common.wgsl's bases); the host reads them as [`Region`]s.
pub(super) struct Buffers {
    pub(super) params: wgpu::Buffer,
    pub(super) ctl: wgpu::Buffer,
    /// Departure times, then the last arrivals.
    pub(super) dep: wgpu::Buffer,
    /// The receiver lists, then the error steps.
    pub(super) recv_list: wgpu::Buffer,
    /// The facility records, then the token records.
    pub(super) fac: wgpu::Buffer,
    /// The mailboxes, then the step accumulators.
    pub(super) mail: wgpu::Buffer,
    pub(super) scan_min: wgpu::Buffer,
    /// The segment counts, then the segment sums.
    pub(super) seg_count: wgpu::Buffer,
    pub(super) part_min: wgpu::Buffer,
    pub(super) ln_table: wgpu::Buffer,
    pub(super) steplog: wgpu::Buffer,
    /// The arrays the host reads inside those bindings.
    pub(super) regions: Regions,
}

/// Where the arrays the host reads lie inside the shared bindings.
pub(super) struct Regions {
    /// Departure times (in `dep`).
    pub(super) departures: Region,
    /// Last arrival times, interval/original only (in `dep`; one unused entry otherwise).
    pub(super) last_arr: Region,
    /// The step of each facility's latest causality error (in `recv_list`).
    pub(super) err_step: Region,
    /// Facility records (in `fac`).
    pub(super) facilities: Region,
    /// Token records (in `fac`).
    pub(super) tok: Region,
    /// Per-segment cumulative sums (in `seg_count`).
    pub(super) wg_acc: Region,
}

/// One binding of two arrays, `first` then `second` (bytes uploaded, zeros cleared on the
/// device); their regions.
fn pair(gpu: &Gpu, label: &str, first: Part, second: Part) -> (wgpu::Buffer, Region, Region) {
    let (buffer, [a, b]) = kit::packed_parts(&gpu.device, &gpu.queue, label, [first, second]);
    (buffer, a, b)
}

/// The compiled passes and their layouts.
pub(super) struct Pipelines {
    pub(super) layout: wgpu::BindGroupLayout,
    /// The display pass's group 0: the first bindings of `layout`.
    pub(super) display_cells_layout: wgpu::BindGroupLayout,
    pub(super) display: wgpu::ComputePipeline,
    /// The display module's `in_service_main`: busy time of the services in progress,
    /// per workgroup (the live samples' part of `run`'s busy time; gpu_live.rs).
    pub(super) in_service: wgpu::ComputePipeline,
    pub(super) display_layout: wgpu::BindGroupLayout,
    pub(super) step: StepPipelines,
    /// The plan module's `init_state`: the initial state of every replica (torus_init.wgsl).
    pub(super) init: wgpu::ComputePipeline,
}

impl Params {
    /// The parameters of `replicas` runs of `cfg` side by side, in `n_wg` workgroups
    /// (`n_wg1` per replica), stepping by `rule` (StepRule::gpu_code).
    pub(super) fn of(cfg: &TorusConfig, replicas: u32, n_wg1: u32, rule: u32) -> Self {
        let k1 = cfg.model.facilities();
        let law = cfg.service_law();
        let end = cfg.end_ticks();
        let k = u64::from(k1) * u64::from(replicas);
        let n_wg = n_wg1 * replicas;
        let tok1 = cfg.model.tokens();
        Self {
            rows: cfg.model.rows,
            cols: cfg.model.cols,
            k: k as u32,
            n_wg,
            seed_lo: cfg.run.seed as u32,
            seed_hi: (cfg.run.seed >> 32) as u32,
            rule,
            log_len: LOG_LEN,
            d: split(to_ticks(cfg.run.d)),
            end_t: split(end),
            shift: split(law.shift),
            scale: law.scale,
            k1,
            n_wg1,
            tok1,
            replicas,
            pad0: 0,
            warmup: split(cfg.run.warmup_ticks()),
            pad1: [0; 2],
        }
    }
}

impl Buffers {
    /// Every buffer of an engine, with the parameters `params` and the replicas' control
    /// blocks `ctls`; the state's buffers as zeros, for [`init_state`]'s pass to write the
    /// initial state into (`original`: interval/original's last arrivals too).
    pub(super) fn create(gpu: &Gpu, params: &Params, ctls: &[Ctl], original: bool) -> Self {
        let device = &gpu.device;
        let (k, n_wg, replicas) = (u64::from(params.k), params.n_wg, params.replicas);
        let tokens = u64::from(params.tok1) * u64::from(replicas);
        let storage = pdes_gpu::kit::STORAGE_RW;
        let init = |label: &str, contents: &[u8], usage| {
            pdes_gpu::kit::buffer_init(device, label, contents, usage)
        };
        let (dep, departures, last_arr) = pair(
            gpu,
            "dep, last_arr",
            Part::Zeros(8 * k),
            Part::Zeros(if original { 8 * k } else { 8 }),
        );
        let (recv_list, _, err_step) = pair(
            gpu,
            "recv_list, err_step",
            Part::Zeros(4 * k),
            Part::Zeros(4 * k),
        );
        // the facility records of common.wgsl (struct Fac), then the tokens'
        let (fac, facilities, tok) = pair(
            gpu,
            "fac, tok",
            Part::Zeros(32 * k),
            Part::Zeros(16 * tokens),
        );
        // per facility: four directions' tokens (read only where the mask says, so their
        // zeros are never read), the mask of the directions announced this step (none),
        // unused; then per step parity and replica: (least offset NONE, departures 0,
        // errors 0, unused)
        let (mail, _, _) = pair(
            gpu,
            "mail, step_acc",
            Part::Zeros(32 * k),
            Part::Bytes(bytemuck::cast_slice(
                &[NONE, 0, 0, 0].repeat(2 * replicas as usize),
            )),
        );
        let (seg_count, _, wg_acc) = pair(
            gpu,
            "seg_count, wg_acc",
            Part::Zeros(16 * u64::from(n_wg)),
            Part::Zeros(32 * u64::from(n_wg)),
        );
        Self {
            params: init(
                "params",
                bytemuck::bytes_of(params),
                wgpu::BufferUsages::UNIFORM,
            ),
            // the host's blocks, then the arrive pass's copies (torus_plan.wgsl)
            ctl: init("ctl", bytemuck::cast_slice(&ctls.repeat(2)), storage),
            dep,
            recv_list,
            fac,
            mail,
            // two sets, by step parity (torus_plan.wgsl)
            scan_min: init("scan_min", &vec![0u8; 2 * 8 * n_wg as usize], storage),
            seg_count,
            // NEVER: a reduction before the first step must not see a zero minimum
            part_min: init("part_min", &vec![0xffu8; 2 * 16 * n_wg as usize], storage),
            ln_table: init("ln_table", bytemuck::cast_slice(&LN_TABLE[..]), storage),
            steplog: init(
                "steplog",
                &vec![0u8; (LOG_BYTES * u64::from(replicas)) as usize],
                storage,
            ),
            regions: Regions {
                departures,
                last_arr,
                err_step,
                facilities,
                tok,
                wg_acc,
            },
        }
    }
}

/// Writes every replica's initial state into an engine's zeroed buffers, on the GPU
/// (torus_init.wgsl, the twin of `TorusState::new`): one submission, before the first plan.
pub(super) fn init_state(gpu: &Gpu, pipelines: &Pipelines, bind_group: &wgpu::BindGroup, k: u32) {
    // a thread per facility, grid-stride past one dispatch dimension's 65,535 workgroups
    const INIT_WG: u32 = 256;
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_bind_group(0, bind_group, &[]);
        pass.set_pipeline(&pipelines.init);
        pass.dispatch_workgroups(k.div_ceil(INIT_WG).clamp(1, 65_535), 1, 1);
    }
    gpu.queue.submit([enc.finish()]);
}

/// The torus's compiled passes and their bind group layout: built once per device and
/// reduction variant ([`Gpu::cached`]), shared by every torus engine on it.
pub(super) fn pipelines(gpu: &Gpu, reductions: Reductions, items: ScanItems) -> Arc<Pipelines> {
    let key = format!(
        "torus pipelines, {reductions:?}, {items:?}, {:?}",
        std::env::var_os("PDES_WGSL_DIR")
    );
    gpu.cached(&key, || build_pipelines(gpu, reductions, items))
}

/// How the torus passes use their bindings (0: the parameters; 9: the ln table). The
/// first [`DISPLAY_BINDINGS`] are also the display pass's (with its own output as group 1).
const USES: [Use; 11] = {
    let mut u = [Use::ReadWrite; 11];
    u[0] = Use::Uniform;
    u[9] = Use::Read;
    u
};

/// The bindings the display pass reads: parameters, control blocks, departures, error
/// steps, facilities and tokens (a layout of its own: with all of [`USES`] and its output
/// it would need 11 storage buffers).
const DISPLAY_BINDINGS: usize = 5;

/// Binds an engine's buffers for the cached pipelines (in the order of common.wgsl): the
/// step's group, and the display pass's.
pub(super) fn bind_groups(
    gpu: &Gpu,
    b: &Buffers,
    pipelines: &Pipelines,
) -> (wgpu::BindGroup, wgpu::BindGroup) {
    let all = [
        &b.params,
        &b.ctl,
        &b.dep,
        &b.recv_list,
        &b.fac,
        &b.mail,
        &b.scan_min,
        &b.seg_count,
        &b.part_min,
        &b.ln_table,
        &b.steplog,
    ];
    (
        kit::bind_group(&gpu.device, "torus", &pipelines.layout, &all),
        kit::bind_group(
            &gpu.device,
            "torus display cells",
            &pipelines.display_cells_layout,
            &all[..DISPLAY_BINDINGS],
        ),
    )
}

fn build_pipelines(gpu: &Gpu, reductions: Reductions, items: ScanItems) -> Pipelines {
    let device = &gpu.device;
    let layout = kit::layout(device, "torus", &USES);
    let display_cells_layout =
        kit::layout(device, "torus display cells", &USES[..DISPLAY_BINDINGS]);
    let display_layout = kit::layout(device, "torus display", &[Use::ReadWrite]);
    let pl = kit::pipeline_layout(device, "torus", &[&layout]);
    let pl_display = kit::pipeline_layout(
        device,
        "torus display",
        &[&display_cells_layout, &display_layout],
    );
    let [scan_depart, arrive, plan, display] = super::shaders::MODULES.map(|(name, files)| {
        kit::compute_module(
            device,
            name,
            super::shaders::pass_of_files(files, reductions),
        )
    });
    Pipelines {
        display: kit::pipeline(device, &pl_display, &display, "display_main"),
        in_service: kit::pipeline(device, &pl_display, &display, "in_service_main"),
        init: kit::pipeline(device, &pl, &plan, "init_state"),
        step: StepPipelines::with_scan_depart(device, &pl, [&scan_depart, &arrive, &plan], items),
        layout,
        display_cells_layout,
        display_layout,
    }
}
