//! The host side every stepped GPU engine shares (the torus and the network; WGSL
//! twin: `shaders/stepped.wgsl`): the head of the step control block, the step log, and the
//! batch loop that turns a [`Budget`] into submits of many steps each with one readback.

use super::Gpu;
use super::kit::{join, read_buffers, split};
use bytemuck::{Pod, Zeroable};
use pdes_core::sim::{Budget, SimError, StepRecord, StepTotals};
use pdes_core::time::Ticks;

/// Phase: a step is planned (its bound set); the passes run it.
pub const PHASE_PLANNED: u32 = 1;
/// Phase: the next step starts at or past the caller's limit.
pub const PHASE_HELD: u32 = 2;
/// Phase: the next step starts at or past the end time.
pub const PHASE_DONE: u32 = 3;

/// Threads per workgroup of the stepped passes (WG in u64.wgsl).
pub const SCAN_THREADS: u64 = 256;

/// Facilities per thread in a stepped engine's scan: the pipeline constant ITEMS of
/// stepped.wgsl, so one segment (one scan workgroup's share) is 256 × items facilities.
/// Longer segments give each workgroup more events at once on large grids, and on small
/// ones leave too few workgroups to hide the scan's latency, so the length is chosen by
/// size (the measurements: bench/NOTES.md, "Segments of 4096").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScanItems(u32);

impl ScanItems {
    /// The default of stepped.wgsl (the network's).
    pub const EIGHT: ScanItems = ScanItems(8);
    /// Twice as long segments, for the largest runs.
    pub const SIXTEEN: ScanItems = ScanItems(16);
    /// The longest segment of any choice (SEG_MAX in stepped.wgsl): a torus of several
    /// replicas whose size is a multiple of it fits every choice.
    pub const LONGEST_SEGMENT: u64 = SCAN_THREADS * 16;

    /// 8 or 16, or an error naming the valid values.
    pub fn new(items: u32) -> Result<Self, String> {
        match items {
            8 | 16 => Ok(ScanItems(items)),
            _ => Err(format!("scan items: {items} (valid: 8 or 16)")),
        }
    }

    /// The choice for `facilities` in all: the longer segments whenever they still make
    /// at least 1,024 workgroups (from 2048² up), the shorter ones below.
    pub fn for_facilities(facilities: u64) -> Self {
        if facilities >= 1024 * SCAN_THREADS * 16 {
            Self::SIXTEEN
        } else {
            Self::EIGHT
        }
    }

    /// Facilities per thread.
    pub const fn get(self) -> u32 {
        self.0
    }

    /// Facilities per segment.
    pub const fn segment(self) -> u64 {
        SCAN_THREADS * self.0 as u64
    }

    /// The pipeline constants that select it.
    pub const fn constants(self) -> [(&'static str, f64); 1] {
        [("ITEMS", self.0 as f64)]
    }
}

/// Steps the GPU step log holds; a batch never exceeds it.
pub const LOG_LEN: u32 = 4096;
/// Most steps encoded in one submit.
pub const MAX_BATCH: u64 = 1024;

/// The head of every model's step control block (`Ctl` in its common.wgsl starts with
/// these fields, in this order).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct StepCtl {
    /// Earliest pending event (the planned step's start, or where the run holds).
    pub t_min: [u32; 2],
    /// Inclusive bound of the planned step.
    pub bound: [u32; 2],
    /// The boundary events happen at (interval/boundary).
    pub exec_at: [u32; 2],
    /// The caller's limit: no step starts at or past it.
    pub limit: [u32; 2],
    /// Events so far.
    pub events: [u32; 2],
    /// Causality errors so far.
    pub errors: [u32; 2],
    /// Steps completed.
    pub step: u32,
    /// `PHASE_*`.
    pub phase: u32,
    /// Most events in one step.
    pub max_events: u32,
    /// The torus: 1 while the planned step has run and is not closed yet (inside a batch
    /// only: its closing pass leaves 0). Unused by the network (keeps the head 16-byte
    /// aligned).
    pub executed: u32,
}

impl StepCtl {
    /// The counters as the engine interface reports them.
    pub fn totals(&self) -> StepTotals {
        StepTotals {
            events: join(self.events),
            steps: u64::from(self.step),
            max_events_per_step: u64::from(self.max_events),
            steps_with_errors: 0,
        }
    }

