//! The torus network on the GPU: the window and interval steps of `pdes_models::torus::two_phase`, run as
//! compute passes over state that never leaves the device.
//!
//! One step is two dependent dispatches in one compute pass. The facilities are cut
//! into segments of 2048 or 4096 (one scan workgroup each; `scan_items` below chooses by
//! size and load); workgroup w of every pass works on segment w.
//! 1. `scan_depart` first closes the step before (the next t_min from one atomic offset
//!    into which every workgroup folded its least departure, the step's counters) and plans
//!    its own bound — every workgroup for itself (torus_plan.wgsl says how that stays
//!    race-free) —, then reads every departure time of its segment once (the only read of
//!    all K facilities), lists the departing ones in shared memory, the others feed the
//!    segment's minimum, and then processes the list: complete the service, put the token
//!    in the destination's mailbox, start the next queued one, list the destination once;
//! 2. `arrive` spreads the segment's receivers over its threads: sort and accept.
//!
//! A batch of steps begins with `resume` and ends with `finish_step` (one workgroup per
//! replica), which closes its last step, so that the host reads a closed step.
//!
//! No indirect dispatch; the global atomics are the mailboxes' announcement masks and
//! one per workgroup per pass on the step's accumulators.
//!
//! The bound, the counters and the stop condition live on the GPU (`ctl`), so many steps
//! are encoded per submit (the next batch while the GPU runs the current one) and the CPU
//! reads back only `ctl` and the step log per batch.
//!
//! Memory per facility at P = 1: departure time (8), the facility record (32), the mailbox
//! (32), the error step and the receiver list (2 × 4), the token record (arrival, next,
//! visits: 16): 96 bytes (plus 80 bytes per segment); interval/original adds
//! the last arrival time (8) for causality detection.

pub use super::gpu_plan::{check_fits, memory_plan};
use super::gpu_plan::{check_fits_of, scan_items};
use super::gpu_setup::{Buffers, Ctl, Params, Pipelines, bind_groups, init_state, pipelines};
pub use super::gpu_state::{
    Accumulated, StateWords, decode_state, departure_words, fac_words, token_words,
};
mod readback;

use crate::torus::config::TorusConfig;
use crate::torus::state::{NONE, TorusState};
use crate::torus::stats::{self, Measures, Summary};
use pdes_core::sim::{Budget, Engine, SimError, StepRecord, StepTotals};
use pdes_core::time::Ticks;
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, join, read_buffers};
use pdes_gpu::read_ranges;
use pdes_gpu::shaders::Reductions;
use pdes_gpu::stepped::{
    self, AdvanceState, MAX_BATCH, PHASE_DONE, ScanItems, StepCtl, SteppedGpu,
};
use std::sync::Arc;

#[path = "gpu_live.rs"]
mod live;

/// Threads per workgroup (WG in u64.wgsl).
const WG: u64 = pdes_gpu::stepped::SCAN_THREADS;

/// Dispatches per step (a batch adds `resume` before and `finish_step` after its steps).
pub const PASSES: usize = 2;
/// Their names, in order.
pub const PASS_NAMES: [&str; PASSES] = ["scan_depart", "arrive"];
/// Most steps in one profiled batch (a query set holds at most 4096 timestamps).
const MAX_PROFILED_BATCH: u64 = 1000;

/// GPU time spent in each pass of the step, from timestamp queries.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct PassProfile {
    /// Nanoseconds in each dispatch of the step ([`PASS_NAMES`]), summed over the profiled steps.
    pub pass_ns: [f64; PASSES],
    /// Steps profiled.
    pub steps: u64,
}

impl PassProfile {
    /// Mean microseconds per step of each pass.
    pub fn us_per_step(&self) -> [f64; PASSES] {
        let n = self.steps.max(1) as f64;
        self.pass_ns.map(|ns| ns / n / 1000.0)
    }
}

/// What a replica of [`GpuTorus::replica_runs`] holds of its own: its seed and its d.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReplicaRun {
    /// Its `run.seed`.
    pub seed: u64,
    /// Its `run.d` (window width or interval length, simulated time).
    pub d: f64,
}

