//! What a PHOLD run reports (`pdes-lab run` JSON/CSV/table). Every field is an exact
//! function of the pending events, the per-LP counts and the step counters, so sequential,
//! the window's CPU twin and the GPU report the same values (engine, algorithm and the
//! step counts of sequential, whose steps are single events, aside).

use super::config::PholdConfig;
use super::cpu::PholdState;
use pdes_core::sim::{ModelSummary, StepTotals};
use serde::Serialize;

/// The summary of a PHOLD run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// "phold".
    pub model: &'static str,
    /// "sequential" or "window".
    pub algorithm: &'static str,
    /// "cpu" or "gpu".
    pub engine: &'static str,
    /// Logical processes.
    pub lps: u32,
    /// Events per LP at the start.
    pub population: u32,
    /// Probability of a remote destination.
    pub remote: f64,
    /// Least increment.
    pub lookahead: f64,
    /// Mean of the exponential part of the increment.
    pub mean: f64,
    /// Events before this time were processed.
    pub end_time: f64,
    /// Seed.
    pub seed: u64,
    /// Events processed (what "per second" counts).
    pub events: u64,
    /// Steps taken (sequential: one per event).
    pub steps: u64,
    /// Events per step, on average.
    pub mean_events_per_step: f64,
    /// Most events in one step.
    pub max_events_per_step: u64,
    /// Events per LP per unit of simulated time.
    pub event_rate_per_lp: f64,
    /// Its long-run value, population / (lookahead + mean).
    pub expected_event_rate_per_lp: f64,
    /// Events at the busiest LP.
    pub busiest_lp_events: u32,
    /// Σ of the pending event times in ticks, wrapping (changes with any event).
    pub time_checksum: u64,
    /// Σ of the tokens' hop counts (= events + tokens: every event is one hop).
    pub hop_sum: u64,
}

impl Summary {
    /// The summary of `state` after a run of `cfg` on `engine`.
    pub fn new(
        cfg: &PholdConfig,
        engine: &'static str,
        state: &PholdState,
        t: &StepTotals,
    ) -> Self {
        let (time_checksum, hop_sum) = state.checksums();
        Self {
            model: "phold",
            algorithm: cfg.algorithm.name(),
            engine,
            lps: cfg.lps,
            population: cfg.population,
            remote: cfg.remote,
            lookahead: cfg.lookahead,
            mean: cfg.mean,
            end_time: cfg.end_time,
            seed: cfg.seed,
            events: t.events,
            steps: t.steps,
            mean_events_per_step: if t.steps == 0 {
                0.0
            } else {
                t.events as f64 / t.steps as f64
            },
            max_events_per_step: t.max_events_per_step,
            event_rate_per_lp: t.events as f64 / (f64::from(cfg.lps) * cfg.end_time),
            expected_event_rate_per_lp: cfg.event_rate_per_lp(),
            busiest_lp_events: state.counts.iter().copied().max().unwrap_or(0),
            time_checksum,
            hop_sum,
        }
    }
}

impl ModelSummary for Summary {
    const WORK: &'static str = "events";
    const RATE: &'static str = "events_per_second";
    fn statistics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("event_rate_per_lp", self.event_rate_per_lp),
            ("mean_events_per_step", self.mean_events_per_step),
        ]
    }
}
