//! The GPU open network's live measures: what a plot sample shows, as `run` computes it.
//! The GPU's per-segment sums and the control block give everything but the services in
//! progress, which the display module's `in_service_main` sums on the GPU (one 64-bit word
//! per workgroup comes back, not the state or the token pool).

use super::GpuOpen;
use crate::open_network::state::Measures;
use pdes_core::sim::{Engine, SimError};
use pdes_gpu::kit::{join, join128};

impl GpuOpen {
    /// The measures `run`'s summary would report at the engine's current time, computed as
    /// `OpenState::measures` computes them (token conservation is checked by the summary,
    /// over the downloaded state, not here).
    pub fn live_measures(&self) -> Result<Measures, SimError> {
        let s = self.sums()?;
        let horizon = self.now().min(self.end).max(1);
        let warmup = self.config.run.warmup_ticks();
        let arrivals = self.arrivals();
        let exits = s.exits as u64;
        let in_system = arrivals.wrapping_sub(exits);
        // ∫ N dt over [warm-up, horizon], as OpenState::measures: the exited tokens' part
        // plus the live tokens' (horizon − max(entry, warm-up)) each
        let live_entered = join128(self.ctl.entered_sum).wrapping_sub(s.exited_entry);
        let area = if horizon > warmup {
            (s.area + u128::from(in_system) * u128::from(horizon)).wrapping_sub(live_entered)
        } else {
            0
        };
        Ok(Measures {
            horizon,
            facilities: u64::from(self.config.model.facilities()),
            busy: s.busy + self.in_service_busy()?,
            sojourn: s.sojourn,
            completions: s.visits_measured,
            causality_errors: join(self.ctl.head.errors),
            arrivals,
            exits,
            in_system,
            system_time: s.stay,
            exits_measured: s.exits_measured,
            area,
            warmup,
        })
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