impl ReplicaRun {
    /// The seed and d of `cfg` as it is.
    pub fn of(cfg: &TorusConfig) -> Self {
        Self {
            seed: cfg.run.seed,
            d: cfg.run.d,
        }
    }

    /// `cfg` with this replica's seed and d: the run it gives alone (with shifted service
    /// its law too, whose shift is d).
    pub fn apply(&self, cfg: &TorusConfig) -> TorusConfig {
        let mut one = cfg.clone();
        one.run.seed = self.seed;
        one.run.d = self.d;
        one
    }
}

/// The GPU torus engine: one run, or several runs of one configuration with different
/// seeds side by side ([`GpuTorus::replicas`]).
pub struct GpuTorus {
    gpu: Arc<Gpu>,
    config: TorusConfig,
    end: Ticks,
    n_wg: u32,
    buffers: Buffers,
    pipelines: Arc<Pipelines>,
    bind_group: wgpu::BindGroup,
    /// The display pass's view of the same buffers (its own layout: see gpu_setup.rs).
    display_group: wgpu::BindGroup,
    /// The seed and d of each replica (one for a single run).
    runs: Vec<ReplicaRun>,
    /// Each replica's control block as last read back.
    ctls: Vec<Ctl>,
    /// Their summary for the batch loop: replica 0's, with the least advanced phase and
    /// the most steps of all (see [`SteppedGpu::control_blocks`]).
    ctl: StepCtl,
    /// Each replica's step log.
    logs: Vec<pdes_core::sim::StepLog>,
    batch: u64,
    profile: Option<PassProfile>,
    /// The next full batch, encoded while the GPU ran the previous one: (steps, commands).
    prepared: Option<(u64, wgpu::CommandBuffer)>,
    /// Where the batch loop stands between calls (a batch in flight on a page's device).
    advance: AdvanceState,
    /// With deferred readbacks: the per-workgroup sums (`wg_acc`'s bytes) of the step the
    /// control block was read at — they come back with it, so that a plot sample's sums and
    /// time belong to the same step (a readback of their own would be a frame apart).
    acc_at_head: Option<Vec<u8>>,
    /// The in-service pass's words, one per display workgroup (gpu_live.rs).
    in_service: pdes_gpu::live::WorkgroupSums,
    /// Bytes of GPU memory the run uses.
    pub memory_bytes: u64,
}

impl GpuTorus {
    /// Writes the initial state of `cfg` (window or interval) on the GPU and prepares the passes,
    /// with subgroup reductions where the device has them (the environment variable
    /// `PDES_GPU_REDUCTIONS=portable` forces the shared-memory ones, for benchmarks).
    pub fn new(gpu: Arc<Gpu>, cfg: &TorusConfig) -> Result<Self, SimError> {
        let reductions = Reductions::for_device(&gpu.device);
        Self::with_reductions(gpu, cfg, reductions)
    }

    /// As [`GpuTorus::new`], with the workgroup reductions chosen by the caller (tests and
    /// benchmarks compare both; `Subgroup` needs the SUBGROUP feature).
    pub fn with_reductions(
        gpu: Arc<Gpu>,
        cfg: &TorusConfig,
        reductions: Reductions,
    ) -> Result<Self, SimError> {
        let items = scan_items(cfg, u64::from(cfg.model.facilities()));
        Self::build(gpu, cfg, reductions, &[ReplicaRun::of(cfg)], items)
    }

    /// As [`GpuTorus::with_reductions`], with the scan's facilities per thread chosen by the
    /// caller instead of by size (tests run both segment lengths on small tori; benchmarks
    /// compare them).
    pub fn with_scan_items(
        gpu: Arc<Gpu>,
        cfg: &TorusConfig,
        reductions: Reductions,
        items: ScanItems,
    ) -> Result<Self, SimError> {
        Self::build(gpu, cfg, reductions, &[ReplicaRun::of(cfg)], items)
    }

