//! The flattened coordinator on the GPU (paper 004's method): one compute pass per step
//! (`shaders/devs.wgsl`: output, route and transition fused into one that reads the state
//! from one buffer and writes it to the other; the next time, the minimum of the step's
//! folded results, reduced by the next step's pass), many steps per submit, the next time
//! never read back per step. The host reads the control block and the batch's step log
//! once per batch. Twin of [`super::flattened::Flattened`], checked against it by
//! `pdes-lab verify` and `tests/models/gpu_devs.rs`.

use super::config::{DevsAlgorithm, DevsConfig};
use super::live::{Counters, now_of, sample, words};
use super::summary::Summary;
use super::{Cell, DevsStep, PASSIVE, Rule, budget_limits};
use bytemuck::{Pod, Zeroable};
use pdes_core::sim::{Budget, Engine, Report, SimError, StepRecord, StepTotals};
use pdes_core::time::Ticks;
use pdes_gpu::Gpu;
use pdes_gpu::accumulators::{self, StepAccumulators, StepPasses};
use pdes_gpu::batches::{self, BatchLoop, Batched};
use pdes_gpu::kit::{self, Use};
use pdes_gpu::shaders::{self, Reductions};
use pdes_gpu::{LiveEngine, Sample};
use std::sync::{Arc, Mutex};

/// Threads per workgroup (WG in u64.wgsl).
const WG: u32 = 256;
/// Steps per batch at most (the step log's ring holds one batch; read back once).
const LOG_CAP: u32 = 1024;
/// Steps per submit within a batch.
const SUBMIT_STEPS: u32 = 64;
/// Words of a step's accumulators: devs.wgsl's SLOTS sets of eight.
const SET_WORDS: u32 = 32 * 8;
/// Bind groups, by a pass's position in the steps mod 6: its parity (the cells' buffers)
/// and its accumulators (mod 3).
const PHASES: usize = 6;

/// The module's WGSL source with reductions `r` (devs.wgsl replaceable by an experiment's,
/// `shaders::part`).
pub fn module_source(r: Reductions) -> String {
    let step = shaders::part("devs.wgsl", include_str!("shaders/devs.wgsl"));
    shaders::compose(r, &[&step])
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct Params {
    cells: u32,
    rows: u32,
    cols: u32,
    kind: u32,
    moore: u32,
    wrap: u32,
    work: u32,
    log_cap: u32,
    t_limit: u32,
    pad0: u32,
    groups: u32,
    sat: u32,
    infection: u32,
    contact: u32,
    recovery: u32,
    weight: u32,
}

/// One step of the GPU's log (LogEntry in devs.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct LogEntry {
    t: u32,
    imminent: u32,
    messages: u32,
    internal: u32,
    external: u32,
    confluent: u32,
    pad: [u32; 2],
}

struct Pipelines {
    layout: wgpu::BindGroupLayout,
    display_layout: wgpu::BindGroupLayout,
    step: wgpu::ComputePipeline,
    close: wgpu::ComputePipeline,
    display: wgpu::ComputePipeline,
}

fn build_pipelines(gpu: &Gpu, r: Reductions) -> Pipelines {
    let device = &gpu.device;
    // params, the cells' two buffers, three steps' accumulators, ctl, log
    let uses = [
        Use::Uniform,
        Use::Read,
        Use::ReadWrite,
        Use::Read,
        Use::ReadWrite,
        Use::ReadWrite,
        Use::ReadWrite,
        Use::ReadWrite,
    ];
    let layout = kit::layout(device, "devs", &uses);
    let display_layout = kit::layout(device, "devs display", &[Use::ReadWrite]);
    let pl = kit::pipeline_layout(device, "devs", &[&layout]);
    let pl_display = kit::pipeline_layout(device, "devs display", &[&layout, &display_layout]);
    // SAFETY: every loop of the module ends by its own bound: burn's counts to P.work,
    // div_e12's down from 11 to 0, and the
    // reduction modules' halve a stride to 0 or count to a constant or a subgroup count.
    let module = unsafe { kit::compute_module_bounded_loops(device, "devs", module_source(r)) };
    Pipelines {
        step: kit::pipeline(device, &pl, &module, "step"),
        close: kit::pipeline(device, &pl, &module, "close"),
        display: kit::pipeline(device, &pl_display, &module, "display_main"),
        layout,
        display_layout,
    }
}