    /// Where the run stands, capped at `end`.
    pub fn now(&self, end: Ticks) -> Ticks {
        join(self.t_min).min(end)
    }
}

/// One step-log entry (`LogEntry` in stepped.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct LogEntry {
    t_min: [u32; 2],
    bound: [u32; 2],
    events: u32,
    errors: u32,
    pad: [u32; 2],
}

/// Bytes of the GPU step log.
pub const LOG_BYTES: u64 = 32 * LOG_LEN as u64;

/// What a stepped GPU engine provides so that [`advance`] can drive it.
pub trait SteppedGpu {
    /// The device.
    fn device(&self) -> &Gpu;
    /// The control block's buffer (its head is a [`StepCtl`]).
    fn ctl_buffer(&self) -> &wgpu::Buffer;
    /// The control block's head as last read back.
    fn head(&self) -> &StepCtl;
    /// Encodes `steps` steps after a `resume` pass, submits them, reads the control block
    /// and the log back ([`SteppedGpu::read_head`]; with deferred readbacks that may answer
    /// [`SimError::NotYet`] after the submit).
    fn run_batch(&mut self, steps: u64) -> Result<(), SimError>;
    /// Reads the control block and the log back (what a batch ends with).
    fn read_head(&mut self) -> Result<(), SimError>;
    /// Where [`advance`] stands between calls.
    fn advance_state(&mut self) -> &mut AdvanceState;
    /// Steps of the next batch (grown while the run goes on).
    fn batch_mut(&mut self) -> &mut u64;
    /// The largest batch (profiling caps it lower).
    fn max_batch(&self) -> u64 {
        MAX_BATCH
    }
    /// The plan stopped in a phase of the model's own (above DONE): deal with it before
    /// the next batch (the network grows its token pool). Returns false to stop.
    fn resolve_stop(&mut self) -> Result<bool, SimError> {
        Ok(false)
    }
    /// The control blocks in the buffer: (how many, bytes from one to the next). An engine
    /// that runs several replicas side by side has one per replica; its [`Self::head`]
    /// then sums them up for the batch loop (the least advanced phase, the most steps).
    fn control_blocks(&self) -> (u64, u64) {
        (1, 0)
    }
}

/// Where [`advance`] stands between calls. On a device that waits for its readbacks a call
/// spends its budget whole and this is empty after it; on one with deferred readbacks (a
/// browser tab's) a batch's control block comes back a frame later, and [`settle`] goes on
/// from here.
#[derive(Clone, Copy, Debug, Default)]
pub struct AdvanceState {
    /// Steps the current budget still allows.
    remaining: u64,
    /// The time limit of the current budget.
    limit: Ticks,
    /// A batch submitted whose control block has not been read back yet: (the step count
    /// before it, the limit it ran under).
    in_flight: Option<(u32, Ticks)>,
    /// The number [`Gpu::note_work`] gave the latest batch: the engine's readbacks are
    /// taken after it ([`crate::read_ranges_since`]).
    work: u64,
}

impl AdvanceState {
    /// The state of an engine whose first readback (its initial plan's control block) is
    /// still on its way: [`settle`] reads it before anything else.
    pub fn awaiting_first_read() -> Self {
        Self {
            in_flight: Some((0, 0)),
            ..Self::default()
        }
    }

    /// The number of the engine's latest batch of work (see [`Gpu::note_work`]).
    pub fn work(&self) -> u64 {
        self.work
    }
}

/// Runs steps of `engine` within `budget` (end time `end`): the limit goes to the GPU, then
/// batches of doubling size run until the budget, the limit or the end is reached. With
/// deferred readbacks it returns once a batch is on its way; [`settle`] goes on.
pub fn advance(engine: &mut dyn SteppedGpu, budget: Budget, end: Ticks) -> Result<(), SimError> {
    let (limit, remaining) = budget.limits(end);
    let offset = std::mem::offset_of!(StepCtl, limit) as u64;
    let (blocks, stride) = engine.control_blocks();
    for b in 0..blocks {
        engine.device().queue.write_buffer(
            engine.ctl_buffer(),
            b * stride + offset,
            bytemuck::cast_slice(&split(limit)),
        );
    }
    let state = engine.advance_state();
    state.remaining = remaining;
    state.limit = limit;
    settle(engine).map(|_| ())
}

