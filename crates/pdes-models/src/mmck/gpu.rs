//! The replications on the GPU, one per thread (paper 003 §4: 14 blocks × 512 threads on
//! a Tesla C2075). Each thread loads its replication's record of u32 words (layout in
//! `shaders/mmck.wgsl`, stored word-major) once per dispatch and runs its events on
//! registers, in a shader specialised to the run's c and k; a dispatch runs at most
//! a bounded number of events per thread (no dispatch runs long enough to trip a
//! driver's watchdog or lavapipe's loop limit: `LOOP_BUDGET`), several dispatches go in one submit, and a counter of the threads
//! the last dispatch stopped early says whether another submit is needed. Nothing is
//! read back per event; the records come back once for the summary.

use super::config::MmckConfig;
use super::cpu::Standing;
use super::draws::DrawsMadeBy;
use super::records::{Layout, read_record, template_words};
use pipelines::{Books, Pipelines, build_pipelines};
pub use pipelines::{checked_modules, module_source};

#[path = "gpu_pipelines.rs"]
mod pipelines;
use super::summary::{Pooled, Summary, book_words};
use super::times::Times;
use super::{Replication, RunShape};
use bytemuck::{Pod, Zeroable};
use pdes_core::sim::heap::NEVER;
use pdes_core::sim::{Budget, Engine, Report, SimError, StepTotals};
use pdes_core::time::Ticks;
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, join, split};
use std::sync::Arc;

/// Threads per workgroup (`advance`'s and `display_main`'s workgroup size).
const WG: u32 = 64;
/// Replications per workgroup of the books' passes (`mmck_books.wgsl`'s BOOKS_WG).
const BOOKS_WG: u32 = 256;
/// Loop iterations one thread may run in one dispatch on a software adapter. Mesa's
/// llvmpipe (lavapipe, the CI's Vulkan) stops any shader loop after 65,535 iterations,
/// counted over the whole invocation, nested loops included — a longer dispatch silently
/// went wrong there. Each event runs at most 2c + 1 iterations (the departure search, the
/// idle-server search).
const LOOP_BUDGET: u32 = 32_768;

/// Events of all replications together one dispatch may run on a hardware adapter in a
/// native process: 2²⁸, 3–7 ms of an H100 or an H200 (paper 003's 7,168 replications in 4
/// dispatches, not 27), so that no dispatch comes near a display driver's watchdog
/// (seconds). A browser's device keeps the loop budget: one chunk a frame.
const EVENTS_PER_HARDWARE_DISPATCH: u64 = 1 << 28;

/// And events of one replication in one such dispatch: 2¹⁶, 10–20 ms of one thread's
/// chain of events (~160–300 ns each), so that a run of a few replications with many
/// customers is no single dispatch of minutes.
const EVENTS_PER_HARDWARE_THREAD: u64 = 1 << 16;

/// Most events one replication runs in one dispatch of `reps` replications with `servers`
/// servers on `gpu`: the loop budget's share, or on a hardware adapter in a native process
/// the larger of that and the replication's share of [`EVENTS_PER_HARDWARE_DISPATCH`], at
/// most [`EVENTS_PER_HARDWARE_THREAD`]. `PDES_MMCK_DISPATCH_EVENTS=n` (a whole number from
/// 1 up) sets it, for measurements.
fn events_per_dispatch(gpu: &Gpu, servers: u32, reps: u32) -> u32 {
    let forced = std::env::var("PDES_MMCK_DISPATCH_EVENTS")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|&n| n >= 1);
    if let Some(n) = forced {
        return n;
    }
    let by_loops_only = gpu.info.device_type == wgpu::DeviceType::Cpu || gpu.defers_readbacks();
    dispatch_events(by_loops_only, servers, reps)
}

/// [`events_per_dispatch`] without the knob: the loop budget's share alone where
/// `by_loops_only` (a software adapter, a browser's device).
fn dispatch_events(by_loops_only: bool, servers: u32, reps: u32) -> u32 {
    let by_loops = (LOOP_BUDGET / (2 * servers + 1)).max(1);
    if by_loops_only {
        return by_loops;
    }
    let by_work = (EVENTS_PER_HARDWARE_DISPATCH / u64::from(reps.max(1)))
        .min(EVENTS_PER_HARDWARE_THREAD) as u32;
    by_loops.max(by_work)
}

