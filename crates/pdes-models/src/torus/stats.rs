//! Statistics of a torus run: utilization, sojourn time, throughput, token conservation,
//! and the analytic references they are judged against.

use super::state::{NONE, TorusState};
use crate::queueing::{Algorithm, Timestamps};
use crate::torus::config::TorusConfig;
use pdes_core::sim::{SimError, StepTotals};
use pdes_core::time::{Ticks, to_units};
use serde::Serialize;

/// Integer sums over all facilities, exact whatever the number of events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Measures {
    /// The end of the time the measures cover, in ticks.
    pub horizon: Ticks,
    /// The start of the time the measures cover (the warm-up), in ticks.
    pub warmup: Ticks,
    /// Busy time within [warmup, horizon], summed over facilities.
    pub busy: u128,
    /// Sojourn times of visits completed within [warmup, horizon].
    pub sojourn: u128,
    /// Visits completed within [warmup, horizon].
    pub completions: u64,
    /// Causality errors.
    pub causality_errors: u64,
    /// Tokens found in the network.
    pub tokens_in_system: u64,
    /// Facilities.
    pub facilities: u64,
}

impl Measures {
    /// Busy fraction averaged over facilities.
    pub fn utilization(&self) -> f64 {
        let covered = self.covered();
        if covered == 0 {
            return 0.0;
        }
        self.busy as f64 / (covered as f64 * self.facilities as f64)
    }

    /// Ticks the measures cover: horizon − warmup (0 before the warm-up ends).
    pub fn covered(&self) -> Ticks {
        self.horizon.saturating_sub(self.warmup)
    }

    /// Mean sojourn time per completed visit, in time units.
    pub fn mean_sojourn(&self) -> f64 {
        if self.completions == 0 {
            return 0.0;
        }
        to_units(1) * (self.sojourn as f64 / self.completions as f64)
    }
}

/// Sums the accumulators of `state` as of `horizon` (services in progress count up to it,
/// from the warm-up on) and checks that no token was lost or duplicated.
pub fn measure(state: &TorusState, horizon: Ticks) -> Result<Measures, SimError> {
    let tokens = state.check_tokens().map_err(SimError::TokenConservation)?;
    Ok(Measures {
        tokens_in_system: tokens,
        ..sums(state, horizon)
    })
}

/// [`measure`] without the token check (a plot sample's, every few frames: the walk of
/// every queue and its allocation are the summary's to make; `tokens_in_system` is left 0).
pub fn sums(state: &TorusState, horizon: Ticks) -> Measures {
    let mut m = Measures {
        horizon,
        warmup: state.warmup,
        ..Default::default()
    };
    m.facilities = state.facilities.len() as u64;
    for f in &state.facilities {
        m.busy += u128::from(f.busy);
        if f.serving != NONE {
            let from = f.service_start.max(state.warmup);
            m.busy += u128::from(horizon.min(f.departure).saturating_sub(from));
        }
        m.sojourn += u128::from(f.sojourn);
        m.completions += f.completions;
        m.causality_errors += f.causality_errors;
    }
    m
}

