//! The window algorithm on the GPU with temporal blocking (`shaders/torus_block.wgsl`):
//! each workgroup advances its tile of the torus by up to `halo` windows per dispatch.
//!
//! Windows are anchored, [base + k·d, base + (k+1)·d), rather than started at each step's
//! earliest departure: with every service at least d long (shifted service), the events of
//! one such window are independent of each other and a token moves at most one facility
//! per window, so any partition of time into windows no wider than d gives the sequential
//! result. A workgroup loads its tile plus a halo of `halo` facilities into shared memory,
//! runs `halo` windows there (the halo's outer rings go stale one per window, the tile
//! stays exact), and stages its changes; a second dispatch commits them once every
//! workgroup has read the block's starting state. Two dispatches per `halo` windows, and
//! the events' random accesses become shared-memory accesses.
//!
//! The CPU twin of the result is `sequential` (and the stepped engine, whose windows start
//! at each step's earliest departure: the same events in other groupings); the step log
//! records one step per non-empty anchored window.

use super::blocked_setup::{Block, Buffers, LANES, MAX_BLOCKS, Pipelines, Resources};
pub use super::blocked_setup::{
    DEFAULT_HALO, MAX_HALO, Tiling, memory_plan, module_source, unsupported,
};
use crate::torus::config::TorusConfig;
use crate::torus::gpu::{Accumulated, StateWords, decode_state};
use crate::torus::state::TorusState;
use crate::torus::stats::{self, Summary};
use pdes_core::sim::{Budget, Engine, SimError, StepRecord, StepTotals};
use pdes_core::time::{Ticks, to_ticks};
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, join, read_buffers, split};
use pdes_gpu::read_ranges;
use std::sync::Arc;

/// The blocked GPU torus engine (window algorithm, shifted service, one run).
pub struct GpuTorusBlocked {
    gpu: Arc<Gpu>,
    config: TorusConfig,
    tiling: Tiling,
    end: Ticks,
    d: Ticks,
    /// Every event before this time has been processed (the next block's base).
    base: Ticks,
    buffers: Buffers,
    pipelines: Arc<Pipelines>,
    bind_group: wgpu::BindGroup,
    block_group: wgpu::BindGroup,
    block_stride: u64,
    totals: StepTotals,
    log: pdes_core::sim::StepLog,
    /// Bytes of GPU memory the run uses.
    pub memory_bytes: u64,
}

impl GpuTorusBlocked {
    /// Uploads the initial state of `cfg` and prepares the two passes.
    pub fn new(gpu: Arc<Gpu>, cfg: &TorusConfig, halo: u32) -> Result<Self, SimError> {
        if let Some(why) = unsupported(cfg, halo) {
            return Err(SimError::Gpu(why));
        }
        let tiling = Tiling::of(&gpu, cfg, halo)?;
        let what = format!("{}×{} blocked", cfg.model.rows, cfg.model.cols);
        let memory_bytes = pdes_gpu::stepped::check_fits(&gpu, &what, &memory_plan(cfg, &tiling))?;
        let max = gpu.limits.max_compute_workgroups_per_dimension;
        if tiling.tiles.0 > max || tiling.tiles.1 > max {
            return Err(SimError::Gpu(format!(
                "blocked: {}×{} tiles exceed this adapter's {max} workgroups per dimension",
                tiling.tiles.0, tiling.tiles.1
            )));
        }
        let r = Resources::new(&gpu, cfg, &tiling, memory_bytes)?;
        Ok(Self {
            gpu,
            config: cfg.clone(),
            tiling,
            end: cfg.end_ticks(),
            d: to_ticks(cfg.run.d),
            base: 0,
            buffers: r.buffers,
            pipelines: r.pipelines,
            bind_group: r.bind_group,
            block_group: r.block_group,
            block_stride: r.block_stride,
            totals: StepTotals::default(),
            log: pdes_core::sim::StepLog::new(),
            memory_bytes,
        })
    }

    /// The run's tiling.
    pub fn tiling(&self) -> Tiling {
        self.tiling
    }

