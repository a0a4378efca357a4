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
    /// time: the in-service pass's words summed in 128 bits.
    fn in_service_busy(&self) -> Result<u128, SimError> {
        self.in_service.sum(
            &self.gpu,
            &self.display_group,
            (&self.pipelines.display_layout, &self.pipelines.in_service),
            self.advance.work(),
        )
    }

    /// Runs the in-service pass now (after a batch, on a page's device), not waiting.
    pub(super) fn submit_in_service(&self) {
        self.in_service.submit(
            &self.gpu,
            &self.display_group,
            (&self.pipelines.display_layout, &self.pipelines.in_service),
        );
    }
}