/// The result of a run, as printed by `pdes-lab run` (field names are a stable interface).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Model name.
    pub model: &'static str,
    /// Algorithm name.
    pub algorithm: &'static str,
    /// Timestamps rule for `interval` (else null).
    pub timestamps: Option<&'static str>,
    /// Engine name.
    pub engine: &'static str,
    /// Torus rows.
    pub rows: u32,
    /// Torus columns.
    pub cols: u32,
    /// Tokens in all.
    pub tokens: u64,
    /// Tokens per facility at the start.
    pub tokens_per_facility: u32,
    /// Mean service time M.
    pub mean_service: f64,
    /// Service-time distribution.
    pub service: &'static str,
    /// The interval d.
    pub d: f64,
    /// End time T.
    pub end_time: f64,
    /// Warm-up: the statistics cover [warmup, end_time].
    pub warmup: f64,
    /// Simulated time the statistics cover (from the warm-up on).
    pub sim_time: f64,
    /// Random seed.
    pub seed: u64,
    /// Events processed.
    pub events: u64,
    /// Steps taken.
    pub steps: u64,
    /// Mean events per step.
    pub mean_events_per_step: f64,
    /// Most events in one step.
    pub max_events_per_step: u64,
    /// Time-average utilization over all facilities.
    pub utilization: f64,
    /// Mean sojourn time per visit.
    pub mean_sojourn: f64,
    /// Completed events per unit of simulated time (whole network).
    pub throughput: f64,
    /// Causality errors (arrivals older than the facility's last arrival).
    pub causality_errors: u64,
    /// Tokens found in the network at the end (always equal to `tokens`).
    pub tokens_in_system: u64,
    /// Wall-clock seconds of the run (filled in by the caller).
    pub wall_seconds: f64,
    /// Events per wall-clock second.
    pub events_per_second: f64,
    /// Exact utilization for exponential service, else null.
    pub analytic_utilization: Option<f64>,
    /// Exact mean sojourn for exponential service, else null.
    pub analytic_sojourn: Option<f64>,
    /// Park–Fishwick corrected utilization (1 + d/(2M))·ρ(d) for interval/boundary, else null.
    pub corrected_utilization: Option<f64>,
    /// Exact utilization of the same network with exponential service (the model the
    /// shifted service of the window algorithm departs from; paper 000 Fig. 14).
    pub exponential_utilization: f64,
    /// Exact mean sojourn of the same network with exponential service (paper 000 Fig. 15).
    pub exponential_sojourn: f64,
}

impl Summary {
    /// Builds the summary of a run of `cfg`.
    pub fn new(cfg: &TorusConfig, totals: &StepTotals, m: &Measures) -> Self {
        let exponential = cfg.model.service == crate::torus::ServiceKind::Exponential;
        let boundary =
            cfg.run.algorithm == Algorithm::Interval && cfg.run.timestamps == Timestamps::Boundary;
        let utilization = m.utilization();
        let sim_time = to_units(m.covered());
        Self {
            model: "torus",
            algorithm: cfg.run.algorithm.name(),
            timestamps: (cfg.run.algorithm == Algorithm::Interval)
                .then(|| cfg.run.timestamps.name()),
            engine: cfg.run.engine.name(),
            rows: cfg.model.rows,
            cols: cfg.model.cols,
            tokens: u64::from(cfg.model.tokens()),
            tokens_per_facility: cfg.model.tokens_per_facility,
            mean_service: cfg.model.mean_service,
            service: cfg.model.service.name(),
            d: cfg.run.d,
            end_time: cfg.run.end_time,
            warmup: cfg.run.warmup,
            sim_time,
            seed: cfg.run.seed,
            events: totals.events,
            steps: totals.steps,
            mean_events_per_step: if totals.steps == 0 {
                0.0
            } else {
                totals.events as f64 / totals.steps as f64
            },
            max_events_per_step: totals.max_events_per_step,
            utilization,
            mean_sojourn: m.mean_sojourn(),
            throughput: if sim_time > 0.0 {
                m.completions as f64 / sim_time
            } else {
                0.0
            },
            causality_errors: m.causality_errors,
            tokens_in_system: m.tokens_in_system,
            wall_seconds: 0.0,
            events_per_second: 0.0,
            analytic_utilization: exponential.then(|| cfg.model.analytic_utilization()),
            analytic_sojourn: exponential.then(|| cfg.model.analytic_sojourn()),
            corrected_utilization: boundary
                .then(|| (1.0 + cfg.run.d / (2.0 * cfg.model.mean_service)) * utilization),
            exponential_utilization: cfg.model.analytic_utilization(),
            exponential_sojourn: cfg.model.analytic_sojourn(),
        }
    }
}

impl pdes_core::sim::ModelSummary for Summary {
    const WORK: &'static str = "events";
    const RATE: &'static str = "events_per_second";
    fn statistics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("utilization", self.utilization),
            ("mean_sojourn", self.mean_sojourn),
            ("throughput", self.throughput),
        ]
    }
}
