//! The diffusion grid on the GPU: `timestepped` and `hybrid` as one compute dispatch per
//! step (`shaders/diffusion.wgsl`), the twin of `models::diffusion::cpu::synchronous`.
//!
//! The grid lives in two f32 buffers used in turn (step n reads buffer n mod 2). Hybrid's
//! step length is a minimum over all cells that each step reduces on the device for the
//! next one (workgroup reduction from `reduce_*.wgsl`, then one atomicMin per workgroup),
//! so a batch of up to 1024 steps is encoded in one submit and the CPU reads back only the
//! 32-byte control block and 16 bytes of log per step. Steps past the budget's limit or the
//! end time take length 0 (they copy the grid), so the host may overshoot its estimate of
//! the steps left without changing the result.

use crate::diffusion::config::DiffusionAlgorithm;
use crate::diffusion::config::DiffusionConfig;
use crate::diffusion::cpu::{DiffusionEngine, DiffusionSummary};
use pdes_core::sim::{Budget, Engine, Report, SimError, StepRecord, StepTotals};
use pdes_core::time::Ticks;
use pdes_gpu::Gpu;
use pdes_gpu::batches::{self, BatchLoop, Batched};
use pdes_gpu::read_ranges;
use pdes_gpu::shaders::Reductions;
use std::sync::Arc;

pub use super::gpu_setup::memory_plan;
use super::gpu_setup::{
    LogEntry, MAX_BATCH, Params, Phase, QUAD_TILE, Resources, STATS_GROUPS, quad_tiles, split,
};

/// A batch of steps encoded for the GPU and not yet submitted.
struct Batch {
    /// Steps dispatched before it.
    first: u64,
    /// Steps in it.
    steps: u64,
    /// The time its steps must start before (the parameters' `limit_t`).
    limit: Ticks,
    /// Its phase entries (written to the phase buffer when it is submitted).
    phases: Vec<u8>,
    commands: wgpu::CommandBuffer,
    stamps: Option<pdes_gpu::stamps::BatchStamps>,
    encode_seconds: f64,
}

/// The diffusion grid running on the GPU.
pub struct GpuDiffusion {
    gpu: Arc<Gpu>,
    config: DiffusionConfig,
    params: Params,
    params_buf: wgpu::Buffer,
    ctl: wgpu::Buffer,
    log_buf: wgpu::Buffer,
    phase_buf: wgpu::Buffer,
    phase_stride: u64,
    grid: [wgpu::Buffer; 2],
    groups: (u32, u32),
    /// Workgroups of the step (and of the per-step plan pass): 256 × STRIP tiles for the
    /// scalar kernels, QUAD_TILE or FUSED_TILE for the quad ones.
    tiles: (u32, u32),
    step_pipeline: wgpu::ComputePipeline,
    /// Hybrid's pass before each step: the largest |rate| of the grid, for the step's length.
    plan_pipeline: Option<wgpu::ComputePipeline>,
    show_pipeline: wgpu::ComputePipeline,
    stats_pipeline: wgpu::ComputePipeline,
    stats_group: wgpu::BindGroup,
    stats_buf: wgpu::Buffer,
    /// Bind group 0 for steps reading grid 0 and grid 1.
    bind: [wgpu::BindGroup; 2],
    phase_group: wgpu::BindGroup,
    display_layout: wgpu::BindGroupLayout,
    /// Steps dispatched, no-op steps included (grid `dispatched % 2` is current).
    dispatched: u64,
    /// The next batch, encoded while the last one ran (used if it is what is asked next).
    prepared: Option<Batch>,
    t: Ticks,
    end: Ticks,
    totals: StepTotals,
    log: pdes_core::sim::StepLog,
    /// The budget loop's state (a batch in flight on a page's device).
    batches: BatchLoop<Ticks>,
    /// Steps of the next batch (doubling while a call goes on).
    batch: u64,
    /// The number [`Gpu::note_work`] gave the latest batch.
    work: u64,
    /// Steps of the latest batch (its log entries are the log buffer's first ones).
    last_batch: u64,
    /// On a page's device: the grid's (mean, min, max) after the batch last read back,
    /// reduced with it and read in the same copy (a sample's statistics and time then
    /// belong to the same step).
    stats_at_head: Option<(f64, f64, f64)>,
    /// Bytes of GPU memory the run uses.
    pub memory_bytes: u64,
}

