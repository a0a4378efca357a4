//! The torus's CPU engines behind the common [`Engine`] interface: the sequential and
//! stepped simulators with the configuration their summary describes.

use super::sequential;
use super::state::{self, TorusState};
use super::stats::{self, Summary};
use super::two_phase;
use crate::torus::config::TorusConfig;
use pdes_core::sim::{Budget, Engine, Report, SimError, StepRecord, StepTotals};
use pdes_core::time::Ticks;

/// Bytes the CPU state of a torus run takes (facility records, token records, outboxes).
pub fn cpu_memory_bytes(cfg: &TorusConfig) -> u64 {
    let k = u64::from(cfg.model.facilities());
    let n = u64::from(cfg.model.tokens());
    k * (std::mem::size_of::<state::Facility>() as u64 + 24)
        + n * std::mem::size_of::<state::Token>() as u64
}

/// What the torus engines offer beyond [`Engine`].
pub trait TorusEngine: Engine {
    /// Statistics as of `min(now, end)`; fails if a token was lost or duplicated.
    fn summary(&mut self) -> Result<Summary, SimError>;
    /// Tokens at every facility, row-major (what the heatmap draws).
    fn occupancy(&mut self) -> Result<Vec<u32>, SimError>;
}

/// The CPU engines of the torus network.
#[derive(Clone, Debug)]
pub enum CpuTorus {
    /// Future-event-list simulator.
    Sequential(sequential::Sequential),
    /// Window or interval two-phase steps.
    Stepped(two_phase::Stepped),
}

impl CpuTorus {
    /// Builds the engine a validated configuration asks for.
    pub fn new(cfg: &TorusConfig) -> Self {
        let state = TorusState::new(&cfg.model, cfg.service_law(), cfg.run.seed)
            .with_warmup(cfg.run.warmup_ticks());
        let end = cfg.end_ticks();
        match cfg.run.step_rule() {
            None => Self::Sequential(sequential::Sequential::new(state, end)),
            Some(rule) => Self::Stepped(two_phase::Stepped::new(state, rule, end)),
        }
    }

    /// The network state.
    pub fn state(&self) -> &TorusState {
        match self {
            Self::Sequential(s) => &s.state,
            Self::Stepped(s) => &s.state,
        }
    }
}

/// A CPU engine together with the configuration its summary describes.
#[derive(Clone, Debug)]
pub struct CpuEngine {
    /// The engine.
    pub cpu: CpuTorus,
    /// Its configuration.
    pub config: TorusConfig,
}

impl Engine for CpuEngine {
    fn advance(&mut self, budget: Budget) -> Result<(), SimError> {
        match &mut self.cpu {
            CpuTorus::Sequential(s) => s.advance(budget),
            CpuTorus::Stepped(s) => s.advance(budget),
        }
        Ok(())
    }
    fn now(&self) -> Ticks {
        match &self.cpu {
            CpuTorus::Sequential(s) => s.now(),
            CpuTorus::Stepped(s) => s.now(),
        }
    }
    fn finished(&self) -> bool {
        self.now() >= self.config.end_ticks()
    }
    fn totals(&self) -> StepTotals {
        match &self.cpu {
            CpuTorus::Sequential(s) => s.totals().clone(),
            CpuTorus::Stepped(s) => s.totals().clone(),
        }
    }
    fn step_log(&self) -> &[StepRecord] {
        match &self.cpu {
            CpuTorus::Sequential(_) => &[],
            CpuTorus::Stepped(s) => s.log(),
        }
    }
    fn step_stride(&self) -> u64 {
        match &self.cpu {
            CpuTorus::Sequential(_) => 1,
            CpuTorus::Stepped(s) => s.log().stride(),
        }
    }
    fn report(&mut self) -> Result<Report, SimError> {
        Ok(Report::of(&self.summary()?))
    }
}

impl TorusEngine for CpuEngine {
    fn summary(&mut self) -> Result<Summary, SimError> {
        let horizon = self.now().min(self.config.end_ticks());
        let measures = stats::measure(self.cpu.state(), horizon)?;
        Ok(Summary::new(&self.config, &self.totals(), &measures))
    }
    fn occupancy(&mut self) -> Result<Vec<u32>, SimError> {
        Ok(self.cpu.state().occupancy())
    }
}
