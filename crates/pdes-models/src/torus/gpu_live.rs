//! The GPU torus's live measures: what a plot sample shows, as `run` computes it. The
//! completed services' sums are the engine's per-workgroup accumulators; the services in
//! progress are summed on the GPU by the display module's `in_service_main` (one 64-bit
//! word per workgroup comes back, not the state), so a sample of a 4096² torus reads
//! 0.5 MB rather than the whole network.

use super::GpuTorus;
use crate::torus::stats::Measures;
use pdes_core::sim::{Engine, SimError};
use pdes_gpu::kit;

impl GpuTorus {
    /// The measures `run`'s summary would report at the engine's current time (replica 0):
    /// busy time up to now with the services in progress, sojourns and completions of the
    /// visits completed, causality errors — from the warm-up on. Token conservation is not
    /// checked here (the summary does, over the downloaded state).
    pub fn live_measures(&self) -> Result<Measures, SimError> {
        let sums = self.accumulated()?;
        let mut m = Measures {
            horizon: self.now().min(self.end),
            warmup: self.config.run.warmup_ticks(),
            busy: sums.busy + self.in_service_busy()?,
            sojourn: sums.sojourn,
            completions: sums.completions,
            causality_errors: self.causality_errors(),
            facilities: u64::from(self.config.model.facilities()),
            ..Measures::default()
        };
        m.tokens_in_system = u64::from(self.config.model.tokens());
        Ok(m)
    }

    /// Events processed, as the GPU counts them.
    pub fn live_events(&self) -> u64 {
        kit::join(self.ctl.events)
    }

    /// Busy ticks of the services in progress, from max(start, warm-up) to the current
    /// time: the in-service pass, then its per-workgroup words summed in 128 bits. On a
    /// page's device, the words copied with the control block (the pass ran after the
    /// batch it was read at: a pass run now could see a batch still in flight).
    fn in_service_busy(&self) -> Result<u128, SimError> {
        if self.gpu.defers_readbacks() {
            let Some(bytes) = &self.in_service_at_head else {
                return Err(SimError::NotYet);
            };
            let words: &[[u32; 2]] = bytemuck::cast_slice(bytes);
            return Ok(words
                .iter()
                .map(|w| u128::from(pdes_gpu::kit::join(*w)))
                .sum());
        }
        pdes_gpu::live::sum_of_workgroup_words(
            &self.gpu,
            &self.display_group,
            (&self.pipelines.display_layout, &self.pipelines.in_service),
            (&self.in_service, self.in_service_groups()),
            self.advance.work(),
        )
    }

    /// Workgroups of the in-service pass (one word each).
    fn in_service_groups(&self) -> u32 {
        self.config.model.facilities().div_ceil(super::WG as u32)
    }

    /// Runs the in-service pass now (its words into `in_service`), not waiting for it.
    pub(super) fn submit_in_service(&self) {
        pdes_gpu::kit::run_display_pass(
            &self.gpu,
            &self.display_group,
            (&self.pipelines.display_layout, &self.pipelines.in_service),
            &self.in_service,
            self.in_service_groups(),
        );
    }
}
