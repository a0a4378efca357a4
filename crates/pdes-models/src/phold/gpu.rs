//! The window algorithm for PHOLD on the GPU: one compute pass per step
//! (`shaders/phold.wgsl`: the step's t_min the minimum of the previous step's folds, taken
//! at the pass's start), many steps per submit, t_min never read back per step. The host
//! reads the control block and the batch's step log once per batch. Twin of the window in
//! [`super::cpu::CpuPhold`], checked against it by `pdes-lab verify` and the tests.

use super::config::{PholdAlgorithm, PholdConfig};
use super::cpu::PholdState;
use super::live::sample;
use super::summary::Summary;
use super::{Event, NEVER};
use bytemuck::{Pod, Zeroable};
use pdes_core::sim::{Budget, Engine, Report, SimError, StepRecord, StepTotals};
use pdes_core::time::Ticks;
use pdes_gpu::Gpu;
use pdes_gpu::accumulators::{self, StepAccumulators, StepPasses};
use pdes_gpu::batches::{self, BatchLoop, Batched};
use pdes_gpu::kit::{self, Use, read_buffers};
use pdes_gpu::shaders::{self, Products, Reductions};
use pdes_gpu::{LiveEngine, Sample};
use std::sync::Arc;

/// Threads per workgroup (WG in u64.wgsl).
const WG: u32 = 256;
/// Tokens per thread (ITEMS in phold.wgsl): eight, half the workgroups of four, took a step
/// 7% less time on an H100 (bench/NOTES.md, "PHOLD's workgroups of 2,048 tokens").
const ITEMS: u32 = 8;
/// Steps per batch at most (the step log's ring holds one batch; read back once).
const LOG_CAP: u32 = 1024;
/// Steps per submit within a batch.
const SUBMIT_STEPS: u32 = 64;
/// vec4s of a step's accumulators before the workgroups' exact least times (phold.wgsl's
/// EXACT: SLOTS sets of two, a head and a mark).
const ACC_HEAD_VEC4S: usize = 2 * 32 + 2;