/// Steps of a call's first batch (doubling from there).
const FIRST_BATCH: u64 = 16;

impl GpuDiffusion {
    /// Uploads the initial grid of `cfg` (timestepped or hybrid) and prepares the passes,
    /// with the best reductions the device offers ([`Reductions::for_device`]).
    pub fn new(gpu: Arc<Gpu>, cfg: &DiffusionConfig) -> Result<Self, SimError> {
        let reductions = Reductions::for_device(&gpu.device);
        Self::with_reductions(gpu, cfg, reductions)
    }

    /// [`GpuDiffusion::new`] with the given workgroup reductions.
    pub fn with_reductions(
        gpu: Arc<Gpu>,
        cfg: &DiffusionConfig,
        reductions: Reductions,
    ) -> Result<Self, SimError> {
        let hybrid = match cfg.run.algorithm {
            DiffusionAlgorithm::Hybrid => true,
            DiffusionAlgorithm::Timestepped => false,
            DiffusionAlgorithm::Event => {
                return Err(SimError::Gpu(
                    "run.algorithm: \"event\" runs on the CPU only (one cell at a time from a priority queue)"
                        .into(),
                ));
            }
        };
        let m = &cfg.model;
        let grid_bytes = 4 * u64::from(m.cells());
        if grid_bytes > gpu.max_storage_buffer() {
            return Err(SimError::TooLarge(format!(
                "model.rows × model.cols: {}×{} needs a {grid_bytes}-byte grid buffer; this adapter allows {} bytes per buffer",
                m.rows,
                m.cols,
                gpu.max_storage_buffer()
            )));
        }
        let r = Resources::new(&gpu, cfg, reductions, hybrid);
        let first_plan = r.pipelines.first_plan.clone();
        let engine = Self {
            memory_bytes: memory_plan(cfg).iter().map(|(_, b)| b).sum(),
            gpu: gpu.clone(),
            config: cfg.clone(),
            params: r.params,
            params_buf: r.params_buf,
            ctl: r.ctl,
            log_buf: r.log_buf,
            phase_buf: r.phase_buf,
            phase_stride: r.phase_stride,
            grid: r.grid,
            groups: r.groups,
            tiles: r.tiles,
            step_pipeline: r.pipelines.step,
            plan_pipeline: r.pipelines.plan,
            show_pipeline: r.pipelines.show,
            stats_pipeline: r.pipelines.stats,
            stats_group: r.stats_group,
            stats_buf: r.stats_buf,
            bind: r.bind,
            phase_group: r.phase_group,
            display_layout: r.display_layout,
            dispatched: 0,
            prepared: None,
            t: 0,
            end: cfg.end_ticks(),
            totals: StepTotals::default(),
            log: pdes_core::sim::StepLog::new(),
            batches: BatchLoop::default(),
            batch: FIRST_BATCH,
            work: 0,
            last_batch: 0,
            stats_at_head: None,
        };
        if let Some(plan4) = first_plan {
            let phase = Phase::of(0, 0);
            gpu.queue
                .write_buffer(&engine.phase_buf, 0, bytemuck::bytes_of(&phase));
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                pass.set_pipeline(&plan4);
                pass.set_bind_group(0, &engine.bind[0], &[]);
                pass.set_bind_group(1, &engine.phase_group, &[0]);
                let t = quad_tiles(cfg.model.cols, cfg.model.rows, QUAD_TILE);
                pass.dispatch_workgroups(t.0, t.1, 1);
            }
            gpu.queue.submit([enc.finish()]);
        }
        // finish the upload now, so that it counts as setup rather than as the first steps
        gpu.queue.submit([]);
        gpu.device
            .poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: None,
            })
            .map_err(|e| SimError::Gpu(format!("waiting for the GPU: {e}")))?;
        Ok(engine)
    }

    /// The step length the run takes now, as far as the host knows (for batch sizing).
    fn typical_step(&self) -> u64 {
        match self.config.run.algorithm {
            DiffusionAlgorithm::Timestepped => u64::from(self.params.fixed_dt.max(1)),
            _ => self
                .log
                .len()
                .checked_sub(64)
                .map(|from| {
                    let span = &self.log[from..];
                    (span[span.len() - 1].bound - span[0].t_min) / span.len() as u64
                })
                .unwrap_or(1)
                .max(1),
        }
    }

    /// Encodes the `steps` steps that follow the first `first` dispatched ones: their phase
    /// entries and one command buffer. Nothing is sent to the GPU.
    fn encode_batch(&self, first: u64, steps: u64, limit: Ticks) -> Batch {
        let gpu = &self.gpu;
        let mut phases = vec![0u8; (self.phase_stride * steps) as usize];
        for j in 0..steps {
            let p = Phase::of(first + j, j as u32);
            let at = (j * self.phase_stride) as usize;
            phases[at..at + std::mem::size_of::<Phase>()].copy_from_slice(bytemuck::bytes_of(&p));
        }
        let t0 = web_time::Instant::now();
        // PDES_GPU_PROFILE: GPU time of the batch from two timestamps, printed per step
        let stamps = pdes_gpu::stamps::BatchStamps::new(gpu, "diffusion batch");
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&self.log_buf, 0, Some(steps * 16));
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            if let Some(s) = &stamps {
                s.write(&mut pass, 0);
            }
            pass.set_pipeline(&self.step_pipeline);
            for j in 0..steps {
                let n = first + j;
                pass.set_bind_group(0, &self.bind[(n % 2) as usize], &[]);
                pass.set_bind_group(1, &self.phase_group, &[(j * self.phase_stride) as u32]);
                if let Some(plan) = &self.plan_pipeline {
                    // scalar hybrid: the step's length from the grid it starts from
                    pass.set_pipeline(plan);
                    pass.dispatch_workgroups(self.tiles.0, self.tiles.1, 1);
                    pass.set_pipeline(&self.step_pipeline);
                }
                pass.dispatch_workgroups(self.tiles.0, self.tiles.1, 1);
            }
            if let Some(s) = &stamps {
                s.write(&mut pass, 1);
            }
        }
        if let Some(s) = &stamps {
            s.resolve(&mut enc);
        }
        Batch {
            first,
            steps,
            limit,
            phases,
            commands: enc.finish(),
            stamps,
            encode_seconds: t0.elapsed().as_secs_f64(),
        }
    }

    /// Runs `batch` (encoded by [`Self::encode_batch`] for exactly the next steps) in one
    /// submit; while the GPU runs it, encodes `next` steps after it (kept for the next call,
    /// which uses them only if it asks for exactly those steps, else encodes anew); then reads
    /// back the time and the log ([`Self::read_batch`]; on a page's device that answers
    /// [`SimError::NotYet`] once the batch is submitted). Returns the steps taken.
    fn run_batch(&mut self, batch: Batch, next: u64) -> Result<u32, SimError> {
        debug_assert_eq!(batch.first, self.dispatched);
        let gpu = self.gpu.clone();
        let (steps, limit) = (batch.steps, batch.limit);
        let t0 = web_time::Instant::now();
        self.params.limit_t = split(limit);
        gpu.queue
            .write_buffer(&self.params_buf, 0, bytemuck::bytes_of(&self.params));
        gpu.queue.write_buffer(&self.phase_buf, 0, &batch.phases);
        self.work = gpu.note_work();
        self.last_batch = steps;
        gpu.queue.submit([batch.commands]);
        self.dispatched += steps;
        if gpu.defers_readbacks() {
            self.submit_stats();
        }
        // the next batch's encoding overlaps this one's execution instead of following it
        // (encoding costs host time per step; bench/NOTES.md has the figure)
        self.prepared = (next > 0).then(|| self.encode_batch(self.dispatched, next, limit));
        let taken = self.read_batch()?;
        if let Some(stamps) = &batch.stamps {
            let wall = batch.encode_seconds + t0.elapsed().as_secs_f64();
            stamps.read_and_report(&gpu, steps, batch.encode_seconds, wall)?;
        }
        Ok(taken)
    }

    /// Reads the time and the log of the batch last submitted (and, on a page's device,
    /// the grid after it, reduced as the summary reduces it). Returns the steps it took.
    fn read_batch(&mut self) -> Result<u32, SimError> {
        let mut ranges = vec![(&self.ctl, 0, 32), (&self.log_buf, 0, 16 * self.last_batch)];
        let with_stats = self.gpu.defers_readbacks();
        let cells = 4 * u64::from(self.config.model.cells());
        if with_stats {
            // the grid itself, so that a sample's statistics are the summary's (f64, in
            // cell order) and of the same step as the batch's time (issue 56 §1)
            ranges.push((&self.grid[(self.dispatched % 2) as usize], 0, cells));
        }
        let bytes = pdes_gpu::read_ranges_since(&self.gpu, &ranges, self.work)?;
        let ctl: &[u32] = bytemuck::cast_slice(&bytes[0]);
        let slot = (self.dispatched % 2) as usize;
        self.t = u64::from(ctl[2 * slot]) | (u64::from(ctl[2 * slot + 1]) << 32);
        let before = self.totals.steps;
        // the batch's first entries, cleared at its start: those with a step are its steps
        let entries: &[LogEntry] = bytemuck::cast_slice(&bytes[1]);
        for e in entries.iter().filter(|e| e.dt > 0) {
            let t0 = u64::from(e.t[0]) | (u64::from(e.t[1]) << 32);
            self.log.push(StepRecord {
                t_min: t0,
                bound: t0 + u64::from(e.dt),
                events: u64::from(e.cells),
                errors: 0,
            });
            self.totals.record(u64::from(e.cells), 0);
        }
        if with_stats {
            self.stats_at_head = Some(super::cpu::grid_stats(bytemuck::cast_slice(&bytes[2])));
        }
        Ok((self.totals.steps - before) as u32)
    }

    /// The device the run lives on.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// Mean, minimum and maximum temperature of the current grid, reduced on the GPU (the
    /// app's plots: a few KiB read back instead of the grid; f32 partial sums, so the mean
    /// is good to about 1e-6 relative, not the f64 exactness of [`DiffusionSummary`]).
    pub fn grid_stats(&self) -> Result<(f64, f64, f64), SimError> {
        if let Some(stats) = self.stats_at_head {
            return Ok(stats);
        }
        // a page's device: only with a batch's time, or a sample's statistics and time could
        // be of different steps
        if self.gpu.defers_readbacks() {
            return Err(SimError::NotYet);
        }
        self.submit_stats();
        let groups = self.stats_groups();
        let bytes = read_ranges(&self.gpu, &[(&self.stats_buf, 0, 16 * u64::from(groups))])?;
        Ok(self.stats_of(&bytes[0]))
    }

    /// Mean, minimum and maximum temperature as the run's summary computes them (f64 over
    /// the cells in order): on a page's device those of the grid read back with the last
    /// batch, elsewhere of the grid read back now.
    pub fn exact_grid_stats(&self) -> Result<(f64, f64, f64), SimError> {
        if self.gpu.defers_readbacks() {
            return self.stats_at_head.ok_or(SimError::NotYet);
        }
        Ok(super::cpu::grid_stats(&DiffusionEngine::temperatures(
            self,
        )?))
    }

    /// Workgroups of the statistics pass.
    fn stats_groups(&self) -> u32 {
        self.groups
            .0
            .saturating_mul(self.groups.1)
            .clamp(1, STATS_GROUPS)
    }

    /// Submits the statistics pass over the current grid (its partial results in
    /// `stats_buf`).
    fn submit_stats(&self) {
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.stats_pipeline);
            pass.set_bind_group(0, &self.bind[(self.dispatched % 2) as usize], &[]);
            pass.set_bind_group(1, &self.phase_group, &[0]);
            pass.set_bind_group(2, &self.stats_group, &[]);
            pass.dispatch_workgroups(self.stats_groups(), 1, 1);
        }
        self.gpu.queue.submit([enc.finish()]);
    }

    /// (mean, min, max) from the statistics pass's partial results.
    fn stats_of(&self, bytes: &[u8]) -> (f64, f64, f64) {
        let parts: &[[f32; 4]] = bytemuck::cast_slice(bytes);
        let (mut sum, mut lo, mut hi) = (0.0f64, f64::INFINITY, f64::NEG_INFINITY);
        for p in parts {
            sum += f64::from(p[0]);
            lo = lo.min(f64::from(p[1]));
            hi = hi.max(f64::from(p[2]));
        }
        (sum / f64::from(self.config.model.cells()), lo, hi)
    }

    /// Fills `display` with the heatmap words of the current grid (temperature bits, 0).
    pub fn write_display(&self, display: &wgpu::Buffer) {
        let device = &self.gpu.device;
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("diffusion display"),
            layout: &self.display_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: display.as_entire_binding(),
            }],
        });
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.show_pipeline);
            pass.set_bind_group(0, &self.bind[(self.dispatched % 2) as usize], &[]);
            pass.set_bind_group(1, &self.phase_group, &[0]);
            pass.set_bind_group(2, &group, &[]);
            pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
        }
        self.gpu.queue.submit([enc.finish()]);
    }
}

