//! The network on the GPU: the window and interval steps of
//! [`crate::network::engines::Stepped`], run as compute passes over state that never leaves
//! the device, with the token pool on the GPU (issue 55 §2).
//!
//! One step is four or five dispatches in one compute pass, the torus's and the open
//! network's plan (`pdes_gpu::stepped`), with a station as the scan's facility:
//! 1. `scan` (shared) lists the stations with an event within the bound — each station's
//!    `dep` is its next event, the earliest of its servers' departures and its source's next
//!    arrival — per 2048-station segment;
//! 2. `count` (open networks only) adds up the external arrivals the listed stations'
//!    sources bring this step, so that the plan's pool check can stop before anything
//!    changes (phase FULL: the host grows the pool between batches and the step is planned
//!    again, as for the open network);
//! 3. `depart`: a thread per listed station applies its departures in (time, server)
//!    order, routes each token by its alias table and pushes it on its destination's
//!    announcement list;
//! 4. `arrive`: a thread per station of the segment; one with announcements or with its
//!    source due accepts them in the sequential order, merging its source's stream;
//! 5. `finish_step` (one workgroup) reduces the minima and counts and plans the next step.
//!
//! The GPU starts from the CPU twin's state at time 0 (`NetState::new`: the population
//! placed), so both hold the same tokens in the same slots then; afterwards slots differ
//! (frees and takes happen in parallel) and nothing depends on them — a token's random
//! words are keyed by its id, ties by (time, sender) — so the sample path is the same and
//! [`GpuNetwork::download_state`] gives a state whose statistics are the twin's, bit for
//! bit (`verify.rs` compares every station, server and queue by token identity).

mod profile;
mod setup;

use super::config::NetworkConfig;
use super::engine::NetworkSummary;
use super::state::{NetState, Server, Token};
use pdes_core::sim::{Budget, Engine, Report, SimError, StepTotals};
use pdes_core::time::Ticks;
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, join, join128};
use pdes_gpu::pool;
use pdes_gpu::shaders::Reductions;
use pdes_gpu::stepped::{self, AdvanceState, PHASE_DONE, PHASE_HELD, StepCtl, SteppedGpu};
use rayon::prelude::*;
use setup::{
    Buffers, COLD_WORDS, Ctl, GpuToken, PHASE_FULL, Params, Pipelines, SERVER_WORDS, STATION_WORDS,
    TOKEN_BYTES, build_pipelines,
};
pub use setup::{initial_pool, memory_plan, modules};
use std::borrow::Cow;
use std::sync::Arc;

/// `bytes` as records of `T`: in place where they are aligned for `T`, else copied (a page's
/// readback, or an empty range, need not be).
fn pods<T: bytemuck::Pod>(bytes: &[u8]) -> Cow<'_, [T]> {
    match bytemuck::try_cast_slice(bytes) {
        Ok(records) => Cow::Borrowed(records),
        Err(_) => Cow::Owned(bytemuck::pod_collect_to_vec(bytes)),
    }
}

/// The network's GPU engine (window and interval).
pub struct GpuNetwork {
    gpu: Arc<Gpu>,
    config: NetworkConfig,
    end: Ticks,
    n_wg: u32,
    buffers: Buffers,
    pipelines: Arc<Pipelines>,
    bind_group: wgpu::BindGroup,
    ctl: Ctl,
    log: pdes_core::sim::StepLog,
    batch: u64,
    advance: AdvanceState,
    /// Times the pool was grown.
    pub pool_growths: u32,
    /// Bytes of GPU memory the run uses (with the current pool).
    pub memory_bytes: u64,
    /// Per-pass timestamps (`PDES_GPU_PROFILE`).
    stamps: Option<profile::PassStamps>,
    /// On a page's device: the state's bytes read with the latest control block (a
    /// sample's counts and its state of one step; see [`Self::read_ctl_and_log`]).
    state_at_head: Option<Vec<Vec<u8>>>,
}

impl GpuNetwork {
    /// Uploads the network of `cfg` at time 0 (window or interval) with a pool of
    /// [`initial_pool`] slots, and prepares the passes.
    pub fn new(gpu: Arc<Gpu>, cfg: &NetworkConfig) -> Result<Self, SimError> {
        let r = Reductions::for_device(&gpu.device);
        let pool = initial_pool(cfg, &gpu);
        Self::with_options(gpu, cfg, r, pool)
    }