/// Dispatches per submit.
const DISPATCHES_PER_SUBMIT: u32 = 8;

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct Params {
    reps: u32,
    stride: u32,
    servers: u32,
    capacity: u32,
    seed_lo: u32,
    seed_hi: u32,
    arr_scale: u32,
    scale: u32,
    shift: [u32; 2],
    customers: [u32; 2],
    warmup: [u32; 2],
    limit: [u32; 2],
    max_events: u32,
    state_off: u32,
    server_off: u32,
    queue_off: u32,
    /// The replication number of thread 0 (a part of a run split over devices).
    first: u32,
    pad: [u32; 3],
}

/// The GPU engine of M/M/c/k replications.
pub struct GpuMmck {
    gpu: Arc<Gpu>,
    config: MmckConfig,
    shape: RunShape,
    layout: Layout,
    params: Params,
    params_buf: wgpu::Buffer,
    reps: wgpu::Buffer,
    status: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// The summary's sums, one block a workgroup of [`BOOKS_WG`] replications, and the
    /// bind group that writes them (`reduce`).
    books: wgpu::Buffer,
    books_group: wgpu::BindGroup,
    book_passes: Arc<Books>,
    pipelines: Arc<Pipelines>,
    /// Who makes the draws (and so how many replications a workgroup of `advance` runs).
    draws: DrawsMadeBy,
    /// The records as last read back (refreshed by [`GpuMmck::replications`]).
    cache: std::sync::Mutex<Option<Vec<Replication>>>,
    /// Where they stand, as last read back (refreshed by [`GpuMmck::standing`]).
    standing: std::sync::Mutex<Option<Standing>>,
    /// Every event before this time is processed (the last `Until` budget's limit).
    horizon: Ticks,
    /// The budget still to spend: (time limit, events per replication left).
    pending: Option<(Ticks, u64)>,
    /// A chunk of dispatches whose status has not come back yet (a page's device): the
    /// limit it ran under.
    in_flight: Option<Ticks>,
    /// The number [`Gpu::note_work`] gave the latest chunk.
    work: u64,
    /// Bytes of GPU memory the run uses.
    pub memory_bytes: u64,
}

impl GpuMmck {
    /// Every replication of `cfg` at time 0, on `gpu`. Refuses more replications than
    /// the adapter's buffers or dispatch size allow, naming `run.replications` and the
    /// largest number that fits.
    pub fn new(gpu: Arc<Gpu>, cfg: &MmckConfig) -> Result<Self, SimError> {
        Self::part(gpu, cfg, 0..cfg.run.replications)
    }

    /// [`Self::new`] with the draws made by `draws` whatever the run's size and the times
    /// held as `times` (one of [`Times::every`] for the run and `draws`: `verify` checks
    /// every way against the CPU).
    pub fn with_way(
        gpu: Arc<Gpu>,
        cfg: &MmckConfig,
        draws: DrawsMadeBy,
        times: Times,
    ) -> Result<Self, SimError> {
        if !Times::every(&cfg.shape(), draws).contains(&times) {
            return Err(SimError::Gpu(format!(
                "this run's laws do not allow its times as {} with draws made by {}",
                times.name(),
                draws.name()
            )));
        }
        Self::part_with(gpu, cfg, 0..cfg.run.replications, Some((draws, times)))
    }

    /// Replications `range` of `cfg` at time 0, on `gpu`: one device's share of a run
    /// split over several ([`super::spread::SpreadMmck`]). Each replication is keyed by its
    /// own number, so it runs as it does in the whole run.
    pub fn part(
        gpu: Arc<Gpu>,
        cfg: &MmckConfig,
        range: std::ops::Range<u32>,
    ) -> Result<Self, SimError> {
        Self::part_with(gpu, cfg, range, None)
    }