    /// Runs of `cfg` with each of `seeds` (its `run.seed` replaced), side by side in one set
    /// of buffers and one sequence of dispatches: [`GpuTorus::replica_runs`] with `cfg`'s d
    /// for every seed.
    pub fn replicas(gpu: Arc<Gpu>, cfg: &TorusConfig, seeds: &[u64]) -> Result<Self, SimError> {
        let runs: Vec<ReplicaRun> = seeds
            .iter()
            .map(|&seed| ReplicaRun { seed, d: cfg.run.d })
            .collect();
        Self::replica_runs(gpu, cfg, &runs)
    }

    /// Runs of `cfg` with each of `runs`' seed and d (its `run.seed` and `run.d` replaced),
    /// side by side in one set of buffers and one sequence of dispatches: every replica has
    /// its own control block (its seed, its d), step bound and step log, so each gives
    /// exactly the run it would give alone, while the per-step cost (dispatches, the plan's
    /// latency) is paid once for all — a sweep over d takes the steps of its smallest d, not
    /// the sum over its values. Each d must be valid for `cfg` (the caller's configurations
    /// were checked one by one). Needs a multiple of the scan's segment (2048 or 4096
    /// facilities, chosen by the total size and the load) per torus when there are several.
    pub fn replica_runs(
        gpu: Arc<Gpu>,
        cfg: &TorusConfig,
        runs: &[ReplicaRun],
    ) -> Result<Self, SimError> {
        let reductions = Reductions::for_device(&gpu.device);
        let total = u64::from(cfg.model.facilities()) * runs.len() as u64;
        // the segment length from the heaviest load: the widest window's
        let mut widest = cfg.clone();
        widest.run.d = runs.iter().map(|r| r.d).fold(cfg.run.d, f64::max);
        Self::build(gpu, cfg, reductions, runs, scan_items(&widest, total))
    }

    /// Whether [`GpuTorus::replicas`] takes `cfg` with any number of seeds (a multiple of
    /// the longest segment per torus fits every segment length).
    pub fn can_replicate(cfg: &TorusConfig) -> bool {
        u64::from(cfg.model.facilities()).is_multiple_of(ScanItems::LONGEST_SEGMENT)
            && cfg.run.step_rule().is_some()
    }

    fn build(
        gpu: Arc<Gpu>,
        cfg: &TorusConfig,
        reductions: Reductions,
        runs: &[ReplicaRun],
        items: ScanItems,
    ) -> Result<Self, SimError> {
        let replicas = runs.len() as u32;
        if replicas == 0 {
            return Err(SimError::Gpu("replicas: no seeds given".into()));
        }
        let segment = items.segment();
        if replicas > 1 && !u64::from(cfg.model.facilities()).is_multiple_of(segment) {
            return Err(SimError::Gpu(format!(
                "replicas: {} facilities per torus is not a multiple of {segment} (one scan segment)",
                cfg.model.facilities()
            )));
        }
        let Some(step_rule) = cfg.run.step_rule() else {
            return Err(SimError::Gpu(
                "sequential runs on the CPU only (it is the one-event-at-a-time reference); use --engine cpu".into(),
            ));
        };
        let rule = step_rule.gpu_code();
        let memory_bytes = check_fits_of(&gpu, cfg, u64::from(replicas), items)?;
        let n_wg1 = u64::from(cfg.model.facilities()).div_ceil(segment) as u32;
        let n_wg = n_wg1 * replicas;
        let mut phases = pdes_gpu::stamps::HostPhases::start("torus set-up");
        let params = Params::of(cfg, replicas, n_wg1, rule);
        let ctls: Vec<Ctl> = runs.iter().map(|r| Ctl::of(&r.apply(cfg))).collect();
        let oom = pdes_gpu::kit::OomScope::push(&gpu.device);
        let buffers = Buffers::create(&gpu, &params, &ctls, rule == 1);
        oom.check(format_args!("{memory_bytes} bytes"))?;
        phases.mark("buffers");
        let pipelines = pipelines(&gpu, reductions, items);
        let (bind_group, display_group) = bind_groups(&gpu, &buffers, &pipelines);
        // the initial state is written on the GPU, not uploaded (torus_init.wgsl)
        init_state(&gpu, &pipelines, &bind_group, params.k);
        let in_service = pdes_gpu::live::WorkgroupSums::new(
            &gpu,
            "torus in-service sums",
            cfg.model.facilities().div_ceil(WG as u32),
        );
        let mut engine = Self {
            gpu,
            config: cfg.clone(),
            end: cfg.end_ticks(),
            n_wg,
            buffers,
            pipelines,
            bind_group,
            display_group,
            runs: runs.to_vec(),
            ctls,
            ctl: StepCtl::default(),
            logs: vec![pdes_core::sim::StepLog::new(); replicas as usize],
            batch: 16,
            profile: None,
            prepared: None,
            advance: AdvanceState::default(),
            acc_at_head: None,
            in_service,
            memory_bytes,
        };
        // First level of the reduction, then plan with limit 0: the engine holds at t_min.
        engine
            .pipelines
            .step
            .initialize(&engine.gpu, &engine.bind_group, engine.n_wg, replicas);
        phases.mark("pipelines");
        match engine.read_ctl_and_log() {
            // a page's device: the plan's control block comes back on a later frame
            Err(SimError::NotYet) => engine.advance = AdvanceState::awaiting_first_read(),
            r => r?,
        }
        phases.mark("first plan");
        Ok(engine)
    }

