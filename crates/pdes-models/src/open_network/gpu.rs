//! The open network on the GPU: the window and interval steps of
//! `pdes_models::open_network::two_phase`, run as compute passes over state that never leaves
//! the device, with the token pool on the GPU.
//!
//! One step is four dispatches in one compute pass, as for the torus (whose segment scan
//! and plan helpers it shares, `shaders/stepped*.wgsl`):
//! 1. `scan` lists the facilities departing within the bound, per 2048-facility segment;
//! 2. `depart` completes their services and routes the tokens (next server, switch, or
//!    out: the slot goes back on the free stack); a routed token is pushed on its
//!    destination's announcement list with one atomic exchange;
//! 3. `arrive`: every receiver accepts its announced tokens in the sequential order
//!    (time, sender, arrival number);
//! 4. `finish_step` (one workgroup) reduces the minima and counts, then plans the next
//!    step: its bound, and the external arrivals within it, created in stream order by
//!    one thread (the arrival stream is a running sum; λ·d arrivals per step on average).
//!
//! **The token pool.** Tokens live in a pool of slots with a free stack. The plan counts the
//! next step's arrivals before creating any; if the pool lacks slots it stops in phase
//! FULL, the host grows the pool (copying it into buffers twice as large, or larger)
//! between batches and resumes: a step never starts without the slots it needs, and no
//! token is ever dropped. Which slot a token gets differs from the CPU twin (frees happen
//! in parallel), which is why its random numbers are keyed by its arrival number and ties
//! are broken by arrival number, never by slot: the sample path is the same.
//!
//! Memory per facility: departure and service start (2 × 8), facility words (16), the
//! announcement head, the two lists (3 × 4): 44 bytes; interval/original adds the last
//! arrival time (8); per token slot 52 bytes (record 48, free stack 4).

use super::config::OpenConfig;
use super::engine::OpenSummary;
use super::gpu_setup::{
    ACC_PER_SEGMENT, Buffers, Ctl, GpuToken, PHASE_FULL, Params, Pipelines, TOKEN_BYTES, WG,
    build_pipelines,
};
pub use super::gpu_setup::{initial_pool, memory_plan};
use super::state::{Facility, Measures, NONE, OpenState, Token};
use crate::queueing::queue_length;
use pdes_core::sim::{Budget, Engine, Report, SimError, StepTotals};
use pdes_core::time::Ticks;
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, join, join128, split};
use pdes_gpu::pool;
use pdes_gpu::read_ranges;
use pdes_gpu::shaders::Reductions;
use pdes_gpu::stepped::{self, AdvanceState, PHASE_DONE, PHASE_HELD, StepCtl, SteppedGpu};
use std::sync::Arc;

#[path = "gpu_live.rs"]
mod live;

/// The GPU sums of a run: per-segment accumulators added up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sums {
    /// Busy ticks from the warm-up on.
    busy: u128,
    /// Sojourns of the visits measured.
    sojourn: i128,
    /// Σ max(entry, warm-up) of every token that left.
    exited_entry: u128,
    /// Σ (exit − entry) of the exits measured.
    stay: u128,
    /// Every exit.
    exits: u128,
    /// Σ (exit − max(entry, warm-up)) of the exits measured.
    area: u128,
    /// Exits measured.
    exits_measured: u64,
    /// Visits measured.
    visits_measured: u64,
}

/// One facility as the inspector shows it, read back alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FacilitySnapshot {
    /// Departure time of the token in service, if busy.
    pub departure: Option<Ticks>,
    /// Step of the latest causality error (0: none).
    pub last_error_step: u32,
}

