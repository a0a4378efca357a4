//! The network's engines behind the common interfaces ([`Engine`] for the command line,
//! [`LiveEngine`] for the window) and its summary: the network's totals, their exact values
//! where they exist, and one row per station.

use super::config::NetworkConfig;
use super::engines::{Sequential, Stepped};
use super::gpu::GpuNetwork;
use super::measures::Measures;
use super::state::NetState;
use crate::config::{Config, ModelConfig};
use crate::queueing::Algorithm;
use pdes_core::sim::{Engine, ModelSummary, SimError, StepTotals};
use pdes_core::time::{Ticks, to_units};
use pdes_gpu::Gpu;
use pdes_gpu::{LiveEngine, NEXT_STEP_BIT, Sample};
use serde::Serialize;
use std::sync::Arc;

/// The most stations whose rows a summary lists (a row per station of a million-station
/// benchmark would be a 200 MB summary).
pub const MAX_ROWS: usize = 1000;

/// The simulator a configuration asks for.
type Run = crate::queueing::CpuRun<Sequential, Stepped>;

/// A network simulation on the CPU: sequential, window or interval.
#[derive(Clone, Debug)]
pub struct NetEngine {
    run: Run,
    /// Its configuration.
    pub config: NetworkConfig,
}

impl NetEngine {
    /// The simulation of `cfg` at time 0.
    pub fn new(cfg: &NetworkConfig) -> Self {
        let state = NetState::new(&cfg.network, cfg.run.seed, cfg.run.warmup_ticks());
        let end = cfg.end_ticks();
        let run = Run::start(state, cfg.run.step_rule(), end);
        Self {
            run,
            config: cfg.clone(),
        }
    }

    /// The most recent causality errors of a stepped run, oldest first (none for the
    /// sequential algorithm).
    pub fn violations(&self) -> impl Iterator<Item = &crate::queueing::Violation> {
        match &self.run {
            Run::Stepped(s) => Some(s.violations.iter()),
            Run::Sequential(_) => None,
        }
        .into_iter()
        .flatten()
    }

    /// The state.
    pub fn state(&self) -> &NetState {
        self.run.state()
    }

    /// The summary so far (tokens checked first).
    pub fn summary(&self) -> Result<NetworkSummary, SimError> {
        self.state()
            .check_tokens()
            .map_err(SimError::TokenConservation)?;
        let horizon = self.now().min(self.config.end_ticks()).max(1);
        Ok(NetworkSummary::new(
            &self.config,
            &self.totals(),
            &self.state().measures(horizon),
        )
        .with_counts(self.state()))
    }
}

impl Engine for NetEngine {
    crate::queueing::cpu_run_engine!(run);
}

