//! The open network's CPU engines behind the common interfaces ([`Engine`] for the command
//! line, [`LiveEngine`] for the window) and its summary (the JSON fields).

use super::config::OpenConfig;
use super::gpu::GpuOpen;
use super::sequential::Sequential;
use super::state::{Measures, OpenState};
use super::two_phase::Stepped;
use crate::config::Config;
use crate::queueing::Algorithm;
use crate::torus::ServiceKind;
use pdes_core::sim::{Engine, ModelSummary, SimError, StepTotals};
use pdes_core::time::{Ticks, to_units};
use pdes_gpu::Gpu;
use pdes_gpu::{LiveEngine, Sample};
use serde::Serialize;
use std::sync::Arc;

/// The simulator a configuration asks for.
type Run = crate::queueing::CpuRun<Sequential, Stepped>;

/// A CPU engine of the open network with the configuration its summary describes.
#[derive(Clone, Debug)]
pub struct OpenEngine {
    run: Run,
    /// Its configuration.
    pub config: OpenConfig,
}

impl OpenEngine {
    /// The engine `cfg` asks for, at time 0 with an empty network.
    pub fn new(cfg: &OpenConfig) -> Self {
        let state = OpenState::new(&cfg.model, cfg.laws(), cfg.run.seed)
            .with_warmup(cfg.run.warmup_ticks());
        let end = cfg.end_ticks();
        let run = Run::start(state, cfg.run.step_rule(), end);
        Self {
            run,
            config: cfg.clone(),
        }
    }

    /// The network state.
    pub fn state(&self) -> &OpenState {
        self.run.state()
    }

    /// The statistics as of `min(now, end)`; fails if a token was lost or duplicated.
    pub fn summary(&self) -> Result<OpenSummary, SimError> {
        self.state()
            .check_tokens()
            .map_err(SimError::TokenConservation)?;
        let horizon = self.now().min(self.config.end_ticks()).max(1);
        Ok(OpenSummary::new(
            &self.config,
            "cpu",
            &self.totals(),
            &self.state().measures(horizon),
        ))
    }
}

impl Engine for OpenEngine {
    crate::queueing::cpu_run_engine!(run);
}