/// The open network's GPU engine (window and interval).
pub struct GpuOpen {
    gpu: Arc<Gpu>,
    config: OpenConfig,
    end: Ticks,
    n_wg: u32,
    buffers: Buffers,
    pipelines: Arc<Pipelines>,
    bind_group: wgpu::BindGroup,
    /// The display pass's view of the same buffers (its own layout: see gpu_setup.rs).
    display_group: wgpu::BindGroup,
    ctl: Ctl,
    /// With deferred readbacks: the segment sums' bytes of the step the control block was
    /// read at (they come back with it, so that a sample's sums and time are of one step).
    acc_at_head: Option<Vec<u8>>,
    /// The in-service pass's words, one per display workgroup (gpu_live.rs).
    in_service: pdes_gpu::live::WorkgroupSums,
    log: pdes_core::sim::StepLog,
    batch: u64,
    /// Where the batch loop stands between calls (a batch in flight on a page's device).
    advance: AdvanceState,
    /// Times the pool was grown.
    pub pool_growths: u32,
    /// Bytes of GPU memory the run uses (with the current pool).
    pub memory_bytes: u64,
}

impl GpuOpen {
    /// Uploads the empty network of `cfg` (window or interval) with a pool of
    /// [`initial_pool`] slots, and prepares the passes.
    pub fn new(gpu: Arc<Gpu>, cfg: &OpenConfig) -> Result<Self, SimError> {
        let r = Reductions::for_device(&gpu.device);
        let pool = initial_pool(cfg, &gpu);
        Self::with_options(gpu, cfg, r, pool)
    }

    /// As [`GpuOpen::new`], with the workgroup reductions and the initial pool size chosen
    /// by the caller (tests start with one slot so that the pool must grow).
    pub fn with_options(
        gpu: Arc<Gpu>,
        cfg: &OpenConfig,
        reductions: Reductions,
        pool: u32,
    ) -> Result<Self, SimError> {
        let Some(step_rule) = cfg.run.step_rule() else {
            return Err(SimError::Gpu(
                "sequential runs on the CPU only (it is the one-event-at-a-time reference); use --engine cpu".into(),
            ));
        };
        let rule = step_rule.gpu_code();
        let pool = pool.max(1);
        let memory_bytes = stepped::check_fits(&gpu, "the open network", &memory_plan(cfg, pool))?;

        let end = cfg.end_ticks();
        let state = OpenState::new(&cfg.model, cfg.laws(), cfg.run.seed);
        let params = Params::of(cfg, rule);
        let ctl = Ctl {
            next_arrival: split(state.next_arrival),
            pool_cap: pool,
            ..Ctl::default()
        };
        let oom = pdes_gpu::kit::OomScope::push(&gpu.device);
        let buffers = Buffers::upload(&gpu.device, &params, &ctl, pool, rule == 1);
        oom.check(format_args!("{memory_bytes} bytes"))?;
        let pipelines = gpu.cached(&format!("open network pipelines, {reductions:?}"), || {
            build_pipelines(&gpu, reductions)
        });
        let bind_group = kit::bind_group(
            &gpu.device,
            "open network",
            &pipelines.layout,
            &buffers.all(),
        );
        let display_group = display_group(&gpu, &buffers, &pipelines);
        let in_service = pdes_gpu::live::WorkgroupSums::new(
            &gpu,
            "open network in-service sums",
            cfg.model.facilities().div_ceil(WG as u32),
        );
        let mut engine = Self {
            gpu,
            config: cfg.clone(),
            end,
            n_wg: params.n_wg,
            buffers,
            pipelines,
            bind_group,
            display_group,
            ctl,
            acc_at_head: None,
            in_service,
            log: pdes_core::sim::StepLog::new(),
            batch: 16,
            advance: AdvanceState::default(),
            pool_growths: 0,
            memory_bytes,
        };
        // First level of the reduction, then plan with limit 0: the engine holds at t_min.
        engine
            .pipelines
            .step
            .initialize(&engine.gpu, &engine.bind_group, engine.n_wg, 1);
        match engine.read_ctl_and_log() {
            // a page's device: the plan's control block comes back on a later frame
            Err(SimError::NotYet) => engine.advance = AdvanceState::awaiting_first_read(),
            r => r?,
        }
        Ok(engine)
    }

    /// The configuration it runs.
    pub fn config(&self) -> &OpenConfig {
        &self.config
    }