/// Goes on with the budget of the last [`advance`]: true once it is spent (or the run is
/// done or held at its limit), false while a batch's control block is still on its way (a
/// device with deferred readbacks; ask again next frame). A device that waits never
/// answers false.
pub fn settle(engine: &mut dyn SteppedGpu) -> Result<bool, SimError> {
    loop {
        if let Some((before, batch_limit)) = engine.advance_state().in_flight {
            match engine.read_head() {
                Err(SimError::NotYet) => return Ok(false),
                r => r?,
            }
            engine.advance_state().in_flight = None;
            if !after_batch(engine, before, batch_limit) {
                return Ok(true);
            }
        }
        if engine.head().phase > PHASE_DONE && !engine.resolve_stop()? {
            return Ok(true);
        }
        let state = *engine.advance_state();
        if engine.head().phase == PHASE_DONE || state.remaining == 0 {
            return Ok(true);
        }
        let before = engine.head().step;
        let n = state.remaining.min(*engine.batch_mut());
        engine.advance_state().work = engine.device().note_work();
        match engine.run_batch(n) {
            Err(SimError::NotYet) => {
                engine.advance_state().in_flight = Some((before, state.limit));
                return Ok(false);
            }
            r => r?,
        }
        if !after_batch(engine, before, state.limit) {
            return Ok(true);
        }
    }
}

/// Counts a finished batch (begun at step `before`, under `batch_limit`) against the budget
/// and grows the next; false when the loop should stop (held at the current limit, or an
/// error phase the engine does not resolve).
fn after_batch(engine: &mut dyn SteppedGpu, before: u32, batch_limit: Ticks) -> bool {
    let head = *engine.head();
    let state = engine.advance_state();
    state.remaining = state
        .remaining
        .saturating_sub(u64::from(head.step.saturating_sub(before)));
    // held at a limit a later advance has since raised: go on under the new one
    let raised = state.limit > batch_limit;
    match head.phase {
        PHASE_PLANNED => {
            let cap = engine.max_batch();
            let b = engine.batch_mut();
            *b = (*b * 2).min(cap);
            true
        }
        PHASE_HELD => raised,
        p => p > PHASE_DONE,
    }
}

/// Reads the control block (as `C`, whose head is a [`StepCtl`]) and appends the log
/// entries of the steps completed since `log` was last extended.
pub fn read_ctl_and_log<C: Pod>(
    gpu: &Gpu,
    ctl: &wgpu::Buffer,
    steplog: &wgpu::Buffer,
    log: &mut pdes_core::sim::StepLog,
) -> Result<C, SimError> {
    let mut blocks = read_ctls_and_logs::<C>(gpu, ctl, steplog, std::slice::from_mut(log))?;
    Ok(blocks.remove(0))
}

/// [`read_ctl_and_log`] for an engine of `logs.len()` replicas: control block r (as `C`)
/// and the log of replica r (entries r·LOG_LEN onwards), in one readback.
pub fn read_ctls_and_logs<C: Pod>(
    gpu: &Gpu,
    ctl: &wgpu::Buffer,
    steplog: &wgpu::Buffer,
    logs: &mut [pdes_core::sim::StepLog],
) -> Result<Vec<C>, SimError> {
    let bytes = read_buffers(gpu, &[ctl, steplog])?;
    Ok(apply_ctls_and_logs(&bytes, logs))
}

/// [`read_ctls_and_logs`] for an engine whose latest batch of work is `work`, with the
/// bytes of `extra` ranges (buffer, offset, size) read in the same copy (of the same step as the control blocks):
/// (control blocks, the extra buffers' bytes).
pub fn read_ctls_logs_and<C: Pod>(
    gpu: &Gpu,
    (ctl, steplog): (&wgpu::Buffer, &wgpu::Buffer),
    logs: &mut [pdes_core::sim::StepLog],
    extra: &[(&wgpu::Buffer, u64, u64)],
    work: u64,
) -> Result<(Vec<C>, Vec<Vec<u8>>), SimError> {
    let mut ranges = vec![(ctl, 0, ctl.size()), (steplog, 0, steplog.size())];
    ranges.extend_from_slice(extra);
    let mut bytes = crate::read_ranges_since(gpu, &ranges, work)?;
    let extras = bytes.split_off(2);
    Ok((apply_ctls_and_logs(&bytes, logs), extras))
}