    /// Writes the heatmap's words (tokens present, latest error step) for every facility
    /// into `display` (K × 8 bytes, STORAGE), on the GPU: nothing is read back.
    pub fn write_display(&self, display: &wgpu::Buffer) {
        kit::run_display_pass(
            &self.gpu,
            &self.display_group,
            (&self.pipelines.display_layout, &self.pipelines.display),
            display,
            self.config.model.facilities().div_ceil(WG as u32),
        );
    }

    /// One facility's state, read back alone (for the inspector): departure time (None
    /// when idle), last arrival time (interval/original only), latest error step.
    pub fn facility_snapshot(
        &self,
        f: u32,
    ) -> Result<(Option<Ticks>, Option<Ticks>, u32), SimError> {
        let r = &self.buffers.regions;
        let f = u64::from(f);
        let original = r.last_arr.size > 8;
        let mut ranges = vec![
            r.departures.part(8 * f, 8),
            r.facilities.part(32 * f, 16),
            r.err_step.part(4 * f, 4),
        ];
        if original {
            ranges.push(r.last_arr.part(8 * f, 8));
        }
        // shown only (the inspector): on a page's device the newest bytes there are
        let bytes = pdes_gpu::read_ranges_latest(&self.gpu, &ranges)?;
        let dep: [u32; 2] = bytemuck::pod_read_unaligned(&bytes[0]);
        let fac: [u32; 4] = bytemuck::pod_read_unaligned(&bytes[1]);
        let err: u32 = bytemuck::pod_read_unaligned(&bytes[2]);
        let last = original.then(|| join(bytemuck::pod_read_unaligned(&bytes[3])));
        let dep = (fac[2] != NONE).then(|| join(dep));
        Ok((dep, last, err))
    }

    /// Starts timing every pass with GPU timestamps, if the adapter can write them inside
    /// compute passes. Returns false when it cannot.
    pub fn enable_profiling(&mut self) -> bool {
        let ok = self.gpu.device.features().contains(
            wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES,
        );
        if ok {
            self.profile = Some(PassProfile::default());
            self.batch = self.batch.min(MAX_PROFILED_BATCH);
        }
        ok
    }

    /// GPU time per pass so far, if profiling.
    pub fn profile(&self) -> Option<&PassProfile> {
        self.profile.as_ref()
    }

    /// Its configuration.
    pub fn config(&self) -> &TorusConfig {
        &self.config
    }

    /// (rows, cols) of the torus.
    pub fn grid_shape(&self) -> (u32, u32) {
        (self.config.model.rows, self.config.model.cols)
    }