    /// Causality errors so far (interval/original).
    pub fn causality_errors(&self) -> u64 {
        join(self.ctl.head.errors)
    }

    /// Token slots in the pool now.
    pub fn pool_capacity(&self) -> u32 {
        self.ctl.pool_cap
    }

    /// Grows the pool so that the step the plan could not start fits (at least doubling:
    /// growth is rare), copies the tokens and the free stack, and lets the plan retry.
    fn grow_pool(&mut self) -> Result<(), SimError> {
        let c = &self.ctl;
        let new = pool::grown_size(c.pool_cap, c.pool_used, c.pool_short, "the system")?;
        let plan = memory_plan(&self.config, new);
        let memory_bytes =
            stepped::check_fits(&self.gpu, "the open network", &plan).map_err(|e| {
                SimError::Gpu(format!(
                    "token pool: growing it to {new} slots for the tokens in the system failed: {e}"
                ))
            })?;
        let b = &self.buffers;
        let grown = pool::grow(
            &self.gpu,
            (&b.tok, &b.lists, b.free_stack.offset),
            TOKEN_BYTES,
            new,
            "dep_list, recv_list, free_stack",
        )?;
        self.buffers.tok = grown.tok;
        self.buffers.lists = grown.lists;
        self.buffers.free_stack = grown.free_stack;
        self.bind_group = kit::bind_group(
            &self.gpu.device,
            "open network",
            &self.pipelines.layout,
            &self.buffers.all(),
        );
        self.display_group = display_group(&self.gpu, &self.buffers, &self.pipelines);
        self.ctl.pool_cap = new;
        self.ctl.head.phase = PHASE_HELD;
        pool::plan_again(
            &self.gpu,
            &self.buffers.ctl,
            (
                std::mem::offset_of!(Ctl, pool_cap),
                std::mem::offset_of!(Ctl, head),
            ),
            new,
        );
        self.memory_bytes = memory_bytes;
        self.pool_growths += 1;
        Ok(())
    }