    /// Runs the blocks of one batch: each covers up to `halo` windows from the current
    /// base, the last window of the run (or of the caller's limit) cut at the limit.
    /// Returns the windows run.
    fn run_batch(&mut self, limit: Ticks, max_windows: u64) -> Result<u64, SimError> {
        let blocks = self.plan_blocks(limit, max_windows);
        let Some(last) = blocks.last() else {
            return Ok(0);
        };
        let next_base = join(last.limit);
        self.submit_blocks(&blocks)?;
        let run = self.record_windows(&blocks)?;
        self.base = next_base;
        Ok(run)
    }

    /// The blocks of the next batch from the current base: at most `max_windows` windows
    /// before `limit`, at most [`MAX_BLOCKS`] blocks.
    fn plan_blocks(&self, limit: Ticks, max_windows: u64) -> Vec<Block> {
        let h = u64::from(self.tiling.halo);
        let mut blocks = Vec::new();
        let mut base = self.base;
        let mut windows_left = max_windows;
        while base < limit && windows_left > 0 && (blocks.len() as u64) < MAX_BLOCKS {
            let windows = h.min(windows_left).min((limit - base).div_ceil(self.d));
            let block_end = base.saturating_add(windows * self.d).min(limit);
            blocks.push(Block {
                base: split(base),
                limit: split(block_end),
                windows: windows as u32,
                log_block: blocks.len() as u32,
                pad: [0; 2],
            });
            windows_left -= windows;
            base = block_end;
        }
        blocks
    }