/// What the host last read of the GPU's cells (refreshed on demand after a change).
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// States.
    pub cells: Vec<Cell>,
    /// (last, next) per cell.
    pub times: Vec<[u32; 2]>,
}

impl Snapshot {
    /// The cells and times of a cells buffer's words, (value, aux, last, next) per cell.
    fn of(state: &[[u32; 4]]) -> Self {
        Self {
            cells: state
                .iter()
                .map(|w| Cell {
                    value: w[0],
                    aux: w[1],
                })
                .collect(),
            times: state.iter().map(|w| [w[2], w[3]]).collect(),
        }
    }
}

/// The flattened coordinator on the GPU.
pub struct GpuDevs {
    gpu: Arc<Gpu>,
    config: DevsConfig,
    params: Params,
    params_buf: wgpu::Buffer,
    /// Two buffers of (value, aux, last, next) per cell; the one of the steps' parity holds
    /// the state.
    cells: [wgpu::Buffer; 2],
    ctl: wgpu::Buffer,
    log_buf: wgpu::Buffer,
    /// By a pass's position k in the steps mod 6: cells[k mod 2] read, the other written,
    /// and the accumulators' phase k.
    bind_groups: [wgpu::BindGroup; PHASES],
    pipelines: Arc<Pipelines>,
    groups: u32,
    /// Time of the next step and steps taken, as last read.
    t: u32,
    steps: u32,
    log: Vec<DevsStep>,
    counters: Counters,
    snapshot: Mutex<Option<Arc<Snapshot>>>,
    /// The budget loop's state (a batch in flight on a page's device).
    batches: BatchLoop<u32>,
    /// The number [`Gpu::note_work`] gave the latest batch.
    work: u64,
    /// Bytes of GPU memory the run uses.
    pub memory_bytes: u64,
}

impl Params {
    /// The parameters of a run of `cfg` in `groups` workgroups.
    fn of(cfg: &DevsConfig, groups: u32) -> Self {
        let space = cfg.space;
        let (kind, work, k) = match cfg.rule {
            Rule::Benchmark { work } => (0, work, super::SirRates::default()),
            Rule::Sir(k) => (1, 0, k),
        };
        let cw = k.contact * k.weight;
        Self {
            cells: space.cells(),
            rows: space.rows,
            cols: space.cols,
            kind,
            moore: u32::from(space.neighbourhood == super::Neighbourhood::Moore),
            wrap: u32::from(space.wrap),
            work,
            log_cap: LOG_CAP,
            t_limit: 0,
            pad0: 0,
            groups,
            sat: if cw == 0 {
                u32::MAX
            } else {
                1_000_000_000u32.div_ceil(cw)
            },
            infection: k.infection,
            contact: k.contact,
            recovery: k.recovery,
            weight: k.weight,
        }
    }
}

impl GpuDevs {
    /// Every cell of `cfg` at time 0 on `gpu`, with the best reductions the device offers.
    pub fn new(gpu: Arc<Gpu>, cfg: &DevsConfig) -> Result<Self, SimError> {
        let r = Reductions::for_device(&gpu.device);
        Self::with_reductions(gpu, cfg, r)
    }