    /// Encodes `steps` steps (after a `resume`) and submits them; then reads back.
    fn run_batch(&mut self, steps: u64) -> Result<(), SimError> {
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            self.pipelines.step.encode_steps(
                &mut pass,
                &self.bind_group,
                (self.n_wg, 1),
                steps,
                &mut |_| {},
            );
        }
        self.gpu.queue.submit([enc.finish()]);
        if self.gpu.defers_readbacks() {
            // the services in progress after this batch, copied with its control block
            self.submit_in_service();
        }
        self.read_ctl_and_log()
    }

    /// Reads `ctl` and the step-log entries of the steps completed since the last read.
    fn read_ctl_and_log(&mut self) -> Result<(), SimError> {
        let b = &self.buffers;
        let wg_acc = b.wg_acc.range();
        let in_service = self.in_service.range();
        // a page's device: the sums and the services in progress come back with the
        // control block, of the same step (gpu_live.rs)
        let pair = [wg_acc, in_service];
        let extra: &[(&wgpu::Buffer, u64, u64)] = if self.gpu.defers_readbacks() {
            &pair
        } else {
            &[]
        };
        let (mut ctls, mut extras) = stepped::read_ctls_logs_and::<Ctl>(
            &self.gpu,
            (&b.ctl, &b.steplog),
            std::slice::from_mut(&mut self.log),
            extra,
            self.advance.work(),
        )?;
        if let Some(ctl) = ctls.pop() {
            self.ctl = ctl;
        }
        self.in_service.keep_head(extras.pop());
        self.acc_at_head = extras.pop();
        Ok(())
    }

    fn sums(&self) -> Result<Sums, SimError> {
        let bytes = match &self.acc_at_head {
            Some(b) => b.clone(),
            // a page's device: only with a control block, or a sample's sums and time could
            // be of different steps
            None if self.gpu.defers_readbacks() => return Err(SimError::NotYet),
            None => read_ranges(&self.gpu, &[self.buffers.wg_acc.range()])?.swap_remove(0),
        };
        let acc: &[[u32; 4]] = bytemuck::cast_slice(&bytes);
        let mut s = Sums::default();
        for seg in acc.chunks_exact(ACC_PER_SEGMENT) {
            s.busy += join128(seg[0]);
            s.sojourn += join128(seg[1]) as i128;
            s.exited_entry += join128(seg[2]);
            s.stay += join128(seg[3]);
            s.exits += join128(seg[4]);
            s.area += join128(seg[5]);
            s.exits_measured += join([seg[6][0], seg[6][1]]);
            s.visits_measured += join([seg[6][2], seg[6][3]]);
        }
        Ok(s)
    }

    /// External arrivals so far.
    fn arrivals(&self) -> u64 {
        join(self.ctl.arrivals)
    }

    /// Downloads the whole network state, token pool included, as the CPU twin holds it
    /// (per-facility statistics are kept per segment on the GPU and left zero here; the
    /// system-wide sums come from the GPU's accumulators).
    pub fn download_state(&self) -> Result<OpenState, SimError> {
        let b = &self.buffers;
        let k = u64::from(self.config.model.facilities());
        let bytes = pdes_gpu::read_ranges_since(
            &self.gpu,
            &[
                b.departures.range(),
                b.start.range(),
                b.last_arr.range(),
                b.fac.range(),
                (&b.tok, 0, b.tok.size()),
                b.free_stack.range(),
                // the free stack's height, heads[K]
                (&b.heads, 4 * k, 4),
            ],
            self.advance.work(),
        )?;
        let dep: &[[u32; 2]] = bytemuck::cast_slice(&bytes[0]);
        let start: &[[u32; 2]] = bytemuck::cast_slice(&bytes[1]);
        let last: &[[u32; 2]] = bytemuck::cast_slice(&bytes[2]);
        let fac: &[[u32; 4]] = bytemuck::cast_slice(&bytes[3]);
        let records: &[GpuToken] = bytemuck::cast_slice(&bytes[4]);
        let free_stack: &[u32] = bytemuck::cast_slice(&bytes[5]);
        let used = self.ctl.pool_used as usize;
        let tokens: Vec<Token> = records[..used]
            .iter()
            .map(|r| Token {
                arrival: join(r.arrival),
                entered: join(r.entered),
                arrived: join(r.arrived),
                visits: r.visits,
                next: r.next,
            })
            .collect();
        let facilities = (0..dep.len())
            .map(|f| {
                let queued = queue_length(fac[f][1], tokens.len(), |t| tokens[t as usize].next);
                Facility {
                    departure: join(dep[f]),
                    service_start: join(start[f]),
                    last_arrival: last
                        .get(f)
                        .filter(|_| last.len() == dep.len())
                        .map_or(0, |w| join(*w)),
                    busy: 0,
                    sojourn: 0,
                    completions: 0,
                    causality_errors: 0,
                    serving: fac[f][0],
                    route: 0,
                    head: fac[f][1],
                    tail: fac[f][2],
                    queued,
                }
            })
            .collect();
        let s = self.sums()?;
        let arrivals = self.arrivals();
        let exits = s.exits as u64;
        let top = bytemuck::pod_read_unaligned::<u32>(&bytes[6]) as usize;
        let mut state =
            OpenState::new(&self.config.model, self.config.laws(), self.config.run.seed)
                .with_warmup(self.config.run.warmup_ticks());
        state.facilities = facilities;
        state.tokens = tokens;
        state.free = free_stack[..top.min(free_stack.len())].to_vec();
        state.next_arrival = join(self.ctl.next_arrival);
        state.arrivals = arrivals;
        state.exits = exits;
        state.in_system = arrivals.wrapping_sub(exits);
        state.system_time = s.stay;
        state.exits_measured = s.exits_measured;
        state.area_exited = s.area;
        // Σ max(entry, warm-up) of the live tokens = that of all − that of the exited
        state.live_entered = join128(self.ctl.entered_sum).wrapping_sub(s.exited_entry);
        Ok(state)
    }

    /// The statistics of the downloaded state plus the GPU's exact sums; fails if a token
    /// was lost or duplicated (the CPU twin's conservation check on the GPU's state).
    pub fn measures(&self) -> Result<Measures, SimError> {
        let state = self.download_state()?;
        state.check_tokens().map_err(SimError::TokenConservation)?;
        let horizon = self.now().min(self.end).max(1);
        let mut m = state.measures(horizon);
        let s = self.sums()?;
        m.busy += s.busy;
        m.sojourn = s.sojourn;
        m.completions = s.visits_measured;
        m.causality_errors = join(self.ctl.head.errors);
        Ok(m)
    }

    /// The run's summary (stable JSON field names, as the CPU engine's).
    pub fn summary(&self) -> Result<OpenSummary, SimError> {
        Ok(OpenSummary::new(
            &self.config,
            "gpu",
            &self.totals(),
            &self.measures()?,
        ))
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

    /// The heatmap words read back (tests and PNG export).
    pub fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        let occupancy = self.download_state()?.occupancy();
        let bytes = pdes_gpu::read_ranges_since(
            &self.gpu,
            &[self.buffers.fac.range()],
            self.advance.work(),
        )?;
        let fac: &[[u32; 4]] = bytemuck::cast_slice(&bytes[0]);
        Ok(occupancy
            .into_iter()
            .zip(fac)
            .map(|(o, f)| [o, f[3]])
            .collect())
    }

    /// One facility's state, read back alone (for the inspector).
    pub fn facility_snapshot(&self, f: u32) -> Result<FacilitySnapshot, SimError> {
        let f = u64::from(f);
        let b = &self.buffers;
        // shown only (the inspector): on a page's device the newest bytes there are
        let bytes = pdes_gpu::read_ranges_latest(
            &self.gpu,
            &[b.departures.part(8 * f, 8), b.fac.part(16 * f, 16)],
        )?;
        let fac: [u32; 4] = bytemuck::pod_read_unaligned(&bytes[1]);
        Ok(FacilitySnapshot {
            departure: (fac[0] != NONE).then(|| join(bytemuck::pod_read_unaligned(&bytes[0]))),
            last_error_step: fac[3],
        })
    }
}