    /// The most replications of `cfg` one engine (one buffer, one dispatch) holds on `gpu`
    /// when it holds `n`: a run of more is run in parts of at most this many
    /// ([`super::spread::SpreadMmck::chunked`]).
    pub fn most_in_one(gpu: &Gpu, cfg: &MmckConfig, n: u32) -> u64 {
        let record = 4 * u64::from(Layout::of(&cfg.shape()).stride);
        let by_buffer = gpu.max_storage_buffer() / record;
        let per_group = DrawsMadeBy::for_run(n, &gpu.limits).replications_per_group();
        let by_dispatch =
            u64::from(gpu.limits.max_compute_workgroups_per_dimension) * u64::from(per_group);
        by_buffer.min(by_dispatch)
    }

    /// [`Self::part`] with the draws made and the times held as `way` (None: as
    /// [`DrawsMadeBy::for_run`] picks for the part's size, and [`Times::for_run`]).
    fn part_with(
        gpu: Arc<Gpu>,
        cfg: &MmckConfig,
        range: std::ops::Range<u32>,
        way: Option<(DrawsMadeBy, Times)>,
    ) -> Result<Self, SimError> {
        let shape = cfg.shape();
        let layout = Layout::of(&shape);
        let n = range.len() as u32;
        let record = 4 * u64::from(layout.stride);
        let by_buffer = gpu.max_storage_buffer() / record;
        let (draws, times) = way.unwrap_or_else(|| {
            let draws = DrawsMadeBy::for_run(n, &gpu.limits);
            (draws, Times::for_run(&shape, draws))
        });
        let per_group = draws.replications_per_group();
        let by_dispatch =
            u64::from(gpu.limits.max_compute_workgroups_per_dimension) * u64::from(per_group);
        let most = by_buffer.min(by_dispatch);
        if u64::from(n) > most {
            return Err(SimError::Gpu(
                super::config::REPLICATIONS
                    .refuse_as(
                        n,
                        format!(
                            "a whole number from 1 to {} on this adapter ({} allows {by_buffer} records of {record} bytes in one buffer and {by_dispatch} replications in one dispatch)",
                            crate::keys::grouped(most),
                            gpu.info.name
                        ),
                    )
                    .to_string(),
            ));
        }
        let device = &gpu.device;
        let params = Params {
            reps: n,
            stride: layout.stride,
            servers: shape.servers,
            capacity: shape.capacity,
            seed_lo: shape.seed as u32,
            seed_hi: (shape.seed >> 32) as u32,
            arr_scale: shape.laws.arrival,
            scale: shape.laws.service,
            shift: [0, 0],
            customers: split(shape.customers),
            warmup: split(shape.warmup),
            limit: split(NEVER),
            max_events: events_per_dispatch(&gpu, shape.servers, n),
            state_off: layout.state,
            server_off: layout.server,
            queue_off: layout.queue,
            first: range.start,
            pad: [0; 3],
        };
        let oom = pdes_gpu::kit::OomScope::push(device);
        let storage = pdes_gpu::kit::STORAGE_RW;
        let init = |label: &str, contents: &[u8], usage| {
            pdes_gpu::kit::buffer_init(device, label, contents, usage)
        };
        let params_buf = init(
            "mmck params",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        // the records are written on the device (`init`), not built here and uploaded:
        // 2.5 GB at 10⁷ replications were 3 s of the run's set-up
        let record_bytes = (u64::from(n) * record).max(4);
        let reps = kit::buffer(device, "mmck replications", record_bytes, storage);
        let template = init(
            "mmck record at time 0",
            bytemuck::cast_slice(&template_words(&shape, &layout, range.start)),
            storage,
        );
        let book_bytes =
            (u64::from(n.div_ceil(BOOKS_WG)) * book_words(shape.capacity) as u64 * 4).max(4);
        let books = kit::buffer(device, "mmck books", book_bytes, storage);
        let ln = init(
            "ln table",
            bytemuck::cast_slice(&pdes_core::rng::LN_TABLE[..]),
            wgpu::BufferUsages::STORAGE,
        );
        let status = init("mmck status", &[0u8; 16], storage);
        oom.check(format_args!("{record_bytes} bytes"))?;
        let key = format!(
            "mmck pipelines c={} k={} draws {} times {}",
            shape.servers,
            shape.capacity,
            draws.name(),
            times.name()
        );
        let pipelines = gpu.cached(&key, || build_pipelines(&gpu, &shape, draws, times));
        let book_passes = pipelines::books(&gpu);
        let group = |label, layout, aux: &wgpu::Buffer| {
            kit::bind_group(device, label, layout, &[&params_buf, &reps, &ln, aux])
        };
        let bind_group = group("mmck", &pipelines.layout, &status);
        let books_group = group("mmck books", &book_passes.layout, &books);
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &group("mmck init", &book_passes.layout, &template), &[]);
            pass.set_pipeline(&book_passes.init);
            pass.dispatch_workgroups(n.div_ceil(BOOKS_WG), 1, 1);
        }
        gpu.queue.submit([enc.finish()]);
        Ok(Self {
            memory_bytes: record_bytes + book_bytes + 80 + 16 + 4 * 1025,
            draws,
            gpu,
            config: cfg.clone(),
            shape,
            layout,
            params,
            params_buf,
            reps,
            status,
            bind_group,
            books,
            books_group,
            book_passes,
            pipelines,
            cache: std::sync::Mutex::new(None),
            standing: std::sync::Mutex::new(None),
            horizon: 0,
            pending: None,
            in_flight: None,
            work: 0,
        })
    }

    /// Every replication as it stands on the GPU (read back once per change; on a page's
    /// device, as of the chunk last read back).
    pub fn replications(&self) -> Result<Vec<Replication>, SimError> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = cache.as_ref() {
            return Ok(r.clone());
        }
        // a page's device: only with a chunk's status (see [`Self::read_status`]), or a
        // sample's records and horizon could be of different chunks
        if self.gpu.defers_readbacks() {
            return Err(SimError::NotYet);
        }
        let bytes = kit::read_buffers_since(&self.gpu, &[&self.reps], self.work)?;
        let reps = self.records_of(&bytes[0]);
        *cache = Some(reps.clone());
        Ok(reps)
    }

    /// The replications of the word-major records `bytes`.
    fn records_of(&self, bytes: &[u8]) -> Vec<Replication> {
        let words: &[u32] = bytemuck::cast_slice(bytes);
        let n = self.params.reps;
        (0..n)
            .map(|r| {
                let w = |i: u32| words[(i * n + r) as usize];
                read_record(w, &self.layout, &self.shape, self.params.first + r)
            })
            .collect()
    }

    /// Where the replications stand, from their clocks, departures and events alone (a
    /// 24-byte read per replication, once per change): what a run loop asks after every
    /// call. Reading back and unpacking every whole record for it made 10⁶ replications
    /// spend most of their run on the host.
    pub fn standing(&self) -> Result<Standing, SimError> {
        let mut cached = self.standing.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = *cached {
            return Ok(s);
        }
        if self.gpu.defers_readbacks() {
            return Err(SimError::NotYet);
        }
        let bytes = pdes_gpu::read_ranges_since(&self.gpu, &self.standing_ranges(), self.work)?;
        let standing = self.standing_of(&bytes[0], &bytes[1]);
        *cached = Some(standing);
        Ok(standing)
    }

    /// The planes of words 0–1 (the clock) and 12–15 (departures, events) of the records.
    fn standing_ranges(&self) -> [(&wgpu::Buffer, u64, u64); 2] {
        let n = u64::from(self.params.reps);
        [(&self.reps, 0, 8 * n), (&self.reps, 48 * n, 16 * n)]
    }

    /// Where the replications stand, from [`Self::standing_ranges`]' bytes.
    fn standing_of(&self, clock: &[u8], counts: &[u8]) -> Standing {
        let clock: &[u32] = bytemuck::cast_slice(clock);
        let counts: &[u32] = bytemuck::cast_slice(counts);
        let n = self.params.reps as usize;
        (0..n).fold(Standing::default(), |s, r| {
            let t = join([clock[r], clock[n + r]]);
            let departures = join([counts[r], counts[n + r]]);
            let events = join([counts[2 * n + r], counts[3 * n + r]]);
            s.with(t, departures >= self.shape.customers, events)
        })
    }

    /// Its configuration.
    pub fn config(&self) -> &MmckConfig {
        &self.config
    }

    /// The analysis of the replications as they stand.
    pub fn summary(&self) -> Result<Summary, SimError> {
        Ok(Summary::of_pooled(
            &self.config,
            "gpu",
            self.params.reps,
            &self.pooled()?,
        ))
    }

    /// What the summary adds up over these replications, added up where the records lie
    /// (`mmck_books.wgsl`'s `reduce`: a block of sums per 256 replications comes back, 12 MB
    /// at 10⁷ replications of paper 003's queue where their records' rows were 1.8 GB). On a
    /// page's device, which reads back later, from the records of the chunk last read back.
    pub fn pooled(&self) -> Result<Pooled, SimError> {
        if self.gpu.defers_readbacks() {
            let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            return match cache.as_ref() {
                Some(reps) => Ok(Pooled::of(&self.shape, reps)),
                None => Err(SimError::NotYet),
            };
        }
        let groups = self.params.reps.div_ceil(BOOKS_WG);
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &self.books_group, &[]);
            pass.set_pipeline(&self.book_passes.reduce);
            pass.dispatch_workgroups(groups, 1, 1);
        }
        self.gpu.queue.submit([enc.finish()]);
        let len = u64::from(groups) * book_words(self.shape.capacity) as u64 * 4;
        let capacity = self.shape.capacity;
        pdes_gpu::read_ranges_with(&self.gpu, &[(&self.books, 0, len)], |bytes| {
            Pooled::of_books(capacity, bytemuck::cast_slice(bytes[0]))
        })
    }

    /// Writes the heatmap's words (customers in system per replication) into `display`.
    pub fn write_display(&self, display: &wgpu::Buffer) {
        kit::run_display_pass(
            &self.gpu,
            &self.bind_group,
            (&self.pipelines.display_layout, &self.pipelines.display),
            display,
            ((display.size() / 8) as u32).div_ceil(WG),
        );
    }

    /// Submits one chunk of dispatches of the budget still to spend: returns the events
    /// per replication it may run. A device that waits clears what was read back (the
    /// records change); on a page's device that stays the state as of the chunk last read
    /// back (the window shows it until the next comes back).
    fn submit_chunk(&mut self, limit: Ticks, left: u64) -> u64 {
        if !self.gpu.defers_readbacks() {
            *self.cache.lock().unwrap_or_else(|e| e.into_inner()) = None;
            *self.standing.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
        self.params.limit = split(limit);
        let groups = self
            .params
            .reps
            .div_ceil(self.draws.replications_per_group());
        let per = u64::from(events_per_dispatch(
            &self.gpu,
            self.shape.servers,
            self.params.reps,
        ))
        .min(left) as u32;
        let dispatches =
            (left / u64::from(per.max(1))).clamp(1, u64::from(DISPATCHES_PER_SUBMIT)) as u32;
        self.params.max_events = per;
        self.gpu
            .queue
            .write_buffer(&self.params_buf, 0, bytemuck::bytes_of(&self.params));
        let advance = self.pipelines.advance(limit);
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &self.bind_group, &[]);
            for _ in 0..dispatches {
                pass.set_pipeline(&self.pipelines.clear);
                pass.dispatch_workgroups(1, 1, 1);
                pass.set_pipeline(advance);
                pass.dispatch_workgroups(groups, 1, 1);
            }
        }
        self.work = self.gpu.note_work();
        self.gpu.queue.submit([enc.finish()]);
        u64::from(per) * u64::from(dispatches)
    }

    /// How many threads the last chunk stopped at its event cap (0: every replication
    /// reached the limit or its end). Where the replications stand comes back in the same
    /// copy and becomes what [`Self::standing`] answers; on a page's device the records too,
    /// for [`Self::replications`].
    fn read_status(&mut self) -> Result<u32, SimError> {
        let status = (&self.status, 0, self.status.size());
        if !self.gpu.defers_readbacks() {
            // where the replications stand comes back in the same copy: the caller asks for
            // it next (`now`, `finished`), and a round trip less is ~0.2 ms of a run of 20
            let [clock, counts] = self.standing_ranges();
            let bytes = pdes_gpu::read_ranges(&self.gpu, &[status, clock, counts])?;
            let standing = self.standing_of(&bytes[1], &bytes[2]);
            *self.standing.lock().unwrap_or_else(|e| e.into_inner()) = Some(standing);
            return Ok(u32::from_le_bytes([
                bytes[0][0],
                bytes[0][1],
                bytes[0][2],
                bytes[0][3],
            ]));
        }
        let [clock, counts] = self.standing_ranges();
        let ranges = [status, clock, counts, (&self.reps, 0, self.reps.size())];
        let bytes = pdes_gpu::read_ranges_since(&self.gpu, &ranges, self.work)?;
        let standing = self.standing_of(&bytes[1], &bytes[2]);
        *self.standing.lock().unwrap_or_else(|e| e.into_inner()) = Some(standing);
        *self.cache.lock().unwrap_or_else(|e| e.into_inner()) = Some(self.records_of(&bytes[3]));
        Ok(u32::from_le_bytes([
            bytes[0][0],
            bytes[0][1],
            bytes[0][2],
            bytes[0][3],
        ]))
    }
}