    /// As [`GpuNetwork::new`], with the reductions and the initial pool chosen by the
    /// caller (verification starts small so that the pool grows).
    pub fn with_options(
        gpu: Arc<Gpu>,
        cfg: &NetworkConfig,
        reductions: Reductions,
        pool: u32,
    ) -> Result<Self, SimError> {
        let Some(step_rule) = cfg.run.step_rule() else {
            return Err(SimError::Gpu(
                "sequential runs on the CPU only (it is the one-event-at-a-time reference); use --engine cpu".into(),
            ));
        };
        let mut phases = pdes_gpu::stamps::HostPhases::start("network set-up");
        let state = NetState::new(&cfg.network, cfg.run.seed, cfg.run.warmup_ticks());
        phases.mark("the twin's state");
        let pool = pool.max(state.tokens.len() as u32).max(1);
        let memory_bytes = stepped::check_fits(&gpu, "the network", &memory_plan(cfg, pool))?;
        let params = Params::of(cfg, &state, step_rule.gpu_code());
        let ctl = Ctl {
            pool_used: state.tokens.len() as u32,
            pool_cap: pool,
            ..Ctl::default()
        };
        let oom = kit::OomScope::push(&gpu.device);
        let buffers = Buffers::upload((&gpu.device, &gpu.queue), &params, &ctl, &state, pool);
        oom.check(format_args!("{memory_bytes} bytes"))?;
        phases.mark("buffers");
        let open = !state.sources.is_empty();
        let pipelines = gpu.cached(
            &format!("network pipelines, {reductions:?}, open {open}"),
            || build_pipelines(&gpu, reductions, open),
        );
        let bind_group = kit::bind_group(&gpu.device, "network", &pipelines.layout, &buffers.all());
        phases.mark("pipelines");
        let mut engine = Self {
            gpu,
            config: cfg.clone(),
            end: cfg.end_ticks(),
            n_wg: params.n_wg,
            buffers,
            pipelines,
            bind_group,
            ctl,
            log: pdes_core::sim::StepLog::new(),
            batch: 16,
            advance: AdvanceState::default(),
            pool_growths: 0,
            memory_bytes,
            stamps: None,
            state_at_head: None,
        };
        engine.stamps = profile::PassStamps::new(&engine.gpu);
        // the first level of the reduction, then a plan with limit 0: it holds at t_min
        engine
            .pipelines
            .step
            .initialize(&engine.gpu, &engine.bind_group, engine.n_wg, 1);
        match engine.read_ctl_and_log() {
            Err(SimError::NotYet) => engine.advance = AdvanceState::awaiting_first_read(),
            r => r?,
        }
        phases.mark("first plan");
        Ok(engine)
    }

    /// The configuration it runs.
    pub fn config(&self) -> &NetworkConfig {
        &self.config
    }

    /// Bytes of each binding, in binding order (what [`memory_plan`] predicts).
    pub fn binding_bytes(&self) -> Vec<u64> {
        self.buffers.all().iter().map(|b| b.size()).collect()
    }

    /// Token slots in the pool now.
    pub fn pool_capacity(&self) -> u32 {
        self.ctl.pool_cap
    }

    /// Grows the pool so that the step the plan could not start fits (at least doubling),
    /// copies the tokens and the free stack, and lets the plan retry.
    fn grow_pool(&mut self) -> Result<(), SimError> {
        let c = &self.ctl;
        let new = pool::grown_size(c.pool_cap, c.pool_used, c.pool_short, "the network")?;
        let memory_bytes =
            stepped::check_fits(&self.gpu, "the network", &memory_plan(&self.config, new))
                .map_err(|e| {
                    SimError::Gpu(format!("token pool: growing it to {new} slots failed: {e}"))
                })?;
        let b = &self.buffers;
        let grown = pool::grow(
            &self.gpu,
            (&b.tok, &b.lists, b.free_stack.offset),
            TOKEN_BYTES,
            new,
            "dep_list, free stack",
        )?;
        self.buffers.tok = grown.tok;
        self.buffers.lists = grown.lists;
        self.buffers.free_stack = grown.free_stack;
        self.bind_group = kit::bind_group(
            &self.gpu.device,
            "network",
            &self.pipelines.layout,
            &self.buffers.all(),
        );
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

    /// Encodes `steps` steps (after a `resume`), submits them, reads back.
    fn run_batch(&mut self, steps: u64) -> Result<(), SimError> {
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        let mut stamps = self.stamps.take();
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            if let Some(s) = stamps.as_mut() {
                s.begin();
            }
            let mut after = |pass: &mut wgpu::ComputePass| {
                if let Some(s) = stamps.as_mut() {
                    s.stamp(pass);
                }
            };
            self.pipelines.step.encode_steps(
                &mut pass,
                &self.bind_group,
                (self.n_wg, 1),
                steps,
                &mut after,
            );
        }
        if let Some(s) = &stamps {
            s.resolve(&mut enc);
        }
        self.gpu.queue.submit([enc.finish()]);
        let before = self.ctl.head.step;
        let read = self.read_ctl_and_log();
        if let Some(s) = &stamps {
            let ran = u64::from(self.ctl.head.step.saturating_sub(before));
            s.report(&self.gpu, &self.pass_names(), ran)?;
        }
        self.stamps = stamps;
        read
    }

