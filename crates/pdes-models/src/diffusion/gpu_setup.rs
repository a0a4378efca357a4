//! What a diffusion run on the GPU is made of before its first step: the uniform blocks
//! (`Params`, `Phase`, `LogEntry` as in diffusion.wgsl), the buffers with the initial grid
//! uploaded, the bind groups, and the passes compiled for the run's algorithm and size
//! ([`Resources::new`]). `gpu.rs` steps them.

use crate::diffusion::MAX_STEP_TICKS;
use crate::diffusion::config::DiffusionConfig;
use bytemuck::{Pod, Zeroable};
use pdes_core::time::{TICK_BITS, Ticks};
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, STORAGE_RW};
use pdes_gpu::shaders::Reductions;

/// Most steps encoded in one submit (and log entries read back per batch).
pub(super) const MAX_BATCH: u64 = 1024;
pub(super) const WG: u32 = 256;
/// Most workgroups of the `stats` pass (partials read back).
pub(super) const STATS_GROUPS: u32 = 256;
/// Rows per thread of `step` (STRIP in diffusion.wgsl).
pub(super) const STRIP: u32 = 10;

/// Tiles of the quad kernels (`step4`, `plan4`): 64 quads (256 columns) by 4 strips of
/// QSTRIP = 4 rows, as in diffusion.wgsl (2 and 8 measured no faster on the H100).
pub(super) const QUAD_TILE: (u32, u32) = (64, 16);
/// Tiles of the fused hybrid step (`step4h`): 64 quads by 4 strips of HSTRIP = 8 rows.
pub(super) const FUSED_TILE: (u32, u32) = (64, 32);
pub(super) const NONE: u32 = u32::MAX;

/// DParams in diffusion.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(super) struct Params {
    pub(super) rows: u32,
    pub(super) cols: u32,
    pub(super) cells: u32,
    /// Always 0; the shader xors products with it so that no driver can fuse them into a
    /// multiply-add (see `unfused` in diffusion.wgsl).
    pub(super) zero: u32,
    pub(super) ax: f32,
    pub(super) ay: f32,
    pub(super) beta: f32,
    pub(super) boundary: f32,
    pub(super) quantum_scaled: f32,
    pub(super) cap: u32,
    pub(super) fixed_dt: u32,
    pub(super) groups_x: u32,
    pub(super) end_t: [u32; 2],
    pub(super) limit_t: [u32; 2],
    /// Stencil::zero_below: cells below it in magnitude are 0.
    pub(super) zero_below: f32,
    pub(super) pad: [u32; 3],
}

/// Phase in diffusion.wgsl: the slots step n uses.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(super) struct Phase {
    pub(super) entry: u32,
    pub(super) t_slot: u32,
    pub(super) dt_read: u32,
    pub(super) dt_write: u32,
    pub(super) dt_reset: u32,
    pub(super) pad: [u32; 3],
}

impl Phase {
    /// The slots of global step `n`, logging into entry `entry` of the batch.
    pub(super) fn of(n: u64, entry: u32) -> Self {
        Self {
            entry,
            t_slot: (n % 2) as u32,
            dt_read: (n % 3) as u32,
            dt_write: ((n + 1) % 3) as u32,
            dt_reset: ((n + 2) % 3) as u32,
            pad: [0; 3],
        }
    }
}

/// DLog in diffusion.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(super) struct LogEntry {
    pub(super) t: [u32; 2],
    pub(super) dt: u32,
    pub(super) cells: u32,
}

pub(super) fn split(t: Ticks) -> [u32; 2] {
    [t as u32, (t >> 32) as u32]
}

/// Bytes of GPU memory a run of `cfg` needs, by buffer.
pub fn memory_plan(cfg: &DiffusionConfig) -> Vec<(&'static str, u64)> {
    let cells = u64::from(cfg.model.cells());
    vec![
        ("grid (2 × f32 per cell)", 8 * cells),
        ("step log", MAX_BATCH * 16),
    ]
}

/// The bind group layouts of the diffusion passes: the step's buffers, its phase (a
/// dynamic-offset uniform per step), the heatmap's words and the statistics' partials.
struct Layouts {
    step: wgpu::BindGroupLayout,
    phase: wgpu::BindGroupLayout,
    display: wgpu::BindGroupLayout,
    stats: wgpu::BindGroupLayout,
}