impl LiveEngine for OpenEngine {
    fn write_display(&self, gpu: &Gpu, buf: &wgpu::Buffer) {
        if let Ok(words) = self.display_words() {
            gpu.queue.write_buffer(buf, 0, bytemuck::cast_slice(&words));
        }
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        let errors = self.run.last_error_steps();
        Ok(self
            .state()
            .occupancy()
            .into_iter()
            .enumerate()
            .map(|(f, o)| [o, errors.get(f).copied().unwrap_or(0)])
            .collect())
    }
    fn sample(&self, now: Ticks) -> Result<Sample, SimError> {
        let horizon = now.min(self.config.end_ticks()).max(1);
        Ok(open_sample(self, &self.state().measures(horizon)))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// A plot sample from the measures `run` reports at `m.horizon` (busy time up to it with
/// the services in progress, from the warm-up on), on either engine: at a run's end the
/// window's monitors and exports show exactly what `pdes-lab run` prints.
fn open_sample(engine: &dyn Engine, m: &Measures) -> Sample {
    let totals = engine.totals();
    Sample {
        time: to_units(m.horizon),
        steps: totals.steps,
        events: totals.events,
        utilization: m.utilization(),
        sojourn: m.mean_sojourn(),
        causality_errors: m.causality_errors,
        completions: m.completions,
        tokens_in_system: m.in_system as f64,
        mean_tokens_in_system: m.mean_tokens_in_system(),
        ..Sample::default()
    }
}

/// The registry's constructor: the GPU engine when `device` is given, else the CPU one.
pub fn build(config: &Config, device: Option<Arc<Gpu>>) -> Result<Box<dyn LiveEngine>, SimError> {
    let Some(c) = config.get::<OpenConfig>() else {
        return Err(SimError::Gpu("not an open-network configuration".into()));
    };
    Ok(match device {
        Some(g) => Box::new(GpuOpen::new(g, c)?),
        None => Box::new(OpenEngine::new(c)),
    })
}

impl LiveEngine for GpuOpen {
    fn gpu_memory_bytes(&self) -> Option<u64> {
        Some(self.memory_bytes)
    }
    fn write_display(&self, _gpu: &Gpu, buf: &wgpu::Buffer) {
        GpuOpen::write_display(self, buf);
    }
    fn display_words(&self) -> Result<Vec<[u32; 2]>, SimError> {
        GpuOpen::display_words(self)
    }
    fn sample(&self, _now: Ticks) -> Result<Sample, SimError> {
        Ok(open_sample(self, &self.live_measures()?))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The registry's CPU memory estimate: facilities, and a token pool of the order of the
/// Jackson mean number in the system (it grows as needed).
pub fn cpu_bytes(config: &Config) -> u64 {
    config
        .get::<OpenConfig>()
        .map_or(0, |c| u64::from(c.model.facilities()) * 96)
}

/// The statistics of an open-network run (stable JSON field names).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpenSummary {
    /// Always "open-network".
    pub model: &'static str,
    /// Algorithm name.
    pub algorithm: &'static str,
    /// Timestamps rule for `interval` (else null).
    pub timestamps: Option<&'static str>,
    /// Engine name.
    pub engine: &'static str,
    /// Tandem lines.
    pub lines: u32,
    /// Servers per line.
    pub servers_per_line: u32,
    /// External arrival rate λ.
    pub arrival_rate: f64,
    /// Probability of leaving after a line's last server.
    pub exit_probability: f64,
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
    /// Events processed (departures and external arrivals).
    pub events: u64,
    /// Steps taken.
    pub steps: u64,
    /// Mean events per step.
    pub mean_events_per_step: f64,
    /// Most events in one step.
    pub max_events_per_step: u64,
    /// Time-average utilization over all facilities.
    pub utilization: f64,
    /// Mean sojourn per facility visit.
    pub mean_sojourn: f64,
    /// Exits per unit of simulated time.
    pub throughput: f64,
    /// Causality errors (interval/original).
    pub causality_errors: u64,
    /// External arrivals.
    pub arrivals: u64,
    /// Tokens that left.
    pub exits: u64,
    /// Tokens in the system at the end (= arrivals − exits, checked).
    pub tokens_in_system: u64,
    /// Time-average tokens in the system.
    pub mean_tokens_in_system: f64,
    /// Mean time from arrival to exit of the tokens that left.
    pub mean_system_time: f64,
    /// Wall-clock seconds of the run (filled in by the caller).
    pub wall_seconds: f64,
    /// Events per wall-clock second.
    pub events_per_second: f64,
    /// Jackson utilization ρ for exponential service, else null.
    pub analytic_utilization: Option<f64>,
    /// Jackson sojourn per visit M/(1 − ρ), else null.
    pub analytic_sojourn: Option<f64>,
    /// Jackson mean tokens in the system, else null.
    pub analytic_tokens_in_system: Option<f64>,
    /// Jackson mean system time, else null.
    pub analytic_system_time: Option<f64>,
    /// Jackson utilization of the same network with exponential service (what shifted
    /// service departs from).
    pub exponential_utilization: f64,
    /// Jackson sojourn per visit with exponential service.
    pub exponential_sojourn: f64,
    /// Jackson mean tokens in the system with exponential service.
    pub exponential_tokens_in_system: f64,
    /// Jackson mean system time with exponential service.
    pub exponential_system_time: f64,
}

impl OpenSummary {
    /// The summary of a run of `cfg` on `engine` ("cpu" or "gpu").
    pub fn new(cfg: &OpenConfig, engine: &'static str, totals: &StepTotals, m: &Measures) -> Self {
        let p = &cfg.model;
        let exponential = p.service == ServiceKind::Exponential;
        let exact = |v: f64| exponential.then_some(v);
        Self {
            model: "open-network",
            algorithm: cfg.run.algorithm.name(),
            timestamps: (cfg.run.algorithm == Algorithm::Interval)
                .then(|| cfg.run.timestamps.name()),
            engine,
            lines: p.lines,
            servers_per_line: p.servers_per_line,
            arrival_rate: p.arrival_rate,
            exit_probability: p.exit_probability,
            mean_service: p.mean_service,
            service: p.service.name(),
            d: cfg.run.d,
            end_time: cfg.run.end_time,
            warmup: cfg.run.warmup,
            sim_time: to_units(m.covered()),
            seed: cfg.run.seed,
            events: totals.events,
            steps: totals.steps,
            mean_events_per_step: totals.events as f64 / totals.steps.max(1) as f64,
            max_events_per_step: totals.max_events_per_step,
            utilization: m.utilization(),
            mean_sojourn: m.mean_sojourn(),
            throughput: m.throughput(),
            causality_errors: m.causality_errors,
            arrivals: m.arrivals,
            exits: m.exits,
            tokens_in_system: m.in_system,
            mean_tokens_in_system: m.mean_tokens_in_system(),
            mean_system_time: m.mean_system_time(),
            wall_seconds: 0.0,
            events_per_second: 0.0,
            analytic_utilization: exact(p.rho()),
            analytic_sojourn: exact(p.analytic_sojourn()),
            analytic_tokens_in_system: exact(p.analytic_tokens_in_system()),
            analytic_system_time: exact(p.analytic_system_time()),
            exponential_utilization: p.rho(),
            exponential_sojourn: p.analytic_sojourn(),
            exponential_tokens_in_system: p.analytic_tokens_in_system(),
            exponential_system_time: p.analytic_system_time(),
        }
    }
}

impl ModelSummary for OpenSummary {
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