    /// [`GpuDevs::new`] with the given workgroup reductions.
    pub fn with_reductions(
        gpu: Arc<Gpu>,
        cfg: &DevsConfig,
        reductions: Reductions,
    ) -> Result<Self, SimError> {
        if cfg.algorithm == DevsAlgorithm::Sequential {
            return Err(SimError::Gpu(
                "run.algorithm: \"sequential\" runs on the CPU only (the classic PDEVS simulator is the ground truth); use \"flattened\" on the GPU".into(),
            ));
        }
        let space = cfg.space;
        let n = space.cells();
        // two buffers of 16 bytes per cell
        let cell_bytes = 16 * u64::from(n);
        if cell_bytes > gpu.max_storage_buffer() {
            return Err(SimError::TooLarge(format!(
                "model.rows × model.cols: {}×{} needs {cell_bytes}-byte buffers; this adapter allows {} bytes per buffer",
                space.rows,
                space.cols,
                gpu.max_storage_buffer()
            )));
        }
        let groups = n.div_ceil(WG);
        let params = Params::of(cfg, groups);
        let init = super::CellArrays::new(space, &cfg.rule);
        let t0 = init.next.iter().copied().min().unwrap_or(PASSIVE);
        // the first buffer holds the state at step 0; the second is written by the first step
        let state: Vec<[u32; 4]> = (0..n as usize)
            .map(|c| {
                [
                    init.cells[c].value,
                    init.cells[c].aux,
                    init.last[c],
                    init.next[c],
                ]
            })
            .collect();
        let device = &gpu.device;
        let oom = pdes_gpu::kit::OomScope::push(device);
        let storage = pdes_gpu::kit::STORAGE_RW;
        let init = |label: &str, contents: &[u8], usage| {
            pdes_gpu::kit::buffer_init(device, label, contents, usage)
        };
        let params_buf = init(
            "devs params",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        let cells = [
            init("devs cells 0", bytemuck::cast_slice(&state), storage),
            init("devs cells 1", bytemuck::cast_slice(&state), storage),
        ];
        // three steps' least next times and counts, folded in by every workgroup into one of
        // 32 sets of 8 words (devs.wgsl's SLOTS): none yet, but the accumulators the first
        // step reads as its previous one's hold the initial least next time (and no step)
        let cleared: Vec<u32> = (0..SET_WORDS)
            .map(|i| if i % 8 == 0 { PASSIVE } else { 0 })
            .collect();
        let mut initial = cleared.clone();
        initial[0] = t0;
        let accs = StepAccumulators::new(
            device,
            "devs step accumulators",
            bytemuck::cast_slice(&cleared),
            bytemuck::cast_slice(&initial),
        );
        let ctl = init("devs ctl", bytemuck::cast_slice(&[t0, 0, 0, 0]), storage);
        let log_buf = init(
            "devs log",
            &vec![0u8; std::mem::size_of::<LogEntry>() * LOG_CAP as usize],
            storage,
        );
        oom.check(format_args!("{} bytes", 2 * cell_bytes))?;
        // the first batch times stepping only, not the upload and a process's first submit
        // (bench/NOTES.md, "The cold run")
        kit::flush_uploads(&gpu, "devs", &ctl, 16)?;
        let pipelines = gpu.cached(&format!("devs pipelines, {reductions:?}"), || {
            build_pipelines(&gpu, reductions)
        });
        let bind_groups = [0, 1, 2, 3, 4, 5].map(|k| {
            let [prev, own, next] = accs.roles(k);
            kit::bind_group(
                device,
                "devs",
                &pipelines.layout,
                &[
                    &params_buf,
                    &cells[k % 2],
                    &cells[1 - k % 2],
                    prev,
                    own,
                    next,
                    &ctl,
                    &log_buf,
                ],
            )
        });
        Ok(Self {
            memory_bytes: 2 * cell_bytes + 32 * u64::from(LOG_CAP) + accs.bytes() + 16,
            gpu,
            config: cfg.clone(),
            params,
            params_buf,
            cells,
            ctl,
            log_buf,
            bind_groups,
            pipelines,
            groups,
            t: t0,
            steps: 0,
            log: Vec::new(),
            counters: Counters::default(),
            snapshot: Mutex::new(None),
            batches: BatchLoop::default(),
            work: 0,
        })
    }

    /// Queues `steps` steps (one pass each) and the batch's close pass, then reads the
    /// control block and the steps' log entries back ([`GpuDevs::read_batch`]; on a page's device
    /// that answers [`SimError::NotYet`] after the submit).
    fn batch(&mut self, steps: u32) -> Result<u32, SimError> {
        let t0 = web_time::Instant::now();
        // PDES_GPU_PROFILE: the batch's GPU time per step, from two timestamps
        let stamps = pdes_gpu::stamps::BatchStamps::new(&self.gpu, "devs batch");
        // Submitted in chunks: the GPU starts on the first chunk while the host still
        // encodes the next (encoding a dispatch costs a few µs, as much as the GPU's work
        // on a small grid; one submit per batch put the two in series).
        let p = &self.pipelines;
        self.work = self.gpu.note_work();
        if !self.cells_with_control() {
            // the cells change: the next look reads them again (with the control block, the
            // snapshot stays that of the step the time is of until the batch is read)
            *self.snapshot.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
        // pass i of the batch is at position steps + i: its cells' parity and its
        // accumulators; the cells' workgroups and the bookkeeper (devs.wgsl)
        let encode = accumulators::submit_batch(
            &self.gpu,
            &self.bind_groups,
            self.phase(),
            steps,
            SUBMIT_STEPS,
            stamps.as_ref(),
            &StepPasses {
                step: &p.step,
                grid: (self.groups + 1, 1),
                close: &p.close,
            },
        );
        let taken = self.read_batch()?;
        if let Some(s) = &stamps {
            let wall = t0.elapsed().as_secs_f64();
            s.read_and_report(&self.gpu, u64::from(steps), encode, wall)?;
        }
        Ok(taken)
    }

    /// Reads the control block and the log entries of the steps since the last read; on a
    /// page's device SIR's cells too, in the same copy (its plot samples count them, and a
    /// readback of their own would be a frame later than the time they are plotted at).
    /// Returns the steps taken.
    fn read_batch(&mut self) -> Result<u32, SimError> {
        let mut ranges = vec![(&self.ctl, 0, 16), (&self.log_buf, 0, self.log_buf.size())];
        let with_cells = self.cells_with_control();
        if with_cells {
            // both buffers: which one holds the state, the control block read with them says
            ranges.extend(self.cells.iter().map(|b| (b, 0, b.size())));
        }
        let bytes = pdes_gpu::read_ranges_since(&self.gpu, &ranges, self.work)?;
        let ctl: &[u32] = bytemuck::cast_slice(&bytes[0]);
        if with_cells {
            let state = bytemuck::cast_slice(&bytes[2 + (ctl[1] % 2) as usize]);
            *self.snapshot.lock().unwrap_or_else(|e| e.into_inner()) =
                Some(Arc::new(Snapshot::of(state)));
        }
        let ring: &[LogEntry] = bytemuck::cast_slice(&bytes[1]);
        let (t, taken) = (ctl[0], ctl[1] - self.steps);
        for s in self.steps..ctl[1] {
            let e = ring[(s % LOG_CAP) as usize];
            self.log.push(DevsStep {
                t: e.t,
                imminent: e.imminent,
                messages: e.messages,
                internal: e.internal,
                external: e.external,
                confluent: e.confluent,
            });
        }
        self.t = t;
        self.steps = ctl[1];
        Ok(taken)
    }

    /// The parity of the steps as last read: the buffer that holds the state.
    fn parity(&self) -> usize {
        (self.steps % 2) as usize
    }

    /// The steps' position mod 6 as last read: the bind group of the next step's pass (it
    /// reads the buffer of the steps' parity).
    fn phase(&self) -> usize {
        (self.steps % PHASES as u32) as usize
    }

    /// True where the cells come back with each control block: SIR (its samples count
    /// them) on a page's device.
    fn cells_with_control(&self) -> bool {
        self.gpu.defers_readbacks() && matches!(self.config.rule, Rule::Sir(_))
    }

    /// The cells, last and next times as they stand on the GPU (read back once per change).
    pub fn snapshot(&self) -> Result<Arc<Snapshot>, SimError> {
        let mut cache = self.snapshot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = cache.as_ref() {
            return Ok(s.clone());
        }
        // SIR on a page's device: only with a control block, or a sample's compartments and
        // time could be of different steps
        if self.cells_with_control() {
            return Err(SimError::NotYet);
        }
        // the buffer of the steps' parity (the steps as last read: the cells are read after
        // the batch's control block)
        let bytes = kit::read_buffers_since(&self.gpu, &[&self.cells[self.parity()]], self.work)?;
        let s = Arc::new(Snapshot::of(bytemuck::cast_slice(&bytes[0])));
        *cache = Some(s.clone());
        Ok(s)
    }

    /// Every step so far.
    pub fn log(&self) -> &[DevsStep] {
        &self.log
    }

    /// Its configuration.
    pub fn config(&self) -> &DevsConfig {
        &self.config
    }
}

impl Batched for GpuDevs {
    type Limit = u32;
    fn batches(&mut self) -> &mut BatchLoop<u32> {
        &mut self.batches
    }
    fn due(&self, t_limit: u32, left: u64) -> u32 {
        if left == 0 || self.t == PASSIVE || self.t > t_limit {
            return 0;
        }
        // every step moves time forward by at least one (ta ≥ 1), so no more than
        // t_limit − t + 1 steps can be due
        let most = u64::from(t_limit - self.t) + 1;
        left.min(most).min(u64::from(LOG_CAP)) as u32
    }
    fn run(&mut self, steps: u32, t_limit: u32) -> Result<u32, SimError> {
        // the batch's passes are `steps`: no step past the budget is queued
        self.params.t_limit = t_limit;
        self.gpu
            .queue
            .write_buffer(&self.params_buf, 0, bytemuck::bytes_of(&self.params));
        self.batch(steps)
    }
    fn read(&mut self) -> Result<u32, SimError> {
        self.read_batch()
    }
}

impl Engine for GpuDevs {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        let (t_limit, steps) = budget_limits(budget, self.config.end_time);
        self.batches.aim(t_limit, steps);
        self.settle().map(|_| ())
    }
    fn settle(&mut self) -> Result<bool, SimError> {
        let settled = batches::settle(self);
        self.counters.catch_up(&self.log);
        settled
    }
    fn now(&self) -> Ticks {
        now_of(self.t, self.config.end_time)
    }
    fn finished(&self) -> bool {
        self.t == PASSIVE || self.t > self.config.end_time
    }
    fn totals(&self) -> StepTotals {
        self.counters.totals()
    }
    fn step_log(&self) -> &[StepRecord] {
        self.counters.records()
    }
    fn report(&mut self) -> Result<Report, SimError> {
        let snap = self.snapshot()?;
        Ok(Report::of(&Summary::new(
            &self.config,
            "gpu",
            &snap.cells,
            &self.log,
        )))
    }
}

impl LiveEngine for GpuDevs {
    fn gpu_memory_bytes(&self) -> Option<u64> {
        Some(self.memory_bytes)
    }
    fn write_display(&self, _gpu: &Gpu, buf: &wgpu::Buffer) {
        // the bind group of the steps as last read: on a device that waits, the state; on a
        // page's, with a batch in flight, the state or the one a step before it (the other
        // buffer holds the step before the newest) — what is only shown
        kit::run_display_pass(
            &self.gpu,
            &self.bind_groups[self.phase()],
            (&self.pipelines.display_layout, &self.pipelines.display),
            buf,
            ((buf.size() / 8) as u32).div_ceil(WG),
        );
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        let snap = self.snapshot()?;
        let last: Vec<u32> = snap.times.iter().map(|t| t[0]).collect();
        Ok(words(&snap.cells, &last))
    }
    fn sample(&self, now: Ticks) -> Result<Sample, SimError> {
        // only SIR's compartments need the cells (one readback per change, not copied)
        match self.config.rule {
            Rule::Sir(_) => Ok(sample(
                &self.config,
                now,
                &self.snapshot()?.cells,
                &self.counters,
            )),
            Rule::Benchmark { .. } => Ok(sample(&self.config, now, &[], &self.counters)),
        }
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