    /// The passes of a step, in order (for the profile).
    fn pass_names(&self) -> Vec<&'static str> {
        let mut names = vec!["scan"];
        if self.pipelines.step.count.is_some() {
            names.push("count");
        }
        names.extend(["depart", "arrive", "finish"]);
        names
    }

    /// Reads the control block and the step log of the steps since the last read. On a
    /// page's device the whole state comes back with them, of the same step: read on its
    /// own, it came from a later batch than the counts (a page's sample mixed the two).
    fn read_ctl_and_log(&mut self) -> Result<(), SimError> {
        let b = &self.buffers;
        let extra = if self.gpu.defers_readbacks() {
            Self::state_ranges(b, self.config.network.stations.len(), b.tok.size()).to_vec()
        } else {
            Vec::new()
        };
        let (mut ctls, extras) = stepped::read_ctls_logs_and::<Ctl>(
            &self.gpu,
            (&b.ctl, &b.steplog),
            std::slice::from_mut(&mut self.log),
            &extra,
            self.advance.work(),
        )?;
        if let Some(ctl) = ctls.pop() {
            self.ctl = ctl;
            if !extras.is_empty() {
                self.state_at_head = Some(extras);
            }
        }
        Ok(())
    }

    /// What [`Self::download_state`] decodes: the stations, servers and cold records, the
    /// first `token_bytes` of the pool, the free stack and its height (heads[K]).
    fn state_ranges(
        b: &Buffers,
        stations: usize,
        token_bytes: u64,
    ) -> [(&wgpu::Buffer, u64, u64); 6] {
        [
            b.stations.range(),
            b.servers.range(),
            b.cold.range(),
            (&b.tok, 0, token_bytes),
            b.free_stack.range(),
            (&b.heads, 4 * stations as u64, 4),
        ]
    }

    /// Downloads the whole network state, as the CPU twin holds it (the tokens in the GPU's
    /// slots; the network-wide counts summed from the stations' and sources' records), and
    /// each station's latest causality-error step.
    pub fn download_state(&self) -> Result<(NetState, Vec<u32>), SimError> {
        let b = &self.buffers;
        let cfg = &self.config;
        // the twin's constants built while the GPU's words come back (everything else is
        // read back)
        let read = || match &self.state_at_head {
            // a page's device: the bytes read with the control block, borrowed (the window
            // asks every frame)
            Some(bytes) if self.gpu.defers_readbacks() => Ok(Cow::Borrowed(bytes.as_slice())),
            None if self.gpu.defers_readbacks() => Err(SimError::NotYet),
            _ => pdes_gpu::read_ranges_since(
                &self.gpu,
                &Self::state_ranges(
                    b,
                    cfg.network.stations.len(),
                    TOKEN_BYTES * u64::from(self.ctl.pool_used),
                ),
                self.advance.work(),
            )
            .map(Cow::Owned),
        };
        let (mut state, bytes) = rayon::join(
            || NetState::empty(&cfg.network, cfg.run.seed, cfg.run.warmup_ticks()),
            read,
        );
        let bytes = bytes?;
        let words = pods::<u32>(&bytes[0]);
        let servers = pods::<u32>(&bytes[1]);
        let cold = pods::<u32>(&bytes[2]);
        let server = |rec: &[u32]| Server {
            departure: join([rec[0], rec[1]]),
            since: join([rec[2], rec[3]]),
            token: rec[4],
        };
        // a station's first server is in its record (words 24..32), server k of station s
        // other than its first at k − s − 1 of the servers' array
        let decoded: Vec<Server> = (0..state.servers.len())
            .into_par_iter()
            .map(|k| {
                let s = state.station_of(k) as usize;
                if k == state.first_server[s] as usize {
                    server(&words[s * STATION_WORDS + 24..])
                } else {
                    server(&servers[(k - s - 1) * SERVER_WORDS..])
                }
            })
            .collect();
        state.servers = decoded;
        let w64 = |w: &[u32], i: usize| join([w[i], w[i + 1]]);
        let w128 = |w: &[u32], i: usize| join128([w[i], w[i + 1], w[i + 2], w[i + 3]]);
        state
            .stations
            .par_iter_mut()
            .zip(words.par_chunks_exact(STATION_WORDS))
            .zip(cold.par_chunks_exact(COLD_WORDS))
            .for_each(|((st, rec), co)| {
                st.head = rec[0];
                st.tail = rec[1];
                st.completions = join([rec[2], co[3]]);
                st.present = rec[3];
                st.last_arrival = w64(rec, 4);
                st.busy = w64(rec, 8);
                st.sojourn = w64(rec, 10);
                st.area_done = w128(rec, 12);
                st.causality_errors = w64(co, 12);
            });
        let cold_records = || cold.par_chunks_exact(COLD_WORDS);
        let system_time: u128 = cold_records().map(|co| w128(co, 4)).sum();
        let exits: u64 = cold_records().map(|co| w64(co, 8)).sum();
        let exits_measured: u64 = cold_records().map(|co| w64(co, 10)).sum();
        let last_error_step: Vec<u32> = cold_records().map(|co| co[2]).collect();
        for src in state.sources.iter_mut() {
            let s = src.station as usize;
            src.next = w64(&words[s * STATION_WORDS..], 6);
            src.count = w64(&cold[s * COLD_WORDS..], 0);
        }
        // (a page's copy holds the whole pool: the slots in use are the control block's)
        let used = bytes[3]
            .len()
            .min((TOKEN_BYTES * u64::from(self.ctl.pool_used)) as usize);
        let records = pods::<GpuToken>(&bytes[3][..used]);
        state.tokens = records
            .par_iter()
            .map(|r| Token {
                id: join(r.id),
                entered: join(r.entered),
                arrived: join(r.arrived),
                visits: r.visits,
                next: r.next,
            })
            .collect();
        let stack = pods::<u32>(&bytes[4]);
        let top = bytemuck::pod_read_unaligned::<u32>(&bytes[5]) as usize;
        state.free = stack[..top.min(stack.len())].to_vec();
        state.count_queues_and_live();
        state.arrivals = state.sources.iter().map(|s| s.count).sum();
        state.exits = exits;
        state.exits_measured = exits_measured;
        state.system_time = system_time;
        state.in_system = (state.population + state.arrivals).wrapping_sub(exits);
        Ok((state, last_error_step))
    }

    /// The run's summary (the CPU engine's fields; tokens checked first).
    pub fn summary(&self) -> Result<NetworkSummary, SimError> {
        let mut phases = pdes_gpu::stamps::HostPhases::start("network summary");
        let (state, _) = self.download_state()?;
        phases.mark("read back");
        state.check_tokens().map_err(SimError::TokenConservation)?;
        phases.mark("tokens checked");
        let horizon = self.now().min(self.end).max(1);
        let mut s = NetworkSummary::new(&self.config, &self.totals(), &state.measures(horizon))
            .with_counts(&state);
        s.engine = "gpu";
        phases.mark("summary");
        Ok(s)
    }
}

impl SteppedGpu for GpuNetwork {
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
        GpuNetwork::run_batch(self, steps)
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
    fn max_batch(&self) -> u64 {
        match self.stamps {
            Some(_) => profile::PassStamps::most_steps(self.pass_names().len() as u32),
            None => stepped::MAX_BATCH,
        }
    }
    fn resolve_stop(&mut self) -> Result<bool, SimError> {
        if self.ctl.head.phase == PHASE_FULL {
            self.grow_pool()?;
            return Ok(true);
        }
        Ok(false)
    }
}

impl Engine for GpuNetwork {
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