    /// Writes `blocks` and runs them, two dispatches each (block, commit); with
    /// PDES_GPU_PROFILE, a timestamp after every dispatch, printed as µs per pass.
    fn submit_blocks(&self, blocks: &[Block]) -> Result<(), SimError> {
        let mut bytes = vec![0u8; (self.block_stride * blocks.len() as u64) as usize];
        for (i, b) in blocks.iter().enumerate() {
            let at = i * self.block_stride as usize;
            bytes[at..at + std::mem::size_of::<Block>()].copy_from_slice(bytemuck::bytes_of(b));
        }
        let gpu = &self.gpu;
        gpu.queue.write_buffer(&self.buffers.blocks, 0, &bytes);
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        enc.clear_buffer(&self.buffers.blog, 0, None);
        let stamps = (std::env::var_os("PDES_GPU_PROFILE").is_some()
            && gpu
                .device
                .features()
                .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES))
        .then(|| {
            let count = 1 + 2 * blocks.len() as u32;
            let set = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("blocked passes"),
                ty: wgpu::QueryType::Timestamp,
                count,
            });
            (set, count)
        });
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_bind_group(0, &self.bind_group, &[]);
            let (tx, ty) = self.tiling.tiles;
            let mut q = 0;
            let mut stamp = |pass: &mut wgpu::ComputePass| {
                if let Some((set, _)) = &stamps {
                    pass.write_timestamp(set, q);
                    q += 1;
                }
            };
            stamp(&mut pass);
            for i in 0..blocks.len() as u64 {
                pass.set_bind_group(1, &self.block_group, &[(i * self.block_stride) as u32]);
                pass.set_pipeline(&self.pipelines.block);
                pass.dispatch_workgroups(tx, ty, 1);
                stamp(&mut pass);
                pass.set_pipeline(&self.pipelines.commit);
                pass.dispatch_workgroups(tx, ty, 1);
                stamp(&mut pass);
            }
        }
        let resolved = stamps
            .as_ref()
            .map(|(set, count)| kit::resolve_timestamps(&gpu.device, &mut enc, set, *count));
        gpu.queue.submit([enc.finish()]);
        if let Some(buf) = &resolved {
            let bytes = read_buffers(gpu, &[buf])?;
            let t: &[u64] = bytemuck::cast_slice(&bytes[0]);
            let period = f64::from(gpu.queue.get_timestamp_period()) / 1000.0;
            let (mut block_us, mut commit_us) = (0.0, 0.0);
            for i in 0..blocks.len() {
                block_us += (t[2 * i + 1] - t[2 * i]) as f64 * period;
                commit_us += (t[2 * i + 2] - t[2 * i + 1]) as f64 * period;
            }
            let n = blocks.len() as f64;
            eprintln!(
                "blocked batch of {} blocks: block {:.1} µs, commit {:.1} µs per block (GPU timestamps)",
                blocks.len(),
                block_us / n,
                commit_us / n
            );
        }
        Ok(())
    }

    /// Reads the batch's window log and records one step per non-empty window. Returns
    /// the windows run.
    fn record_windows(&mut self, blocks: &[Block]) -> Result<u64, SimError> {
        let used = blocks.len() as u64 * u64::from(MAX_HALO * LANES) * 4;
        let log = read_ranges(&self.gpu, &[(&self.buffers.blog, 0, used)])?;
        let lanes: &[u32] = bytemuck::cast_slice(&log[0]);
        let mut run = 0;
        for (i, b) in blocks.iter().enumerate() {
            let base = join(b.base);
            for k in 0..u64::from(b.windows) {
                let at = (i * MAX_HALO as usize + k as usize) * LANES as usize;
                let events: u64 = lanes[at..at + LANES as usize]
                    .iter()
                    .map(|&n| u64::from(n))
                    .sum();
                let lo = base + k * self.d;
                if events > 0 {
                    self.totals.record(events, 0);
                    self.log.push(StepRecord {
                        t_min: lo,
                        bound: (lo + self.d).min(join(b.limit)) - 1,
                        events,
                        errors: 0,
                    });
                }
                run += 1;
            }
        }
        Ok(run)
    }

    /// Downloads the network state (statistics fields zero: the GPU keeps them per tile).
    pub fn download_state(&self) -> Result<TorusState, SimError> {
        let b = &self.buffers;
        let bytes = read_buffers(&self.gpu, &[&b.dep, &b.fac, &b.tok])?;
        let words = StateWords {
            dep: bytemuck::cast_slice(&bytes[0]),
            last: None,
            fac: bytemuck::cast_slice(&bytes[1]),
            tok: bytemuck::cast_slice(&bytes[2]),
        };
        Ok(decode_state(&self.config, self.config.run.seed, 0, &words))
    }

    /// The exact sums over the tiles: busy and sojourn ticks, completed visits.
    pub fn accumulated(&self) -> Result<Accumulated, SimError> {
        let bytes = read_buffers(&self.gpu, &[&self.buffers.tile_acc])?;
        let acc: &[[[u32; 4]; 2]] = bytemuck::cast_slice(&bytes[0]);
        Ok(acc
            .iter()
            .fold(Accumulated::default(), |sum, [sums, counts]| Accumulated {
                busy: sum.busy + u128::from(join([sums[0], sums[1]])),
                sojourn: sum.sojourn + u128::from(join([sums[2], sums[3]])),
                completions: sum.completions + join([counts[0], counts[1]]),
            }))
    }
}

impl Engine for GpuTorusBlocked {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        let (limit, mut windows) = budget.limits(self.end);
        while self.base < limit && windows > 0 {
            windows -= self.run_batch(limit, windows)?;
        }
        Ok(())
    }
    fn now(&self) -> Ticks {
        self.base
    }
    fn finished(&self) -> bool {
        self.base >= self.end
    }
    fn totals(&self) -> StepTotals {
        self.totals.clone()
    }
    fn steps(&self) -> Option<&pdes_core::sim::StepLog> {
        Some(&self.log)
    }
    fn report(&mut self) -> Result<pdes_core::sim::Report, SimError> {
        Ok(pdes_core::sim::Report::of(
            &crate::torus::cpu::TorusEngine::summary(self)?,
        ))
    }
}

impl crate::torus::cpu::TorusEngine for GpuTorusBlocked {
    fn summary(&mut self) -> Result<Summary, SimError> {
        let state = self.download_state()?;
        let mut m = stats::measure(&state, self.base.min(self.end))?;
        self.accumulated()?.add_to(&mut m);
        Ok(Summary::new(&self.config, &self.totals, &m))
    }
    fn occupancy(&mut self) -> Result<Vec<u32>, SimError> {
        Ok(self.download_state()?.occupancy())
    }
}
