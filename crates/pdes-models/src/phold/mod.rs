//! PHOLD, the PDES community's synthetic benchmark (ROSS's parameterization): N logical
//! processes (LPs), `population` events per LP at the start; an event at an LP schedules
//! one new event, at a destination that is uniform over all LPs with probability `remote`
//! and the LP itself otherwise, at t + lookahead + Exp(mean).
//!
//! Each event is a token that hops from LP to LP; its random draws are a pure function of
//! (seed, token, hop) — Philox words, as the torus keys its tokens — so the sample path does
//! not depend on the order in which simultaneous work is done. That is what lets the window
//! algorithm (every event with t < t_min + lookahead in one step: nothing such an event
//! schedules can fall inside the window) reproduce the sequential simulator exactly, and the
//! GPU reproduce the CPU bit for bit. Times are integer ticks (`pdes_core::time`).
//!
//! - [`cpu`]: the sequential simulator (the torus's calendar queue; the ground truth) and the window
//!   algorithm's CPU twin of the GPU engine;
//! - [`gpu`] + `shaders/phold.wgsl`: the window algorithm as two passes per step (process,
//!   reduce), many steps per submit, read back once per batch.

pub mod config;
pub mod cpu;
pub mod gpu;
pub mod live;
pub mod summary;
pub mod verify;

#[cfg(test)]
mod tests;

use crate::torus::ServiceLaw;
use pdes_core::rng;
use pdes_core::time::Ticks;

/// Never (a run's end when no event is left; not reached in PHOLD, whose population is
/// constant).
pub const NEVER: Ticks = Ticks::MAX;

/// One pending event: the token's time, its LP and its hop count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Event {
    /// Time of the event (ticks).
    pub time: Ticks,
    /// LP it happens at.
    pub lp: u32,
    /// Events this token has caused so far (the draw counter of its random words).
    pub hop: u32,
}

/// The model in ticks: what every engine needs to process an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Law {
    /// LPs.
    pub lps: u32,
    /// The increment: lookahead + Exp(mean), in ticks.
    pub delay: ServiceLaw,
    /// Remote with probability remote_q / 2^32 (2^32: always).
    pub remote_q: u64,
    /// Seed.
    pub seed: u64,
}

impl Law {
    /// Token `token`'s initial event: at LP token / population, after one increment.
    pub fn initial(&self, token: u32, population: u32) -> Event {
        let w = rng::token_words(self.seed, token, 0);
        Event {
            time: self.delay.sample(&w),
            lp: token / population,
            hop: 1,
        }
    }

    /// The event token `token` schedules when `e` is processed.
    #[inline]
    pub fn next(&self, token: u32, e: Event) -> Event {
        let w = rng::token_words(self.seed, token, e.hop);
        let remote = u64::from(w[1]) < self.remote_q;
        let lp = if remote {
            ((u64::from(w[2]) * u64::from(self.lps)) >> 32) as u32
        } else {
            e.lp
        };
        Event {
            time: e.time + self.delay.sample(&w),
            lp,
            hop: e.hop + 1,
        }
    }
}

/// One window step's record on every engine.
pub type StepRecord = pdes_core::sim::StepRecord;

/// The algorithms (the registry's list).
const ALGORITHMS: &[crate::config::AlgorithmInfo] = &[
    crate::config::AlgorithmInfo::new("sequential", "sequential", "One event at a time from a priority queue: the ground truth. CPU only.").exact().cpu_only(),
    crate::config::AlgorithmInfo::new("window", "window", "Every event with t < t_min + lookahead in one step, in parallel: exact, because every event schedules its successor at least the lookahead later. CPU twin or GPU.").exact(),
];

/// PHOLD in the model registry.
pub static INFO: crate::config::ModelInfo = crate::config::ModelInfo {
    kind: "phold",
    label: "PHOLD",
    description: "PHOLD benchmark (logical processes)",
    about: "The PDES community's synthetic benchmark: N logical processes; each event schedules one new event at a random LP (remote) or its own, lookahead + Exp(mean) later. Sequential against the window algorithm on the CPU and the GPU.",
    teaching_preset: "teaching-phold",
    parse: config::parse,
    presets: &[
        (
            "teaching-phold",
            include_str!("../../../../presets/teaching-phold.toml"),
        ),
        ("phold", include_str!("../../../../presets/phold.toml")),
    ],
    keys: config::KEYS,
    size_keys: "model.lps × model.population",
    shader_modules: |r| {
        use pdes_gpu::shaders::Products;
        [Products::Emulated, Products::Native]
            .into_iter()
            .map(|p| (format!("phold {p:?}"), gpu::module_source(r, p)))
            .collect()
    },
    verify: crate::twins::twin_checks::<verify::PholdTwins>,
    verify_once: verify::check_once,
    cpu_bytes: live::cpu_bytes,
    build: live::build,
    replicas: None,
    spread: None,
    page_checks: Some(|gpu| Box::pin(crate::twins::twin_page_checks::<verify::PholdTwins>(gpu))),
    info: include_str!("info.md"),
    algorithms: ALGORITHMS,
};