impl Engine for GpuMmck {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        let (limit, events) = super::cpu::replication_limits(budget, &self.config);
        if events == u64::MAX {
            self.horizon = self.horizon.max(limit);
        }
        self.pending = Some((limit, events));
        self.settle().map(|_| ())
    }
    /// Submits chunks until no thread was stopped by the per-dispatch event cap (or, for a
    /// step budget, one dispatch of its events); on a page's device one chunk a frame.
    fn settle(&mut self) -> Result<bool, SimError> {
        loop {
            if let Some(chunk_limit) = self.in_flight {
                let stopped = match self.read_status() {
                    Err(SimError::NotYet) => return Ok(false),
                    r => r?,
                };
                self.in_flight = None;
                let Some((limit, left)) = self.pending else {
                    return Ok(true);
                };
                // done: the events are spent, or none was stopped short under a limit that
                // a later advance has not raised
                if left == 0 || (stopped == 0 && limit <= chunk_limit) {
                    self.pending = None;
                    return Ok(true);
                }
            }
            let Some((limit, left)) = self.pending else {
                return Ok(true);
            };
            let chunk = self.submit_chunk(limit, left);
            self.pending = Some((limit, left.saturating_sub(chunk)));
            self.in_flight = Some(limit);
        }
    }
    fn now(&self) -> Ticks {
        self.standing().map(|s| s.now(self.horizon)).unwrap_or(0)
    }
    fn finished(&self) -> bool {
        self.standing().map(|s| s.finished()).unwrap_or(false)
    }
    fn totals(&self) -> StepTotals {
        self.standing().map(|s| s.totals()).unwrap_or_default()
    }
    fn samples(&self) -> Option<Vec<f64>> {
        self.replications().ok().map(|r| super::live::l_hats(&r))
    }
    fn report(&mut self) -> Result<Report, SimError> {
        Ok(Report::of(&self.summary()?))
    }
}

#[cfg(test)]
mod tests {
    use super::dispatch_events;

    #[test]
    fn a_hardware_dispatch_holds_its_share_of_the_events_within_a_thread_s_bound() {
        // paper 003's 7,168 replications: 2^28 / 7,168 events each
        assert_eq!(dispatch_events(false, 3, 7_168), 37_449);
        // a few replications: one thread's bound, not 2^28 events on one chain
        assert_eq!(dispatch_events(false, 3, 1), 1 << 16);
        // a full device: the loop budget's share is the larger
        assert_eq!(dispatch_events(false, 3, 1_000_000), 32_768 / 7);
        // lavapipe and a browser: the loop budget's share whatever the size
        assert_eq!(dispatch_events(true, 3, 7_168), 32_768 / 7);
        assert_eq!(dispatch_events(true, 64, 1), 32_768 / 129);
    }
}