impl SteppedGpu for GpuOpen {
    fn device(&self) -> &Gpu {
        &self.gpu
    }
    fn ctl_buffer(&self) -> &wgpu::Buffer {
        &self.buffers.ctl
    }
    fn head(&self) -> &StepCtl {
        &self.ctl.head
    }
    fn run_batch(&mut self, steps: u64) -> Result<(), SimError> {
        GpuOpen::run_batch(self, steps)
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
    fn resolve_stop(&mut self) -> Result<bool, SimError> {
        if self.ctl.head.phase == PHASE_FULL {
            self.grow_pool()?;
            return Ok(true);
        }
        Ok(false)
    }
}

impl Engine for GpuOpen {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        let end = self.end;
        stepped::advance(self, budget, end)
    }
    fn settle(&mut self) -> Result<bool, SimError> {
        stepped::settle(self)
    }
    fn now(&self) -> Ticks {
        self.ctl.head.now(self.end)
    }
    fn finished(&self) -> bool {
        self.ctl.head.phase == PHASE_DONE
    }
    fn totals(&self) -> StepTotals {
        self.ctl.head.totals()
    }
    fn steps(&self) -> Option<&pdes_core::sim::StepLog> {
        Some(&self.log)
    }
    fn report(&mut self) -> Result<Report, SimError> {
        Ok(Report::of(&self.summary()?))
    }
}

/// The display pass's group 0 over `buffers`: the first of the step's bindings.
fn display_group(gpu: &Gpu, buffers: &Buffers, pipelines: &Pipelines) -> wgpu::BindGroup {
    kit::bind_group(
        &gpu.device,
        "open network display cells",
        &pipelines.display_cells_layout,
        &buffers.all()[..super::gpu_setup::DISPLAY_BINDINGS],
    )
}