    /// The adapter this engine runs on.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// Encodes `steps` steps after a `resume` pass; with `stamps`, a timestamp after every
    /// dispatch, resolved into a buffer the caller reads.
    fn encode_batch(
        &self,
        steps: u64,
        stamps: Option<(&wgpu::QuerySet, u32)>,
    ) -> (wgpu::CommandBuffer, Option<wgpu::Buffer>) {
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            let mut q = 0;
            let mut stamp = |pass: &mut wgpu::ComputePass| {
                if let Some((set, _)) = stamps {
                    pass.write_timestamp(set, q);
                    q += 1;
                }
            };
            self.pipelines.step.encode_steps(
                &mut pass,
                &self.bind_group,
                (self.live_segments(), self.runs.len() as u32),
                steps,
                &mut stamp,
            );
        }
        let resolved = stamps
            .map(|(set, count)| kit::resolve_timestamps(&self.gpu.device, &mut enc, set, count));
        (enc.finish(), resolved)
    }

    /// Submits `steps` steps (after a `resume`); then reads back. A batch of the loop's
    /// current size encodes the next one of that size while the GPU runs (encoding costs
    /// CPU time per dispatch, which would otherwise add to every step; bench/NOTES.md,
    /// "Host or device?"): the batch size
    /// settles after a few doublings, or stays put when each call stops at a time limit (the
    /// CLI's chunks), so the prepared batch is almost always the one asked for next; one
    /// that is not is simply dropped.
    fn run_batch(&mut self, steps: u64) -> Result<(), SimError> {
        let t0 = web_time::Instant::now();
        // Profiling: a timestamp after every dispatch (needs TIMESTAMP_QUERY_INSIDE_PASSES).
        let queries = self.profile.is_some().then(|| {
            let count = 2 + PASSES as u32 * steps as u32; // a stamp after every dispatch
            let set = self.gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("pass times"),
                ty: wgpu::QueryType::Timestamp,
                count,
            });
            (set, count)
        });
        let (cmd, resolved) = match (self.prepared.take(), &queries) {
            (Some((n, cmd)), None) if n == steps => (cmd, None),
            _ => self.encode_batch(steps, queries.as_ref().map(|(set, count)| (set, *count))),
        };
        let t1 = web_time::Instant::now();
        self.gpu.queue.submit([cmd]);
        if self.gpu.defers_readbacks() {
            // the services in progress after this batch, copied with its control block
            self.submit_in_service();
        }
        let t2 = web_time::Instant::now();
        if queries.is_none() && steps == self.batch {
            self.prepared = Some((steps, self.encode_batch(steps, None).0));
        }
        let t3 = web_time::Instant::now();
        let r = self.read_ctl_and_log();
        if let (Some(buf), Some(prof)) = (&resolved, self.profile.as_mut()) {
            let bytes = read_buffers(&self.gpu, &[buf])?;
            let t: &[u64] = bytemuck::cast_slice(&bytes[0]);
            let period = f64::from(self.gpu.queue.get_timestamp_period());
            for s in 0..steps as usize {
                for p in 0..PASSES {
                    let i = PASSES * s + p;
                    prof.pass_ns[p] += t[i + 1].saturating_sub(t[i]) as f64 * period;
                }
            }
            prof.steps += steps;
        }
        if std::env::var_os("PDES_GPU_PROFILE").is_some() {
            let per_step = |d: std::time::Duration| d.as_secs_f64() * 1e6 / steps as f64;
            eprintln!(
                "batch {steps} steps: encode {:.1} µs/step, submit {:.1} µs/step, encode the next {:.1} µs/step, wait+read {:.1} µs/step",
                per_step(t1 - t0),
                per_step(t2 - t1),
                per_step(t3 - t2),
                per_step(t3.elapsed())
            );
        }
        r
    }

    /// The segments a step's passes are dispatched over: those of every replica up to the
    /// last one not done, as the latest control blocks read say. A done replica's
    /// workgroups only copy its unchanged block (torus_plan.wgsl), so leaving out a tail of
    /// done ones changes nothing but the step's cost: a sweep's engine holds its runs
    /// longest first, and its larger values of d finish thousands of steps before the
    /// smallest (bench/NOTES.md, "2026-11-30, ninth session"). A block read a batch ago may
    /// still say running; that replica's workgroups then return at once, as before.
    fn live_segments(&self) -> u32 {
        let n_wg1 = self.n_wg / self.runs.len() as u32;
        let live = self
            .ctls
            .iter()
            .rposition(|c| c.head.phase != pdes_gpu::stepped::PHASE_DONE)
            .map_or(self.runs.len(), |r| r + 1);
        n_wg1 * live as u32
    }

    /// Reads every replica's `ctl` and the step-log entries of the steps completed since
    /// the last read.
    fn read_ctl_and_log(&mut self) -> Result<(), SimError> {
        let b = &self.buffers;
        let wg_acc = b.regions.wg_acc.range();
        let in_service = self.in_service.range();
        // a page's device: the sums and the services in progress come back with the
        // control block, of the same step (gpu_live.rs)
        let pair = [wg_acc, in_service];
        let extra: &[(&wgpu::Buffer, u64, u64)] = if self.gpu.defers_readbacks() {
            &pair
        } else {
            &[]
        };
        let (ctls, mut extras) = stepped::read_ctls_logs_and(
            &self.gpu,
            (&b.ctl, &b.steplog),
            &mut self.logs,
            extra,
            self.advance.work(),
        )?;
        self.ctls = ctls;
        self.in_service.keep_head(extras.pop());
        self.acc_at_head = extras.pop();
        let mut head = self.ctls[0].head;
        for c in &self.ctls[1..] {
            head.phase = head.phase.min(c.head.phase);
            head.step = head.step.max(c.head.step);
        }
        self.ctl = head;
        Ok(())
    }
}