impl GpuDiffusion {
    /// The batch to ask for at time `t` with `left` steps allowed under `limit`: steps to
    /// the limit at the current step length, plus one for rounding, at most `batch`.
    fn wanted(&self, limit: Ticks, t: Ticks, left: u64, batch: u64) -> u64 {
        let estimate = limit.saturating_sub(t).div_ceil(self.typical_step()) + 1;
        left.min(batch).min(estimate).min(MAX_BATCH)
    }
}

impl Batched for GpuDiffusion {
    type Limit = Ticks;
    fn batches(&mut self) -> &mut BatchLoop<Ticks> {
        &mut self.batches
    }
    fn due(&self, limit: Ticks, left: u64) -> u32 {
        if left == 0 || self.t >= limit {
            return 0;
        }
        self.wanted(limit, self.t, left, self.batch) as u32
    }
    fn run(&mut self, steps: u32, limit: Ticks) -> Result<u32, SimError> {
        let n = u64::from(steps);
        let encoded = match self.prepared.take() {
            Some(b) if b.first == self.dispatched && b.steps == n && b.limit == limit => b,
            _ => self.encode_batch(self.dispatched, n, limit),
        };
        // the batch the next round will ask for if this one takes all its steps at the
        // current step length (when it does not, the next round encodes anew)
        let next_batch = (self.batch * 2).min(MAX_BATCH);
        let t_after = self.t.saturating_add(n.saturating_mul(self.typical_step()));
        let left = self.batches.left();
        let next = if left > n && t_after < limit {
            self.wanted(limit, t_after, left - n, next_batch)
        } else {
            0
        };
        self.batch = next_batch;
        self.run_batch(encoded, next)
    }
    fn read(&mut self) -> Result<u32, SimError> {
        self.read_batch()
    }
}