/// The module's WGSL source with reductions `r` and 32×32 products by `products` (native
/// 64-bit multiplies where the device has them: the event's Philox block, its delay and its
/// LP — 9.8 against 10.5 µs of GPU a step on an H100, the same events; bench/NOTES.md,
/// "PHOLD with native products"). phold.wgsl replaceable by an experiment's
/// (`shaders::part`).
pub fn module_source(r: Reductions, products: Products) -> String {
    let step = shaders::part("phold.wgsl", include_str!("shaders/phold.wgsl"));
    shaders::compose_with(r, products, &[shaders::PHILOX, &step])
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct Params {
    tokens: u32,
    lps: u32,
    groups: u32,
    log_cap: u32,
    seed_lo: u32,
    seed_hi: u32,
    remote_all: u32,
    remote_q: u32,
    shift: [u32; 2],
    scale: u32,
    pad0: u32,
    end_t: [u32; 2],
    limit: [u32; 2],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct Ctl {
    t_min: [u32; 2],
    events: [u32; 2],
    steps: u32,
    max_events: u32,
    pad: [u32; 2],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct LogEntry {
    t_min: [u32; 2],
    bound: [u32; 2],
    events: [u32; 2],
    /// The step's messages to another LP.
    remote: [u32; 2],
}

fn split(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

fn join(w: [u32; 2]) -> u64 {
    u64::from(w[0]) | (u64::from(w[1]) << 32)
}

struct Pipelines {
    layout: wgpu::BindGroupLayout,
    process: wgpu::ComputePipeline,
    close: wgpu::ComputePipeline,
    /// The display passes' bindings of group 0 (params, tokens, counts, ctl): few enough
    /// that with the heatmap's buffer they stay within a page's 8 storage buffers a stage.
    display_state_layout: wgpu::BindGroupLayout,
    display_layout: wgpu::BindGroupLayout,
    display_cells: wgpu::ComputePipeline,
    display_tokens: wgpu::ComputePipeline,
}

fn build_pipelines(gpu: &Gpu, r: Reductions) -> Pipelines {
    let device = &gpu.device;
    // params, tokens, counts, ctl, log, ln table, three steps' accumulators
    let uses = [
        Use::Uniform,
        Use::ReadWrite,
        Use::ReadWrite,
        Use::ReadWrite,
        Use::ReadWrite,
        Use::Read,
        Use::Read,
        Use::ReadWrite,
        Use::ReadWrite,
    ];
    let layout = kit::layout(device, "phold", &uses);
    let pl = kit::pipeline_layout(device, "phold", &[&layout]);
    // SAFETY: every loop of the module ends by its own bound: Philox's ten rounds, the
    // event loop's index rising by WG to a workgroup's due count (at most WG · ITEMS), the
    // exact minimum's to P.groups, and the reduction modules' (a stride halved to 0, or a
    // count to a constant or a subgroup count). Without wgpu's loop counter the driver
    // unrolls Philox's rounds (bench/NOTES.md, "PHOLD in one pass a step").
    let source = module_source(r, Products::for_device(device));
    let module = unsafe { kit::compute_module_bounded_loops(device, "phold", source) };
    let display_state_layout = kit::layout(device, "phold display state", &uses[..4]);
    let display_layout = kit::layout(device, "phold display", &[Use::ReadWrite]);
    let pl_display = kit::pipeline_layout(
        device,
        "phold display",
        &[&display_state_layout, &display_layout],
    );
    Pipelines {
        process: kit::pipeline(device, &pl, &module, "process"),
        close: kit::pipeline(device, &pl, &module, "close"),
        display_cells: kit::pipeline(device, &pl_display, &module, "display_cells"),
        display_tokens: kit::pipeline(device, &pl_display, &module, "display_tokens"),
        layout,
        display_state_layout,
        display_layout,
    }
}

/// The window algorithm on the GPU.
pub struct GpuPhold {
    gpu: Arc<Gpu>,
    config: PholdConfig,
    params: Params,
    params_buf: wgpu::Buffer,
    tokens: wgpu::Buffer,
    counts: wgpu::Buffer,
    ctl_buf: wgpu::Buffer,
    log_buf: wgpu::Buffer,
    /// By a pass's position in the steps mod 3: its accumulators' roles.
    bind_groups: [wgpu::BindGroup; accumulators::SETS],
    /// The display passes' group 0.
    display_state: wgpu::BindGroup,
    pipelines: Arc<Pipelines>,
    groups: u32,
    /// The control block as last read.
    ctl: Ctl,
    /// The last step's messages to another LP.
    last_remote: u64,
    totals: StepTotals,
    log: pdes_core::sim::StepLog,
    /// The budget loop's state (a batch in flight on a page's device).
    batches: BatchLoop<Ticks>,
    /// The number [`Gpu::note_work`] gave the latest batch.
    work: u64,
    /// Bytes of GPU memory the run uses.
    pub memory_bytes: u64,
}

impl Params {
    /// The parameters of a run of `cfg` in `groups` workgroups.
    fn of(cfg: &PholdConfig, groups: u32) -> Self {
        let n = cfg.events_in_flight();
        let law = cfg.law();
        Self {
            tokens: n,
            lps: cfg.lps,
            groups,
            log_cap: LOG_CAP,
            seed_lo: cfg.seed as u32,
            seed_hi: (cfg.seed >> 32) as u32,
            remote_all: u32::from(law.remote_q >= 1 << 32),
            remote_q: law.remote_q.min(u64::from(u32::MAX)) as u32,
            shift: split(law.delay.shift),
            scale: law.delay.scale,
            pad0: 0,
            end_t: split(cfg.end_ticks()),
            limit: [0; 2],
        }
    }
}

/// The initial events of `cfg` as the GPU stores them (time, LP, hop), and the control
/// block that starts from their earliest time.
fn initial_events(cfg: &PholdConfig) -> (Vec<[u32; 2]>, Ctl) {
    let init = PholdState::new(cfg);
    // every event's time, then every event's (LP, hop) (phold.wgsl's `tok`)
    let times = init.events.iter().map(|e| split(e.time));
    let places = init.events.iter().map(|e| [e.lp, e.hop]);
    let records: Vec<[u32; 2]> = times.chain(places).collect();
    let t0 = init.events.iter().map(|e| e.time).min().unwrap_or(NEVER);
    let ctl = Ctl {
        t_min: split(t0),
        events: [0; 2],
        steps: 0,
        max_events: 0,
        pad: [0; 2],
    };
    (records, ctl)
}

impl GpuPhold {
    /// The initial events of `cfg` on `gpu`, with the best reductions the device offers.
    pub fn new(gpu: Arc<Gpu>, cfg: &PholdConfig) -> Result<Self, SimError> {
        let r = Reductions::for_device(&gpu.device);
        Self::with_reductions(gpu, cfg, r)
    }

    /// [`GpuPhold::new`] with the given workgroup reductions.
    pub fn with_reductions(
        gpu: Arc<Gpu>,
        cfg: &PholdConfig,
        reductions: Reductions,
    ) -> Result<Self, SimError> {
        if cfg.algorithm == PholdAlgorithm::Sequential {
            return Err(SimError::Gpu(
                "run.algorithm: \"sequential\" runs on the CPU only (it is the ground truth); use \"window\" on the GPU".into(),
            ));
        }
        let n = cfg.events_in_flight();
        let token_bytes = 16 * u64::from(n);
        if token_bytes > gpu.max_storage_buffer() {
            return Err(SimError::TooLarge(format!(
                "model.lps × model.population: {n} events need a {token_bytes}-byte buffer; this adapter allows {} bytes per buffer",
                gpu.max_storage_buffer()
            )));
        }
        let groups = n.div_ceil(WG * ITEMS);
        let params = Params::of(cfg, groups);
        let (records, ctl) = initial_events(cfg);
        let (rows, cols) = cfg.grid();
        let cells = u64::from(rows) * u64::from(cols);
        let device = &gpu.device;
        let oom = pdes_gpu::kit::OomScope::push(device);
        let storage = kit::STORAGE_RW;
        let init =
            |label: &str, contents: &[u8], usage| kit::buffer_init(device, label, contents, usage);
        let params_buf = init(
            "phold params",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        let tokens = init("phold tokens", bytemuck::cast_slice(&records), storage);
        let counts = init("phold counts", &vec![0u8; 8 * cells as usize], storage);
        // the step's folds (phold.wgsl): SLOTS sets of (least offset SAT, 0, 0, 0) and a zero
        // vec4, a head and a mark, then each workgroup's exact least time; the first step
        // reads the initial least time as an offset 0 from a bound t0 (valid, no step taken)
        let mut cleared = vec![[0u32; 4]; ACC_HEAD_VEC4S + groups as usize];
        for set in 0..32 {
            cleared[2 * set][0] = u32::MAX;
        }
        let mut initial = cleared.clone();
        initial[0][0] = 0;
        initial[ACC_HEAD_VEC4S - 2] = [ctl.t_min[0], ctl.t_min[1], ctl.t_min[0], ctl.t_min[1]];
        initial[ACC_HEAD_VEC4S - 1] = [0, 1, 0, 0];
        let accs = StepAccumulators::new(
            device,
            "phold step accumulators",
            bytemuck::cast_slice(&cleared),
            bytemuck::cast_slice(&initial),
        );
        let ctl_buf = init("phold ctl", bytemuck::bytes_of(&ctl), storage);
        let log_buf = init(
            "phold log",
            &vec![0u8; std::mem::size_of::<LogEntry>() * LOG_CAP as usize],
            storage,
        );
        let ln = init(
            "phold ln table",
            bytemuck::cast_slice(&pdes_core::rng::LN_TABLE[..]),
            wgpu::BufferUsages::STORAGE,
        );
        oom.check(format_args!("{token_bytes} bytes of events"))?;
        // the first batch times stepping only, not the upload (bench/NOTES.md, PHOLD)
        kit::flush_uploads(&gpu, "phold", &ctl_buf, std::mem::size_of::<Ctl>() as u64)?;
        let pipelines = gpu.cached(&format!("phold pipelines, {reductions:?}"), || {
            build_pipelines(&gpu, reductions)
        });
        let bind_groups = [0, 1, 2].map(|k| {
            let [prev, own, next] = accs.roles(k);
            kit::bind_group(
                device,
                "phold",
                &pipelines.layout,
                &[
                    &params_buf,
                    &tokens,
                    &counts,
                    &ctl_buf,
                    &log_buf,
                    &ln,
                    prev,
                    own,
                    next,
                ],
            )
        });
        let display_state = kit::bind_group(
            device,
            "phold display state",
            &pipelines.display_state_layout,
            &[&params_buf, &tokens, &counts, &ctl_buf],
        );
        Ok(Self {
            memory_bytes: token_bytes + 8 * cells + accs.bytes(),
            gpu,
            config: cfg.clone(),
            params,
            params_buf,
            tokens,
            counts,
            ctl_buf,
            log_buf,
            bind_groups,
            display_state,
            pipelines,
            groups,
            ctl,
            last_remote: 0,
            totals: StepTotals::default(),
            log: pdes_core::sim::StepLog::new(),
            batches: BatchLoop::default(),
            work: 0,
        })
    }

    /// Queues `steps` steps (one pass each) and the batch's close pass, submitted every
    /// [`SUBMIT_STEPS`], then reads the control block and the batch's log entries back ([`GpuPhold::read_batch`]; on a
    /// page's device that answers [`SimError::NotYet`] after the submit).
    fn batch(&mut self, steps: u32) -> Result<u32, SimError> {
        let t0 = web_time::Instant::now();
        let stamps = pdes_gpu::stamps::BatchStamps::new(&self.gpu, "phold batch");
        let p = &self.pipelines;
        self.work = self.gpu.note_work();
        // pass i of the batch is at position steps + i (its accumulators' roles); the
        // tokens' workgroups and the bookkeeper (phold.wgsl), on a 2-D grid past one
        // dimension's limit
        let encode = accumulators::submit_batch(
            &self.gpu,
            &self.bind_groups,
            (self.ctl.steps as usize) % accumulators::SETS,
            steps,
            SUBMIT_STEPS,
            stamps.as_ref(),
            &StepPasses {
                step: &p.process,
                grid: kit::dispatch_grid(&self.gpu, self.groups + 1),
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

    /// Reads the control block and the log entries of the steps since the last read.
    /// Returns the steps taken.
    fn read_batch(&mut self) -> Result<u32, SimError> {
        let ranges = [
            (&self.ctl_buf, 0, std::mem::size_of::<Ctl>() as u64),
            (&self.log_buf, 0, self.log_buf.size()),
        ];
        let bytes = pdes_gpu::read_ranges_since(&self.gpu, &ranges, self.work)?;
        let ctl: Ctl = bytemuck::pod_read_unaligned(&bytes[0]);
        let ring: &[LogEntry] = bytemuck::cast_slice(&bytes[1]);
        for s in self.ctl.steps..ctl.steps {
            let e = ring[(s % LOG_CAP) as usize];
            let events = join(e.events);
            self.last_remote = join(e.remote);
            self.totals.record(events, 0);
            self.log.push(StepRecord {
                t_min: join(e.t_min),
                bound: join(e.bound),
                events,
                errors: 0,
            });
        }
        let taken = ctl.steps - self.ctl.steps;
        self.ctl = ctl;
        Ok(taken)
    }

    /// The pending events and the per-LP counts as they stand on the GPU.
    pub fn download_state(&self) -> Result<PholdState, SimError> {
        let bytes = kit::read_buffers_since(&self.gpu, &[&self.tokens, &self.counts], self.work)?;
        Ok(self.state_of(&bytes))
    }

    /// The state for what is only shown (the time strip): on a page's device the newest
    /// read back, a frame or two old while the run goes on; elsewhere
    /// [`GpuPhold::download_state`].
    pub fn shown_state(&self) -> Result<PholdState, SimError> {
        let ranges = [
            (&self.tokens, 0, self.tokens.size()),
            (&self.counts, 0, self.counts.size()),
        ];
        Ok(self.state_of(&pdes_gpu::read_ranges_latest(&self.gpu, &ranges)?))
    }

    /// The state from the bytes of `tokens` and `counts`.
    fn state_of(&self, bytes: &[Vec<u8>]) -> PholdState {
        let records: &[[u32; 2]] = bytemuck::cast_slice(&bytes[0]);
        let counts: &[[u32; 2]] = bytemuck::cast_slice(&bytes[1]);
        let (times, places) = records.split_at(records.len() / 2);
        PholdState {
            events: times
                .iter()
                .zip(places)
                .map(|(t, p)| Event {
                    time: join(*t),
                    lp: p[0],
                    hop: p[1],
                })
                .collect(),
            counts: counts[..self.config.lps as usize]
                .iter()
                .map(|c| c[0])
                .collect(),
        }
    }

    /// Events processed at LP `lp` so far (8 bytes read back: the hover and the inspector).
    pub fn lp_events(&self, lp: u32) -> Result<u32, SimError> {
        // shown only (the hover, the inspector): the newest bytes on a page's device
        let bytes =
            pdes_gpu::read_ranges_latest(&self.gpu, &[(&self.counts, 8 * u64::from(lp), 8)])?;
        let w: [u32; 2] = bytemuck::pod_read_unaligned(&bytes[0]);
        Ok(w[0])
    }

    /// Writes the heatmap's words (pending events per LP, the next window's marked; events
    /// processed) into `display`: two passes, nothing read back.
    fn display_into(&self, display: &wgpu::Buffer) {
        let device = &self.gpu.device;
        let p = &self.pipelines;
        let group = kit::bind_group(device, "phold display", &p.display_layout, &[display]);
        let cells = (display.size() / 8) as u32;
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &self.display_state, &[]);
            pass.set_bind_group(1, &group, &[]);
            let (x, y) = kit::dispatch_grid(&self.gpu, cells.div_ceil(WG));
            pass.set_pipeline(&p.display_cells);
            pass.dispatch_workgroups(x, y, 1);
            let (x, y) = kit::dispatch_grid(&self.gpu, self.params.tokens.div_ceil(WG));
            pass.set_pipeline(&p.display_tokens);
            pass.dispatch_workgroups(x, y, 1);
        }
        self.gpu.queue.submit([enc.finish()]);
    }

    /// The last step's messages that went to another LP (the CPU twin's
    /// [`super::cpu::CpuPhold::last_step_remote`]).
    pub fn last_step_remote(&self) -> u64 {
        self.last_remote
    }

    /// Its configuration.
    pub fn config(&self) -> &PholdConfig {
        &self.config
    }
}

impl Batched for GpuPhold {
    type Limit = Ticks;
    fn batches(&mut self) -> &mut BatchLoop<Ticks> {
        &mut self.batches
    }
    fn due(&self, limit: Ticks, left: u64) -> u32 {
        let t_min = join(self.ctl.t_min);
        if left == 0 || t_min >= limit {
            return 0;
        }
        // each step moves t_min past t_min + lookahead (or to the end), so no more than
        // this many can be due: queueing more would only add idle dispatches
        let most = (limit - t_min).div_ceil(self.config.lookahead_ticks()) + 1;
        left.min(most).min(u64::from(LOG_CAP)) as u32
    }
    fn run(&mut self, steps: u32, limit: Ticks) -> Result<u32, SimError> {
        // the batch's passes are `steps`: no step past the budget is queued
        self.params.limit = split(limit);
        self.gpu
            .queue
            .write_buffer(&self.params_buf, 0, bytemuck::bytes_of(&self.params));
        self.batch(steps)
    }
    fn read(&mut self) -> Result<u32, SimError> {
        self.read_batch()
    }
}

impl Engine for GpuPhold {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        let (limit, steps) = budget.limits(self.config.end_ticks());
        self.batches.aim(limit, steps);
        batches::settle(self).map(|_| ())
    }
    fn settle(&mut self) -> Result<bool, SimError> {
        batches::settle(self)
    }
    fn now(&self) -> Ticks {
        join(self.ctl.t_min).min(self.config.end_ticks())
    }
    fn finished(&self) -> bool {
        join(self.ctl.t_min) >= self.config.end_ticks()
    }
    fn totals(&self) -> StepTotals {
        self.totals.clone()
    }
    fn steps(&self) -> Option<&pdes_core::sim::StepLog> {
        Some(&self.log)
    }
    fn report(&mut self) -> Result<Report, SimError> {
        let state = self.download_state()?;
        Ok(Report::of(&Summary::new(
            &self.config,
            "gpu",
            &state,
            &self.totals,
        )))
    }
}

impl LiveEngine for GpuPhold {
    fn gpu_memory_bytes(&self) -> Option<u64> {
        Some(self.memory_bytes)
    }
    fn write_display(&self, _gpu: &Gpu, buf: &wgpu::Buffer) {
        self.display_into(buf);
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        let buf = pdes_gpu::kit::buffer(
            &self.gpu.device,
            "phold display words",
            self.counts.size(),
            pdes_gpu::kit::STORAGE_RW,
        );
        self.display_into(&buf);
        let bytes = read_buffers(&self.gpu, &[&buf])?;
        Ok(bytemuck::cast_slice(&bytes[0]).to_vec())
    }
    fn sample(&self, now: Ticks) -> Result<Sample, SimError> {
        Ok(sample(now, &self.totals))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
