//! `PDES_GPU_PROFILE`: the GPU time of each pass of the network's steps (scan, count,
//! depart, arrive, finish), from a timestamp after every dispatch of a batch (adapters
//! with TIMESTAMP_QUERY_INSIDE_PASSES), printed per batch as µs per step — what the bench
//! page's floors are checked against.

use pdes_core::sim::SimError;
use pdes_gpu::Gpu;

/// Most timestamps of one batch (a query set's limit).
const MOST: u32 = 4096;

/// The timestamps of a profiled batch.
pub(super) struct PassStamps {
    set: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    /// Timestamps written in the current batch.
    written: u32,
}

impl PassStamps {
    /// Timestamps for the passes, when profiling is asked for and the adapter has them.
    pub(super) fn new(gpu: &Gpu) -> Option<Self> {
        pdes_gpu::stamps::profiling_wanted(gpu).then(|| Self {
            set: gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("network passes"),
                ty: wgpu::QueryType::Timestamp,
                count: MOST,
            }),
            resolved: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("network passes"),
                size: 8 * u64::from(MOST),
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            written: 0,
        })
    }

    /// Steps one batch may hold: `passes` timestamps per step and one at the start.
    pub(super) fn most_steps(passes: u32) -> u64 {
        u64::from((MOST - 1) / passes)
    }

    /// Starts a batch.
    pub(super) fn begin(&mut self) {
        self.written = 0;
    }

    /// A timestamp after the dispatch just encoded.
    pub(super) fn stamp(&mut self, pass: &mut wgpu::ComputePass) {
        if self.written < MOST {
            pass.write_timestamp(&self.set, self.written);
            self.written += 1;
        }
    }

    /// Resolves the batch's timestamps (after its pass).
    pub(super) fn resolve(&self, enc: &mut wgpu::CommandEncoder) {
        enc.resolve_query_set(&self.set, 0..self.written, &self.resolved, 0);
    }

    /// Reads them back and prints µs per step of each of the `names` passes (after the
    /// first stamp, the `resume` pass; then `names.len()` per step), per step that ran
    /// (`ran` of the batch's; the others return at once: held, or done).
    pub(super) fn report(&self, gpu: &Gpu, names: &[&str], ran: u64) -> Result<(), SimError> {
        let bytes =
            pdes_gpu::read_ranges(gpu, &[(&self.resolved, 0, 8 * u64::from(self.written))])?;
        let t: &[u64] = bytemuck::cast_slice(&bytes[0]);
        let period = f64::from(gpu.queue.get_timestamp_period()) / 1e3;
        let per = names.len();
        let encoded = t.len().saturating_sub(1) / per;
        let steps = ran.max(1) as usize;
        let mut sums = vec![0.0f64; per];
        for (i, w) in t.windows(2).enumerate() {
            sums[i % per] += w[1].saturating_sub(w[0]) as f64 * period;
        }
        let parts: Vec<String> = names
            .iter()
            .zip(&sums)
            .map(|(n, s)| format!("{n} {:.1}", s / steps as f64))
            .collect();
        eprintln!(
            "network batch {encoded} steps, {ran} ran, GPU µs per step that ran: {}",
            parts.join(", ")
        );
        Ok(())
    }
}
