//! The torus's CPU engines behind the common [`Engine`] interface: the sequential and
//! stepped simulators with the configuration their summary describes.

use super::sequential;
use super::state::{self, TorusState};
use super::stats::{self, Summary};
use super::two_phase;
use crate::torus::config::TorusConfig;
use pdes_core::sim::{Engine, SimError};

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
pub type CpuTorus = crate::queueing::CpuRun<sequential::Sequential, two_phase::Stepped>;

impl CpuTorus {
    /// Builds the engine a validated configuration asks for.
    pub fn new(cfg: &TorusConfig) -> Self {
        let state = TorusState::new(&cfg.model, cfg.service_law(), cfg.run.seed)
            .with_warmup(cfg.run.warmup_ticks());
        Self::start(state, cfg.run.step_rule(), cfg.end_ticks())
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
    crate::queueing::cpu_run_engine!(cpu);
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