impl Layouts {
    /// The layouts on `device`.
    fn new(device: &wgpu::Device) -> Self {
        let entry =
            |binding: u32, ty: wgpu::BufferBindingType, dynamic: bool| wgpu::BindGroupLayoutEntry {
                binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty,
                    has_dynamic_offset: dynamic,
                    min_binding_size: None,
                },
                count: None,
            };
        let rw = wgpu::BufferBindingType::Storage { read_only: false };
        let layout0 = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("diffusion"),
            entries: &[
                entry(0, wgpu::BufferBindingType::Uniform, false),
                entry(1, rw, false),
                entry(2, rw, false),
                entry(
                    3,
                    wgpu::BufferBindingType::Storage { read_only: true },
                    false,
                ),
                entry(4, rw, false),
            ],
        });
        let layout1 = kit::dynamic_uniform_layout(device, "diffusion phase");
        let display_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("diffusion display"),
            entries: &[entry(0, rw, false)],
        });
        let stats = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("diffusion stats"),
            entries: &[entry(1, rw, false)],
        });
        Self {
            step: layout0,
            phase: layout1,
            display: display_layout,
            stats,
        }
    }
}

/// The diffusion passes, compiled for one run (the algorithm and the grid's size are
/// pipeline constants).
pub(super) struct Pipelines {
    pub(super) step: wgpu::ComputePipeline,
    /// The scalar hybrid's plan pass before every step.
    pub(super) plan: Option<wgpu::ComputePipeline>,
    /// The fused hybrid step's first length: the initial grid's largest |rate|, into the dt
    /// slot step 0 reads.
    pub(super) first_plan: Option<wgpu::ComputePipeline>,
    pub(super) show: wgpu::ComputePipeline,
    pub(super) stats: wgpu::ComputePipeline,
}

impl Pipelines {
    /// The passes of a run with `params`, (hybrid, quad rows), its step's entry point and
    /// the layouts (step, phase, display, stats).
    fn new(
        device: &wgpu::Device,
        reductions: Reductions,
        params: &Params,
        (hybrid, quads): (bool, bool),
        step_entry: &str,
        [layout0, layout1, display_layout, stats_layout]: [&wgpu::BindGroupLayout; 4],
    ) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("diffusion"),
            source: wgpu::ShaderSource::Wgsl(super::shaders::module(reductions).into()),
        });
        // the algorithm and the grid's size are compiled in (see diffusion.wgsl)
        let constants = [
            ("HYBRID", if hybrid { 1.0 } else { 0.0 }),
            ("ROWS", f64::from(params.rows)),
            ("COLS", f64::from(params.cols)),
            ("QUADS", f64::from(params.cols / 4)),
        ];
        let pipeline = |entry: &str, layouts: &[Option<&wgpu::BindGroupLayout>]| {
            let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(entry),
                bind_group_layouts: layouts,
                immediate_size: 0,
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&pl),
                module: &module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    ..Default::default()
                },
                cache: None,
            })
        };
        let step_pipeline = pipeline(step_entry, &[Some(layout0), Some(layout1)]);
        let plan_pipeline =
            (hybrid && !quads).then(|| pipeline("plan", &[Some(layout0), Some(layout1)]));
        // the fused hybrid step's first length: the initial grid's largest |rate|, into the
        // dt slot step 0 reads
        let first_plan =
            (hybrid && quads).then(|| pipeline("plan4", &[Some(layout0), Some(layout1)]));
        let show_pipeline = pipeline(
            "show",
            &[Some(layout0), Some(layout1), Some(display_layout)],
        );
        let stats_pipeline = pipeline("stats", &[Some(layout0), Some(layout1), Some(stats_layout)]);
        Self {
            step: step_pipeline,
            plan: plan_pipeline,
            first_plan,
            show: show_pipeline,
            stats: stats_pipeline,
        }
    }
}

impl Params {
    /// The uniform block of a run of `cfg` whose dispatches are `groups_x` wide.
    pub(super) fn of(cfg: &DiffusionConfig, groups_x: u32) -> Self {
        let m = &cfg.model;
        let end = cfg.end_ticks();
        let cells = m.cells();
        let st = m.stencil();
        Params {
            rows: m.rows,
            cols: m.cols,
            cells,
            zero: 0,
            ax: st.ax,
            ay: st.ay,
            beta: st.beta,
            boundary: st.boundary,
            quantum_scaled: cfg.run.quantum as f32 * (1u32 << TICK_BITS) as f32,
            cap: m.max_step_ticks().min(MAX_STEP_TICKS),
            fixed_dt: cfg.dt_ticks(),
            groups_x,
            end_t: split(end),
            limit_t: split(end),
            zero_below: st.zero_below,
            pad: [0; 3],
        }
    }
}

/// The buffers, bind groups and passes of one run, the initial grid uploaded.
pub(super) struct Resources {
    pub(super) params: Params,
    pub(super) params_buf: wgpu::Buffer,
    pub(super) ctl: wgpu::Buffer,
    pub(super) log_buf: wgpu::Buffer,
    pub(super) phase_buf: wgpu::Buffer,
    pub(super) phase_stride: u64,
    pub(super) grid: [wgpu::Buffer; 2],
    pub(super) groups: (u32, u32),
    pub(super) tiles: (u32, u32),
    pub(super) pipelines: Pipelines,
    pub(super) stats_group: wgpu::BindGroup,
    pub(super) stats_buf: wgpu::Buffer,
    pub(super) bind: [wgpu::BindGroup; 2],
    pub(super) phase_group: wgpu::BindGroup,
    pub(super) display_layout: wgpu::BindGroupLayout,
}

