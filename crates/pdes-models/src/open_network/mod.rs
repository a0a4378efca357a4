//! The open queueing network of Park & Fishwick (paper 002 §4.2.2, Fig. 2): `lines` tandem
//! lines of `servers_per_line` single-server FIFO facilities, fed by Poisson arrivals of
//! rate λ (each to a uniformly chosen line). After a line's last server a token leaves with
//! probability `exit_probability`, otherwise it passes a zero-time switch to a uniformly
//! chosen line. Tokens are created and destroyed, so the state keeps a token pool.
//!
//! This folder holds everything of the model: parameters and their preset keys
//! (`config.rs`, serde), the CPU engines (`sequential`, the stepped window/interval engine)
//! behind the common interfaces (`engine.rs`), the GPU engine with its token pool
//! (`gpu.rs`, `shaders/`, checked against the CPU twin by `verify.rs`), the window's panel
//! and form, and its registry entry ([`INFO`]).
//!
//! Randomness is a pure function of the seed and of *which* token it is (its arrival
//! number, not its pool slot), so any engine that reuses slots in another order still
//! draws the same numbers: a visit's words are Philox of (seed, arrival number, visit);
//! the arrival stream's are Philox of (seed, arrival number) under another key.

pub mod config;
pub mod engine;
pub mod gpu;
mod gpu_setup;
pub mod sequential;
pub mod shaders;
pub mod state;
pub mod two_phase;
pub mod verify;

use crate::config::PresetError;
use crate::torus::{ServiceKind, ServiceLaw};
use pdes_core::time::{TICKS_PER_UNIT, Ticks};

/// Validated parameters of an open network.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenParams {
    /// Tandem lines (the heatmap's rows).
    pub lines: u32,
    /// Servers per line (the heatmap's columns).
    pub servers_per_line: u32,
    /// External arrival rate λ (tokens per time unit, whole network).
    pub arrival_rate: f64,
    /// Probability that a token leaves after a line's last server.
    pub exit_probability: f64,
    /// Mean service time M.
    pub mean_service: f64,
    /// Service-time distribution.
    pub service: ServiceKind,
}

impl OpenParams {
    /// Facilities in all.
    pub fn facilities(&self) -> u32 {
        self.lines * self.servers_per_line
    }

    /// Utilization of every server with exponential service and a zero-time switch:
    /// each line receives λ / (lines · P_exit) tokens per unit (the external share plus the
    /// recirculated ones), so ρ = λM / (lines · P_exit).
    pub fn rho(&self) -> f64 {
        self.arrival_rate * self.mean_service / (f64::from(self.lines) * self.exit_probability)
    }

    /// Checks the ranges (the keys' table) and the stability condition ρ < 1; a refusal
    /// names the key and the range.
    pub fn validate(&self) -> Result<(), PresetError> {
        config::LINES.whole(self.lines)?;
        config::SERVERS_PER_LINE.whole(self.servers_per_line)?;
        config::ARRIVAL_RATE.number(self.arrival_rate)?;
        config::EXIT_PROBABILITY.number(self.exit_probability)?;
        crate::torus::config::MEAN_SERVICE.number(self.mean_service)?;
        let rho = self.rho();
        if rho >= 1.0 {
            return Err(config::ARRIVAL_RATE.refuse_as(
                self.arrival_rate,
                format!(
                    "a number below lines·P_exit/M = {}·{}/{} = {} (every server's utilization ρ = λM/(lines·P_exit) must be below 1; here ρ = {rho})",
                    self.lines,
                    self.exit_probability,
                    self.mean_service,
                    f64::from(self.lines) * self.exit_probability / self.mean_service
                ),
            ));
        }
        Ok(())
    }

    /// Mean sojourn per facility visit for exponential service: M / (1 − ρ).
    pub fn analytic_sojourn(&self) -> f64 {
        self.mean_service / (1.0 - self.rho())
    }

    /// Mean tokens in the system for exponential service: lines · servers · ρ / (1 − ρ).
    pub fn analytic_tokens_in_system(&self) -> f64 {
        let rho = self.rho();
        f64::from(self.facilities()) * rho / (1.0 - rho)
    }

    /// Mean time from arrival to exit for exponential service: servers · M / (P_exit (1 − ρ))
    /// (a token passes a line 1/P_exit times on average).
    pub fn analytic_system_time(&self) -> f64 {
        f64::from(self.servers_per_line) * self.mean_service
            / (self.exit_probability * (1.0 - self.rho()))
    }
}

/// Philox key word that separates the arrival stream from the tokens' visit streams.
const ARRIVAL_STREAM: u32 = 0xA221_7A15;