/// The control blocks in `bytes[0]`, appending the log entries of `bytes[1]` each replica's
/// log has not yet.
fn apply_ctls_and_logs<C: Pod>(bytes: &[Vec<u8>], logs: &mut [pdes_core::sim::StepLog]) -> Vec<C> {
    let size = std::mem::size_of::<C>();
    let all: &[LogEntry] = bytemuck::cast_slice(&bytes[1]);
    let mut blocks = Vec::with_capacity(logs.len());
    for (r, log) in logs.iter_mut().enumerate() {
        let raw = &bytes[0][r * size..(r + 1) * size];
        let head: StepCtl = bytemuck::pod_read_unaligned(&raw[..std::mem::size_of::<StepCtl>()]);
        let entries = &all[r * LOG_LEN as usize..(r + 1) * LOG_LEN as usize];
        for s in log.steps()..u64::from(head.step) {
            let e = entries[(s % u64::from(LOG_LEN)) as usize];
            log.push(StepRecord {
                t_min: join(e.t_min),
                bound: join(e.bound),
                events: u64::from(e.events),
                errors: u64::from(e.errors),
            });
        }
        blocks.push(bytemuck::pod_read_unaligned(raw));
    }
    blocks
}

/// Checks that every buffer of `plan` fits one binding of the device; the error names
/// `what`, the buffer, its size and the limit. Returns the total bytes.
pub fn check_fits(gpu: &Gpu, what: &str, plan: &[(&'static str, u64)]) -> Result<u64, SimError> {
    let max = gpu.max_storage_buffer();
    for (name, bytes) in plan {
        if *bytes > max {
            return Err(SimError::Gpu(format!(
                "{what} needs a {name} buffer of {:.1} MiB, above this adapter's limit of {:.1} MiB per buffer ({})",
                *bytes as f64 / 1048576.0,
                max as f64 / 1048576.0,
                gpu.info.name
            )));
        }
    }
    Ok(plan.iter().map(|(_, b)| b).sum())
}

/// The compute pipelines of a stepped engine's step, built from its modules (the scan is
/// the shared `stepped_scan.wgsl` composed with the model's bindings).
pub struct StepPipelines {
    /// Departure list and segment minima over every facility.
    pub scan: wgpu::ComputePipeline,
    /// The scan module's first-level minimum of the initial state.
    pub initial_min: wgpu::ComputePipeline,
    /// A pass between the scan and the departures (the network counts the step's
    /// external arrivals there for its pool check); none for the torus.
    pub count: Option<wgpu::ComputePipeline>,
    /// Departures phase, when it is a pass of its own (the torus departs in its scan).
    pub depart: Option<wgpu::ComputePipeline>,
    /// Arrivals phase.
    pub arrive: wgpu::ComputePipeline,
    /// Close the step, plan the next.
    pub finish: wgpu::ComputePipeline,
    /// Whether `finish` runs after every step, or once after a batch's last step (the torus:
    /// its scan closes the step before it, so a step is two dispatches).
    pub finish_each_step: bool,
    /// Workgroups of the count, depart and arrive passes per segment (1 each for the torus;
    /// the network spreads a segment's departures over eight
    /// workgroups, a thread for every station of the segment).
    pub spread: [u32; 3],
    /// Plan when none is planned (start, after a held or stopped run).
    pub resume: wgpu::ComputePipeline,
}

impl StepPipelines {
    /// The pipelines of `scan`, `depart`, `arrive` and `plan` modules (entry points as in
    /// the WGSL: scan/initial_min, depart, arrive, finish_step/resume) under `layout`.
    pub fn new(
        device: &wgpu::Device,
        layout: &wgpu::PipelineLayout,
        [scan, depart, arrive, plan]: [&wgpu::ShaderModule; 4],
    ) -> Self {
        use super::kit::pipeline;
        Self {
            scan: pipeline(device, layout, scan, "scan"),
            initial_min: pipeline(device, layout, scan, "initial_min"),
            count: None,
            depart: Some(pipeline(device, layout, depart, "depart")),
            arrive: pipeline(device, layout, arrive, "arrive"),
            finish: pipeline(device, layout, plan, "finish_step"),
            resume: pipeline(device, layout, plan, "resume"),
            finish_each_step: true,
            spread: [1; 3],
        }
    }

    /// The pipelines of a step whose scan also runs the departures (`scan_depart` and
    /// `initial_min` in the first module) and first closes the step before it, then
    /// `arrive`; `plan`'s `finish_step` closes a batch's last step: two dependent dispatches
    /// per step.
    pub fn with_scan_depart(
        device: &wgpu::Device,
        layout: &wgpu::PipelineLayout,
        [scan_depart, arrive, plan]: [&wgpu::ShaderModule; 3],
        items: ScanItems,
    ) -> Self {
        let constants = items.constants();
        let pipeline = |module, entry| {
            super::kit::pipeline_with_constants(device, layout, module, entry, &constants)
        };
        Self {
            scan: pipeline(scan_depart, "scan_depart"),
            initial_min: pipeline(scan_depart, "initial_min"),
            count: None,
            depart: None,
            arrive: pipeline(arrive, "arrive"),
            finish: pipeline(plan, "finish_step"),
            resume: pipeline(plan, "resume"),
            finish_each_step: false,
            spread: [1; 3],
        }
    }

    /// Reduces the initial minima and plans with limit 0 (the engine then holds at t_min);
    /// submits. `n_wg` segments, `replicas` control blocks (one plan workgroup each).
    pub fn initialize(&self, gpu: &Gpu, bind_group: &wgpu::BindGroup, n_wg: u32, replicas: u32) {
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, bind_group, &[]);
            pass.set_pipeline(&self.initial_min);
            pass.dispatch_workgroups(n_wg, 1, 1);
            pass.set_pipeline(&self.resume);
            pass.dispatch_workgroups(replicas, 1, 1);
        }
        gpu.queue.submit([enc.finish()]);
    }

    /// Encodes `resume` and then `steps` steps (scan, count if any, depart unless the scan does it, arrive
    /// over `n_wg` workgroups; finish on one per replica, after every step or after the
    /// last) into `pass`, calling `after` after `resume` and after every dispatch (GPU
    /// timestamps when profiling).
    pub fn encode_steps(
        &self,
        pass: &mut wgpu::ComputePass,
        bind_group: &wgpu::BindGroup,
        (n_wg, replicas): (u32, u32),
        steps: u64,
        after: &mut dyn FnMut(&mut wgpu::ComputePass),
    ) {
        pass.set_bind_group(0, bind_group, &[]);
        pass.set_pipeline(&self.resume);
        pass.dispatch_workgroups(replicas, 1, 1);
        after(pass);
        for _ in 0..steps {
            for (p, groups) in [
                (Some(&self.scan), n_wg),
                (self.count.as_ref(), n_wg * self.spread[0]),
                (self.depart.as_ref(), n_wg * self.spread[1]),
                (Some(&self.arrive), n_wg * self.spread[2]),
                (self.finish_each_step.then_some(&self.finish), replicas),
            ] {
                if let Some(p) = p {
                    pass.set_pipeline(p);
                    pass.dispatch_workgroups(groups, 1, 1);
                    after(pass);
                }
            }
        }
        if !self.finish_each_step {
            pass.set_pipeline(&self.finish);
            pass.dispatch_workgroups(replicas, 1, 1);
            after(pass);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shaders;

    /// The host's segment geometry is the shaders': a mismatch would cut the torus into
    /// segments the scan does not cover.
    #[test]
    fn the_scan_geometry_matches_the_shaders() {
        let default = ScanItems::EIGHT.get();
        assert!(
            shaders::STEPPED.contains(&format!("override ITEMS: u32 = {default}u;")),
            "the default ITEMS in stepped.wgsl differs from ScanItems::EIGHT"
        );
        assert!(
            shaders::STEPPED.contains("const ITEMS_MAX: u32 = 16u;"),
            "ITEMS_MAX in stepped.wgsl differs from the longest choice"
        );
        assert!(
            shaders::U64.contains(&format!("const WG: u32 = {SCAN_THREADS}u;")),
            "WG in u64.wgsl differs from SCAN_THREADS"
        );
        assert_eq!(ScanItems::LONGEST_SEGMENT, ScanItems::SIXTEEN.segment());
    }

    #[test]
    fn only_eight_or_sixteen_items_are_taken_and_the_largest_runs_get_sixteen() {
        assert_eq!(ScanItems::new(16), Ok(ScanItems::SIXTEEN));
        assert!(ScanItems::new(12).unwrap_err().contains("valid: 8 or 16"));
        assert_eq!(ScanItems::for_facilities(2048 * 2048), ScanItems::SIXTEEN);
        assert_eq!(ScanItems::for_facilities(2048 * 2048 - 1), ScanItems::EIGHT);
        assert_eq!(ScanItems::for_facilities(1024 * 1024), ScanItems::EIGHT);
    }
}
