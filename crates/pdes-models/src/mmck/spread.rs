//! M/M/c/k replications split over several GPUs (`run --devices`): device i runs a
//! contiguous share of the replications ([`GpuMmck::part`]), all devices at once, and the
//! summary is made from every replication together — the same replications, each keyed by
//! its own number, so the same summary as one GPU's run, field for field. A run larger than
//! one buffer or dispatch of one GPU holds is split the same way on that GPU
//! ([`SpreadMmck::chunked`]).

use super::Replication;
use super::config::MmckConfig;
use super::cpu::Standing;
use super::gpu::GpuMmck;
use super::summary::{Pooled, Summary};
use pdes_core::sim::{Budget, Engine, Report, SimError, StepTotals};
use pdes_core::time::Ticks;
use pdes_gpu::{Gpu, LiveEngine, Sample};
use std::sync::Arc;

/// The replications of one run, a share on each of several devices.
pub struct SpreadMmck {
    config: MmckConfig,
    parts: Vec<GpuMmck>,
    horizon: Ticks,
}

impl SpreadMmck {
    /// `cfg`'s replications over `gpus`, as even shares in order (device 0 the first); a
    /// share larger than one buffer or dispatch of its device holds runs there in parts
    /// ([`SpreadMmck::chunked`]'s), so that `--devices` takes every run one GPU takes.
    pub fn new(gpus: &[Arc<Gpu>], cfg: &MmckConfig) -> Result<Self, SimError> {
        let total = cfg.run.replications;
        let n = gpus.len().max(1) as u32;
        let share = |j: u32| (u64::from(total) * u64::from(j) / u64::from(n)) as u32;
        let mut parts = Vec::new();
        for (i, g) in gpus.iter().enumerate() {
            let i = i as u32;
            parts.extend(parts_on(g, cfg, share(i)..share(i + 1))?);
        }
        Ok(Self {
            config: cfg.clone(),
            parts,
            horizon: 0,
        })
    }

    /// `cfg`'s replications on one GPU in parts as large as one buffer and one dispatch
    /// hold (a run larger than that: 10⁷ replications, say), the parts advanced side by
    /// side; the same replications, each keyed by its own number, as one engine would run.
    pub fn chunked(gpu: &Arc<Gpu>, cfg: &MmckConfig) -> Result<Self, SimError> {
        Ok(Self {
            config: cfg.clone(),
            parts: parts_on(gpu, cfg, 0..cfg.run.replications)?,
            horizon: 0,
        })
    }

    /// [`SpreadMmck::chunked`] with parts of at most `chunk` replications (the tests' small
    /// parts).
    pub fn chunked_by(gpu: &Arc<Gpu>, cfg: &MmckConfig, chunk: u32) -> Result<Self, SimError> {
        Ok(Self {
            config: cfg.clone(),
            parts: parts_of(gpu, cfg, 0..cfg.run.replications, chunk)?,
            horizon: 0,
        })
    }

    /// Every replication, in order.
    pub fn replications(&self) -> Result<Vec<Replication>, SimError> {
        let mut all = Vec::with_capacity(self.config.run.replications as usize);
        for p in &self.parts {
            all.extend(p.replications()?);
        }
        Ok(all)
    }

    /// Where the replications of every share stand.
    fn standing(&self) -> Result<Standing, SimError> {
        self.parts
            .iter()
            .try_fold(Standing::default(), |s, p| Ok(s.merge(p.standing()?)))
    }

    fn summary(&self) -> Result<Summary, SimError> {
        // each part's sums, in order (no replication read back whole)
        let pooled = self
            .parts
            .iter()
            .try_fold(Pooled::default(), |all, p| Ok(all.merge(p.pooled()?)))?;
        Ok(Summary::of_pooled(
            &self.config,
            "gpu",
            self.config.run.replications,
            &pooled,
        ))
    }
}

impl Engine for SpreadMmck {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        let (limit, events) = super::cpu::replication_limits(budget, &self.config);
        if events == u64::MAX {
            self.horizon = self.horizon.max(limit);
        }
        // each device's share at once: the run takes as long as the slowest share
        let results: Vec<Result<(), SimError>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .parts
                .iter_mut()
                .map(|p| s.spawn(move || p.advance(budget)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(SimError::Gpu("a device's share stopped".into())))
                })
                .collect()
        });
        results.into_iter().collect()
    }
    fn now(&self) -> Ticks {
        self.standing().map(|s| s.now(self.horizon)).unwrap_or(0)
    }
    fn finished(&self) -> bool {
        self.parts.iter().all(Engine::finished)
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

impl LiveEngine for SpreadMmck {
    fn gpu_memory_bytes(&self) -> Option<u64> {
        Some(self.parts.iter().map(|p| p.memory_bytes).sum())
    }
    fn write_display(&self, gpu: &Gpu, buf: &wgpu::Buffer) {
        // the shares live on other devices: the words go up from the host
        if let Ok(w) = self.display_words() {
            let fit = w.len().min((buf.size() / 8) as usize);
            gpu.queue
                .write_buffer(buf, 0, bytemuck::cast_slice(&w[..fit]));
        }
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        let (rows, cols) = self.config.grid();
        Ok(super::live::words(
            rows as usize * cols as usize,
            &self.replications()?,
        ))
    }
    fn sample(&self, now: Ticks) -> Result<Sample, SimError> {
        Ok(super::live::sample(self, now, &self.summary()?))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The replications `range` of `cfg` on `gpu`: one engine when one buffer and one dispatch
/// hold them, else parts each as large as they hold.
fn parts_on(
    gpu: &Arc<Gpu>,
    cfg: &MmckConfig,
    range: std::ops::Range<u32>,
) -> Result<Vec<GpuMmck>, SimError> {
    let n = range.end - range.start;
    let most = GpuMmck::most_in_one(gpu, cfg, n);
    let chunk = if u64::from(n) > most {
        GpuMmck::most_in_one(gpu, cfg, most as u32).min(most) as u32
    } else {
        n
    };
    parts_of(gpu, cfg, range, chunk)
}

/// The replications `range` of `cfg` on `gpu` in parts of at most `chunk`.
fn parts_of(
    gpu: &Arc<Gpu>,
    cfg: &MmckConfig,
    range: std::ops::Range<u32>,
    chunk: u32,
) -> Result<Vec<GpuMmck>, SimError> {
    let chunk = chunk.max(1);
    let mut parts = Vec::new();
    let mut start = range.start;
    while start < range.end {
        let end = start.saturating_add(chunk).min(range.end);
        parts.push(GpuMmck::part(gpu.clone(), cfg, start..end)?);
        start = end;
    }
    Ok(parts)
}

/// The registry's [`crate::config::ModelInfo::spread`]: `config`'s replications over `gpus`.
pub fn build(
    config: &crate::config::Config,
    gpus: &[Arc<Gpu>],
) -> Result<Box<dyn LiveEngine>, SimError> {
    let Some(c) = config.get::<MmckConfig>() else {
        return Err(SimError::Gpu("not an mmck configuration".into()));
    };
    Ok(Box::new(SpreadMmck::new(gpus, c)?))
}