impl Engine for GpuDiffusion {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        let (limit, steps) = budget.limits(self.end);
        self.batches.aim(limit, steps);
        // a call starts small and doubles; a page's device runs one batch a frame, so there
        // the batch keeps the size it grew to (the limit still caps it)
        if !self.gpu.defers_readbacks() {
            self.batch = FIRST_BATCH;
        }
        batches::settle(self).map(|_| ())
    }
    fn settle(&mut self) -> Result<bool, SimError> {
        batches::settle(self)
    }
    fn now(&self) -> Ticks {
        self.t
    }
    fn finished(&self) -> bool {
        self.t >= self.end
    }
    fn totals(&self) -> StepTotals {
        self.totals.clone()
    }
    fn steps(&self) -> Option<&pdes_core::sim::StepLog> {
        Some(&self.log)
    }
    fn report(&mut self) -> Result<Report, SimError> {
        let values = self.temperatures()?;
        Ok(Report::of(&DiffusionSummary::new(
            &self.config,
            &self.totals,
            self.t,
            &values,
            "gpu",
        )))
    }
}

impl DiffusionEngine for GpuDiffusion {
    fn temperatures(&self) -> Result<Vec<f32>, SimError> {
        let cur = &self.grid[(self.dispatched % 2) as usize];
        let bytes = pdes_gpu::read_ranges_since(
            &self.gpu,
            &[(cur, 0, 4 * u64::from(self.config.model.cells()))],
            self.work,
        )?;
        Ok(bytemuck::cast_slice(&bytes[0]).to_vec())
    }
}