impl LiveEngine for NetEngine {
    fn write_display(&self, gpu: &Gpu, buf: &wgpu::Buffer) {
        if let Ok(words) = self.display_words() {
            gpu.queue.write_buffer(buf, 0, bytemuck::cast_slice(&words));
        }
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        Ok(display_words(
            self.state(),
            self.run.last_error_steps(),
            next_bound(&self.config, self.now()),
            &self.config,
        ))
    }
    fn sample(&self, now: Ticks) -> Result<Sample, SimError> {
        Ok(sample_of(self.state(), &self.config, &self.totals(), now))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The inclusive bound of the next step's event times from `now` (its window or interval),
/// or `None` for the sequential algorithm.
pub fn next_bound(cfg: &NetworkConfig, now: Ticks) -> Option<Ticks> {
    cfg.run
        .step_rule()
        .map(|rule| rule.bound(now, cfg.end_ticks()).0)
}

/// The heatmap's words: each station's tokens present (bit 31, [`NEXT_STEP_BIT`]: its next
/// event lies within `bound`, the next step's — the outline, and the window's "cells the
/// last step ran") and the step of its latest causality error, laid out on the heatmap of
/// `cfg` (a tandem's lines as rows, …: [`ModelConfig::shape`]).
pub fn display_words(
    state: &NetState,
    last_error_step: &[u32],
    bound: Option<Ticks>,
    cfg: &NetworkConfig,
) -> Vec<[u32; 2]> {
    let (rows, cols) = cfg.shape();
    let mut words = vec![[0u32; 2]; (rows * cols) as usize];
    let next = match bound {
        Some(_) => state.next_events(),
        None => Vec::new(),
    };
    for (i, st) in state.stations.iter().enumerate() {
        let due = bound.is_some_and(|b| next[i] <= b);
        let mark = if due { NEXT_STEP_BIT } else { 0 };
        words[i] = [
            st.present | mark,
            last_error_step.get(i).copied().unwrap_or(0),
        ];
    }
    words
}

/// A live sample of `state` as of `now` (the summary's definitions).
pub fn sample_of(state: &NetState, cfg: &NetworkConfig, totals: &StepTotals, now: Ticks) -> Sample {
    let horizon = now.min(cfg.end_ticks()).max(1);
    let m = state.measures(horizon);
    Sample {
        time: to_units(m.horizon),
        steps: totals.steps,
        events: totals.events,
        utilization: m.utilization,
        sojourn: m.mean_sojourn,
        causality_errors: m.causality_errors,
        completions: m.completions,
        tokens_in_system: state.in_system as f64,
        mean_tokens_in_system: m.mean_tokens,
        ..Sample::default()
    }
}

/// The registry's factory: the GPU engine when `device` is given (window and interval; on a
/// page's device too, whose readbacks come a frame later: the state comes back with each
/// control block), else the CPU engine.
pub fn build(config: &Config, device: Option<Arc<Gpu>>) -> Result<Box<dyn LiveEngine>, SimError> {
    let Some(c) = config.get::<NetworkConfig>() else {
        return Err(SimError::Gpu("not a network configuration".into()));
    };
    Ok(match device {
        Some(g) if c.run.step_rule().is_some() => Box::new(GpuNetwork::new(g, c)?),
        _ => Box::new(NetEngine::new(c)),
    })
}

impl LiveEngine for GpuNetwork {
    fn gpu_memory_bytes(&self) -> Option<u64> {
        Some(self.memory_bytes)
    }
    fn write_display(&self, gpu: &Gpu, buf: &wgpu::Buffer) {
        if let Ok(words) = self.display_words() {
            gpu.queue.write_buffer(buf, 0, bytemuck::cast_slice(&words));
        }
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        let (state, errors) = self.download_state()?;
        Ok(display_words(
            &state,
            &errors,
            next_bound(self.config(), self.now()),
            self.config(),
        ))
    }
    fn sample(&self, now: Ticks) -> Result<Sample, SimError> {
        let (state, _) = self.download_state()?;
        Ok(sample_of(&state, self.config(), &self.totals(), now))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Bytes the CPU engine allocates, before tokens: stations, servers, routes.
pub fn cpu_bytes(config: &Config) -> u64 {
    config.get::<NetworkConfig>().map_or(0, |c| {
        let n = &c.network;
        let routes = n.distinct_routes();
        n.stations.len() as u64 * 200 + n.servers() * 24 + routes * 40 + n.population() * 40
    })
}

/// One station's row of the summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StationRow {
    /// Name.
    pub name: String,
    /// Servers.
    pub servers: u32,
    /// Busy fraction of its servers.
    pub utilization: f64,
    /// Time-average number present.
    pub mean_number: f64,
    /// Completed visits per time unit.
    pub throughput: f64,
    /// Mean time per visit.
    pub mean_sojourn: f64,
    /// Causality errors.
    pub causality_errors: u64,
    /// Exact utilization (exponential service), else null.
    pub analytic_utilization: Option<f64>,
    /// Exact mean number.
    pub analytic_mean_number: Option<f64>,
    /// Exact throughput.
    pub analytic_throughput: Option<f64>,
    /// Exact mean time per visit.
    pub analytic_mean_sojourn: Option<f64>,
}

/// The summary of a network run (the JSON fields; `stations` holds the rows of networks of
/// at most [`MAX_ROWS`] stations).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NetworkSummary {
    /// "network".
    pub model: &'static str,
    /// Algorithm.
    pub algorithm: &'static str,
    /// Timestamps of interval.
    pub timestamps: Option<&'static str>,
    /// Engine.
    pub engine: &'static str,
    /// Stations.
    pub station_count: usize,
    /// Servers in all.
    pub servers: u64,
    /// Open (external arrivals) or closed.
    pub open: bool,
    /// d.
    pub d: f64,
    /// End time.
    pub end_time: f64,
    /// Warm-up.
    pub warmup: f64,
    /// Time the statistics cover.
    pub sim_time: f64,
    /// Seed.
    pub seed: u64,
    /// Events.
    pub events: u64,
    /// Steps.
    pub steps: u64,
    /// Events per step.
    pub mean_events_per_step: f64,
    /// Most events in one step.
    pub max_events_per_step: u64,
    /// Busy fraction over all servers.
    pub utilization: f64,
    /// Mean time per visit.
    pub mean_sojourn: f64,
    /// Exits (open) or completed visits (closed) per time unit.
    pub throughput: f64,
    /// Causality errors.
    pub causality_errors: u64,
    /// External arrivals.
    pub arrivals: u64,
    /// Exits.
    pub exits: u64,
    /// Tokens in the network at the end.
    pub tokens_in_system: u64,
    /// Time-average tokens in the network.
    pub mean_tokens_in_system: f64,
    /// Mean time from entering to exiting.
    pub mean_system_time: f64,
    /// Whole command's seconds (filled by the runner).
    pub wall_seconds: f64,
    /// Events per wall-clock second.
    pub events_per_second: f64,
    /// Exact utilization over all servers (Jackson or MVA), else null.
    pub analytic_utilization: Option<f64>,
    /// Exact mean time per visit.
    pub analytic_mean_sojourn: Option<f64>,
    /// Exact mean tokens in the network.
    pub analytic_tokens_in_system: Option<f64>,
    /// Exact mean time in the network (open, Jackson).
    pub analytic_system_time: Option<f64>,
    /// Exact throughput.
    pub analytic_throughput: Option<f64>,
    /// Why there is no exact value, if there is none.
    pub analytic_note: Option<String>,
    /// One row per station.
    pub stations: Option<Vec<StationRow>>,
}

impl NetworkSummary {
    /// The summary of `cfg` with `totals` and the measures `m`.
    pub fn new(cfg: &NetworkConfig, totals: &StepTotals, m: &Measures) -> Self {
        let net = &cfg.network;
        let (values, note) = match cfg.exact() {
            Ok(v) => (Some(v), None),
            Err(why) => (None, Some(why.clone())),
        };
        let rows = (net.stations.len() <= MAX_ROWS).then(|| {
            net.stations
                .iter()
                .zip(&m.stations)
                .enumerate()
                .map(|(i, (s, sm))| {
                    let v = values.map(|v| v.stations[i]);
                    StationRow {
                        name: s.name.clone(),
                        servers: s.servers,
                        utilization: sm.utilization,
                        mean_number: sm.mean_number,
                        throughput: sm.throughput,
                        mean_sojourn: sm.mean_sojourn,
                        causality_errors: sm.causality_errors,
                        analytic_utilization: v.map(|v| v.utilization),
                        analytic_mean_number: v.map(|v| v.mean_number),
                        analytic_throughput: v.map(|v| v.throughput),
                        analytic_mean_sojourn: v.map(|v| v.mean_sojourn),
                    }
                })
                .collect()
        });
        let state_steps = totals.steps.max(1);
        Self {
            model: "network",
            algorithm: cfg.run.algorithm.name(),
            timestamps: (cfg.run.algorithm == Algorithm::Interval)
                .then(|| cfg.run.timestamps.name()),
            engine: "cpu",
            station_count: net.stations.len(),
            servers: net.servers(),
            open: net.is_open(),
            d: cfg.run.d,
            end_time: cfg.run.end_time,
            warmup: cfg.run.warmup,
            sim_time: to_units(m.covered),
            seed: cfg.run.seed,
            events: totals.events,
            steps: totals.steps,
            mean_events_per_step: totals.events as f64 / state_steps as f64,
            max_events_per_step: totals.max_events_per_step,
            utilization: m.utilization,
            mean_sojourn: m.mean_sojourn,
            throughput: m.throughput,
            causality_errors: m.causality_errors,
            arrivals: 0,
            exits: 0,
            tokens_in_system: 0,
            mean_tokens_in_system: m.mean_tokens,
            mean_system_time: m.mean_system_time,
            wall_seconds: 0.0,
            events_per_second: 0.0,
            analytic_utilization: values.map(|v| v.utilization),
            analytic_mean_sojourn: values.map(|v| v.mean_sojourn),
            analytic_tokens_in_system: values.map(|v| v.mean_tokens),
            analytic_system_time: values.and_then(|v| v.mean_system_time),
            analytic_throughput: values.map(|v| v.throughput),
            analytic_note: note,
            stations: rows,
        }
    }

    /// With the state's counts of arrivals, exits and tokens present.
    pub fn with_counts(mut self, state: &NetState) -> Self {
        self.arrivals = state.arrivals;
        self.exits = state.exits;
        self.tokens_in_system = state.in_system;
        self
    }
}

impl ModelSummary for NetworkSummary {
    const WORK: &'static str = "events";
    const RATE: &'static str = "events_per_second";
    fn statistics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("utilization", self.utilization),
            ("mean_sojourn", self.mean_sojourn),
            ("throughput", self.throughput),
            ("mean_tokens_in_system", self.mean_tokens_in_system),
        ]
    }
}