impl SteppedGpu for GpuTorus {
    fn device(&self) -> &Gpu {
        &self.gpu
    }
    fn ctl_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.ctl
    }
    fn head(&self) -> &StepCtl {
        &self.ctl
    }
    fn run_batch(&mut self, steps: u64) -> Result<(), SimError> {
        GpuTorus::run_batch(self, steps)
    }
    fn read_head(&mut self) -> Result<(), SimError> {
        self.read_ctl_and_log()
    }
    fn advance_state(&mut self) -> &mut AdvanceState {
        &mut self.advance
    }
    fn batch_mut(&mut self) -> &mut u64 {
        &mut self.batch
    }
    fn control_blocks(&self) -> (u64, u64) {
        (self.runs.len() as u64, std::mem::size_of::<Ctl>() as u64)
    }
    fn max_batch(&self) -> u64 {
        if self.profile.is_some() {
            MAX_PROFILED_BATCH
        } else {
            MAX_BATCH
        }
    }
}

impl Engine for GpuTorus {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        let end = self.end;
        stepped::advance(self, budget, end)
    }
    fn settle(&mut self) -> Result<bool, SimError> {
        stepped::settle(self)
    }
    fn now(&self) -> Ticks {
        join(self.ctl.t_min)
    }
    fn finished(&self) -> bool {
        self.ctl.phase == PHASE_DONE
    }
    fn totals(&self) -> StepTotals {
        self.ctl.totals()
    }
    fn steps(&self) -> Option<&pdes_core::sim::StepLog> {
        Some(&self.logs[0])
    }
    fn report(&mut self) -> Result<pdes_core::sim::Report, SimError> {
        Ok(pdes_core::sim::Report::of(
            &crate::torus::cpu::TorusEngine::summary(self)?,
        ))
    }
}

impl crate::torus::cpu::TorusEngine for GpuTorus {
    fn summary(&mut self) -> Result<Summary, SimError> {
        let m = self.measures()?;
        Ok(Summary::new(&self.config, &self.totals(), &m))
    }
    fn occupancy(&mut self) -> Result<Vec<u32>, SimError> {
        Ok(self.download_state()?.occupancy())
    }
}