/// The four random words of visit `visit` of the token that arrived `arrival`-th.
#[inline]
pub fn visit_words(seed: u64, arrival: u64, visit: u32) -> [u32; 4] {
    pdes_core::rng::philox4x32_10(
        [visit, (arrival >> 32) as u32, (seed >> 32) as u32, 0],
        [arrival as u32, seed as u32],
    )
}

/// The four random words of the `arrival`-th external arrival.
#[inline]
pub fn arrival_words(seed: u64, arrival: u64) -> [u32; 4] {
    pdes_core::rng::philox4x32_10(
        [
            arrival as u32,
            (arrival >> 32) as u32,
            (seed >> 32) as u32,
            0,
        ],
        [ARRIVAL_STREAM, seed as u32],
    )
}

/// A uniform choice among `n` from one random word (multiply-high: no modulo bias beyond
/// 2^-32, and the same integers on every device).
#[inline]
pub fn choose(word: u32, n: u32) -> u32 {
    ((u64::from(word) * u64::from(n)) >> 32) as u32
}

/// True with probability `p_q32 / 2^32`.
#[inline]
pub fn bernoulli(word: u32, p_q32: u64) -> bool {
    u64::from(word) < p_q32
}

/// The laws and thresholds of a run, in ticks and fixed point (what every engine uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Laws {
    /// Service time: shift + Exp · scale.
    pub service: ServiceLaw,
    /// Mean interarrival time 1/λ, in ticks (below 2^32).
    pub interarrival: u32,
    /// P_exit · 2^32.
    pub exit_q32: u64,
}

impl Laws {
    /// The laws of `p` with interval `d` (the shift of shifted service).
    pub fn new(p: &OpenParams, d: f64) -> Self {
        Self {
            service: ServiceLaw::new(p.service, p.mean_service, d),
            interarrival: ((1.0 / p.arrival_rate) * TICKS_PER_UNIT)
                .round()
                .min(f64::from(u32::MAX)) as u32,
            exit_q32: (p.exit_probability * 4_294_967_296.0).round() as u64,
        }
    }

    /// Time between arrival `k - 1` and arrival `k` (word 0 of its words).
    #[inline]
    pub fn gap(&self, words: &[u32; 4]) -> Ticks {
        pdes_core::rng::scale_q27(pdes_core::rng::neg_ln_q27(words[0]), self.interarrival)
    }
}

/// The open network in the model registry.
pub static INFO: crate::config::ModelInfo = crate::config::ModelInfo {
    kind: "open-network",
    label: "open network",
    description: "Open queueing network",
    about: "The open network of Park & Fishwick (paper 002 §4.2.2): tandem lines of single-server queues fed by Poisson arrivals; after a line a token leaves or is switched to a random line.",
    teaching_preset: "teaching-open",
    parse: config::parse,
    presets: &[
        (
            "teaching-open",
            include_str!("../../../../presets/teaching-open.toml"),
        ),
        (
            "park-fishwick-open",
            include_str!("../../../../presets/park-fishwick-open.toml"),
        ),
        (
            "park-fishwick-fig3-open",
            include_str!("../../../../presets/park-fishwick-fig3-open.toml"),
        ),
    ],
    keys: config::KEYS,
    size_keys: "model.lines × model.servers_per_line",
    shader_modules: shaders::modules,
    verify: crate::twins::twin_checks::<verify::OpenTwins>,
    verify_once: verify::check_once,
    cpu_bytes: engine::cpu_bytes,
    build: engine::build,
    replicas: None,
    spread: None,
    page_checks: Some(|gpu| Box::pin(crate::twins::twin_page_checks::<verify::OpenTwins>(gpu))),
    info: include_str!("info.md"),
    algorithms: &[
        crate::config::AlgorithmInfo::new("sequential", "sequential", "One event at a time from a priority queue, the external arrivals included: exact, the ground truth.").exact().cpu_only(),
        crate::config::AlgorithmInfo::new("window", "window", "Every event in [t_min, t_min + d) at once; exact with shifted service (no service shorter than d), external arrivals included.").exact(),
        crate::config::AlgorithmInfo::new("interval-original", "interval / original", "Every event up to the next multiple of d at once, with its own timestamp: causality errors happen.").runs("interval", Some("original")),
        crate::config::AlgorithmInfo::new("interval-boundary", "interval / boundary", "Park & Fishwick 2009: every event up to the next multiple of d happens at that boundary. Tokens are held longer, so an open network fills up as d grows (paper 002 Fig. 3).").runs("interval", Some("boundary")),
    ],
};