impl Resources {
    /// Everything a run of `cfg` needs on `gpu` (`hybrid`: the hybrid algorithm, else
    /// timestepped), its passes built with `reductions`.
    pub(super) fn new(
        gpu: &Gpu,
        cfg: &DiffusionConfig,
        reductions: Reductions,
        hybrid: bool,
    ) -> Self {
        let m = &cfg.model;
        let cells = m.cells();
        let grid_bytes = 4 * u64::from(cells);
        let device = &gpu.device;
        let groups_total = cells.div_ceil(WG);
        let max_x = gpu.limits.max_compute_workgroups_per_dimension.max(1);
        let groups_x = groups_total.min(max_x);
        let groups = (groups_x, groups_total.div_ceil(groups_x));
        // Rows of whole vec4s take the quad kernels, hybrid there the fused step (its plan
        // pass only once, before step 0); other grids the scalar kernels, hybrid with a plan
        // pass before every step (diffusion.wgsl says why). All compute the same bits.
        let quads = m.cols.is_multiple_of(4);
        let (step_entry, tiles) = match (quads, hybrid) {
            (true, true) => ("step4h", quad_tiles(m.cols, m.rows, FUSED_TILE)),
            (true, false) => ("step4", quad_tiles(m.cols, m.rows, QUAD_TILE)),
            _ => ("step", (m.cols.div_ceil(WG), m.rows.div_ceil(STRIP))),
        };
        let params = Params::of(cfg, groups_x);
        let storage = STORAGE_RW;
        let buffer = |label: &str, size: u64, usage| kit::buffer(device, label, size, usage);
        let params_buf = buffer(
            "diffusion params",
            std::mem::size_of::<Params>() as u64,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        let ctl = buffer("diffusion ctl", 32, storage);
        let log_buf = buffer("diffusion log", MAX_BATCH * 16, storage);
        let phase_stride = u64::from(gpu.limits.min_uniform_buffer_offset_alignment).max(32);
        let phase_buf = buffer(
            "diffusion phases",
            phase_stride * MAX_BATCH,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        let grid = [
            buffer("diffusion grid 0", grid_bytes.max(4), storage),
            buffer("diffusion grid 1", grid_bytes.max(4), storage),
        ];
        let initial = vec![m.initial_value(); cells as usize];
        gpu.queue
            .write_buffer(&grid[0], 0, bytemuck::cast_slice(&initial));
        gpu.queue
            .write_buffer(&params_buf, 0, bytemuck::bytes_of(&params));
        gpu.queue.write_buffer(
            &ctl,
            0,
            bytemuck::cast_slice(&[0u32, 0, 0, 0, NONE, NONE, NONE, 0]),
        );

        let Layouts {
            step: layout0,
            phase: layout1,
            display: display_layout,
            stats: stats_layout,
        } = Layouts::new(device);
        let bind_for = |src: usize| {
            let bufs = [&params_buf, &ctl, &log_buf, &grid[src], &grid[1 - src]];
            kit::bind_group(device, "diffusion", &layout0, &bufs)
        };
        let bind = [bind_for(0), bind_for(1)];
        let phase_group = kit::dynamic_uniform_group(
            device,
            "diffusion phase",
            &layout1,
            &phase_buf,
            std::mem::size_of::<Phase>() as u64,
        );
        let pipelines = Pipelines::new(
            device,
            reductions,
            &params,
            (hybrid, quads),
            step_entry,
            [&layout0, &layout1, &display_layout, &stats_layout],
        );
        let stats_buf = buffer("diffusion stats", 16 * u64::from(STATS_GROUPS), storage);
        let stats_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("diffusion stats"),
            layout: &stats_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 1,
                resource: stats_buf.as_entire_binding(),
            }],
        });
        Self {
            params,
            params_buf,
            ctl,
            log_buf,
            phase_buf,
            phase_stride,
            grid,
            groups,
            tiles,
            pipelines,
            stats_group,
            stats_buf,
            bind,
            phase_group,
            display_layout,
        }
    }
}

/// Workgroups of a quad kernel over a `cols` × `rows` grid in tiles of `tile` (quads, rows).
pub(super) fn quad_tiles(cols: u32, rows: u32, tile: (u32, u32)) -> (u32, u32) {
    ((cols / 4).div_ceil(tile.0), rows.div_ceil(tile.1))
}
