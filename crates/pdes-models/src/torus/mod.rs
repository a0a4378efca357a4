//! The closed toroidal queueing network (Sang et al. 2019 §2–3; Park & Fishwick 2009 §4.2.1).
//!
//! `rows × cols` facilities on a 2-D torus, each one server with a FIFO queue. Every
//! facility starts with `tokens_per_facility` tokens (the first in service at time 0).
//! After service a token moves to one of its four neighbours with probability 1/4 and
//! arrives there at the same instant (one combined departure/arrival event).

pub mod blocked;
mod blocked_setup;
pub mod config;
pub mod cpu;
pub mod gpu;
pub mod gpu_plan;
mod gpu_setup;
pub mod gpu_state;
pub mod live;
pub mod sequential;
pub mod shaders;
pub mod state;
pub mod stats;
pub mod two_phase;
pub mod verify;

use pdes_core::rng::{self, WORD_ROUTE, WORD_SERVICE};
use pdes_core::time::{TICKS_PER_UNIT, Ticks};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ServiceKind {
    /// Exponential with mean M.
    Exponential,
    /// d + Exp(mean M − d): the same mean, never shorter than d (Sang et al. §3).
    Shifted,
}

impl ServiceKind {
    /// The name used in presets and output.
    pub fn name(self) -> &'static str {
        match self {
            Self::Exponential => "exponential",
            Self::Shifted => "shifted",
        }
    }
}

/// Validated parameters of a torus network.
#[derive(Clone, Debug, PartialEq)]
pub struct TorusParams {
    /// Rows of the torus.
    pub rows: u32,
    /// Columns of the torus.
    pub cols: u32,
    /// Tokens that start at every facility.
    pub tokens_per_facility: u32,
    /// Mean service time M.
    pub mean_service: f64,
    /// Service-time distribution.
    pub service: ServiceKind,
}

impl TorusParams {
    /// Number of facilities K.
    pub fn facilities(&self) -> u32 {
        self.rows * self.cols
    }

    /// Number of tokens N.
    pub fn tokens(&self) -> u32 {
        self.facilities() * self.tokens_per_facility
    }

    /// Exact utilization of the closed symmetric network with exponential service:
    /// N / (N + K − 1) (uniform routing makes every facility equally loaded).
    pub fn analytic_utilization(&self) -> f64 {
        let (n, k) = (f64::from(self.tokens()), f64::from(self.facilities()));
        n / (n + k - 1.0)
    }

    /// Exact mean sojourn time per visit with exponential service: M (N + K − 1) / K.
    pub fn analytic_sojourn(&self) -> f64 {
        let (n, k) = (f64::from(self.tokens()), f64::from(self.facilities()));
        self.mean_service * (n + k - 1.0) / k
    }
}

/// Routing directions; the index is the value drawn from the top two bits of a word.
pub const DIRECTIONS: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

/// The direction that undoes `dir` (up <-> down, left <-> right).
pub fn opposite(dir: u32) -> u32 {
    dir ^ 1
}

/// The neighbour of facility `f` (row-major) in direction `dir` on a `rows × cols` torus.
///
/// Written without `f / cols` for up and down, and with one remainder for left and right:
/// the sequential simulator calls it twice an event, and a division is tens of cycles.
#[inline]
pub fn neighbour(rows: u32, cols: u32, f: u32, dir: u32) -> u32 {
    let last_row = (rows - 1) * cols; // first facility of the last row
    match dir {
        0 if f < cols => f + last_row,
        0 => f - cols,
        1 if f >= last_row => f - last_row,
        1 => f + cols,
        2 if f.is_multiple_of(cols) => f + cols - 1,
        2 => f - 1,
        _ if f % cols == cols - 1 => f + 1 - cols,
        _ => f + 1,
    }
}

#[cfg(test)]
mod neighbour_tests {
    /// Every facility's four neighbours on tori thin and wide (rows or columns of one and
    /// two, where neighbours coincide) are the wrapped (row ± 1, column ± 1).
    #[test]
    fn neighbours_wrap_around_the_torus() {
        for (rows, cols) in [
            (1, 1),
            (1, 7),
            (6, 1),
            (2, 2),
            (2, 5),
            (3, 4),
            (16, 16),
            (5, 9),
        ] {
            for f in 0..rows * cols {
                let (r, c) = ((f / cols) as i64, (f % cols) as i64);
                for (dir, (dr, dc)) in super::DIRECTIONS.iter().enumerate() {
                    let r2 = (r + i64::from(*dr)).rem_euclid(i64::from(rows));
                    let c2 = (c + i64::from(*dc)).rem_euclid(i64::from(cols));
                    let want = (r2 * i64::from(cols) + c2) as u32;
                    assert_eq!(
                        super::neighbour(rows, cols, f, dir as u32),
                        want,
                        "{rows}×{cols} f={f} dir={dir}"
                    );
                }
            }
        }
    }
}

/// The service-time law in ticks: `shift + floor(Exp(1) * scale)`, both in ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceLaw {
    /// Constant part (d for shifted service, 0 for exponential).
    pub shift: Ticks,
    /// Mean of the exponential part (M − d or M), in ticks; below 2^32.
    pub scale: u32,
}

impl ServiceLaw {
    /// The law for mean `mean_service` and shift `d` (units); `d` is ignored for exponential.
    pub fn new(kind: ServiceKind, mean_service: f64, d: f64) -> Self {
        let shift = match kind {
            ServiceKind::Exponential => 0.0,
            ServiceKind::Shifted => d,
        };
        let scale = ((mean_service - shift) * TICKS_PER_UNIT).round();
        Self {
            shift: (shift * TICKS_PER_UNIT).round() as Ticks,
            scale: scale as u32,
        }
    }

    /// Service time of `token` on its `visit`-th service.
    #[inline]
    pub fn sample(&self, words: &[u32; 4]) -> Ticks {
        self.shift + rng::scale_q27(rng::neg_ln_q27(words[WORD_SERVICE]), self.scale)
    }
}

/// Routing direction (0 up, 1 down, 2 left, 3 right) from a visit's random words.
#[inline]
pub fn route(words: &[u32; 4]) -> u32 {
    words[WORD_ROUTE] >> 30
}

/// The torus in the model registry.
pub static INFO: crate::config::ModelInfo = crate::config::ModelInfo {
    kind: "torus",
    label: "torus network",
    description: "Closed torus queueing network",
    about: "The closed torus queueing network (Sang et al. 2019, Park & Fishwick 2009).",
    teaching_preset: "teaching-16x16",
    parse: config::parse,
    presets: &[
        (
            "teaching-16x16",
            include_str!("../../../../presets/teaching-16x16.toml"),
        ),
        (
            "sang2019-torus",
            include_str!("../../../../presets/sang2019-torus.toml"),
        ),
        (
            "sang2019-causality",
            include_str!("../../../../presets/sang2019-causality.toml"),
        ),
        (
            "park-fishwick-16x16",
            include_str!("../../../../presets/park-fishwick-16x16.toml"),
        ),
        (
            "sang2019-fig14-15",
            include_str!("../../../../presets/sang2019-fig14-15.toml"),
        ),
        (
            "sang2019-table1",
            include_str!("../../../../presets/sang2019-table1.toml"),
        ),
        (
            "park-fishwick-fig3-torus",
            include_str!("../../../../presets/park-fishwick-fig3-torus.toml"),
        ),
        (
            "park-fishwick-fig4a",
            include_str!("../../../../presets/park-fishwick-fig4a.toml"),
        ),
        (
            "park-fishwick-fig7",
            include_str!("../../../../presets/park-fishwick-fig7.toml"),
        ),
    ],
    keys: config::KEYS,
    size_keys: "model.rows × model.cols × model.tokens_per_facility",
    shader_modules: shaders::modules,
    verify: crate::twins::twin_checks::<verify::TorusTwins>,
    verify_once: verify::check_once,
    cpu_bytes: live::cpu_bytes,
    build: live::build,
    info: include_str!("info.md"),
    replicas: Some(crate::config::Replicas {
        accepts: |c| {
            c.get::<config::TorusConfig>()
                .is_some_and(gpu::GpuTorus::can_replicate)
        },
        together: |a, b| match (
            a.get::<config::TorusConfig>(),
            b.get::<config::TorusConfig>(),
        ) {
            (Some(a), Some(b)) => gpu::ReplicaRun::of(a).apply(b) == *a,
            _ => false,
        },
        run: run_replicas,
    }),
    spread: None,
    page_checks: Some(|gpu| Box::pin(crate::twins::twin_page_checks::<verify::TorusTwins>(gpu))),
    algorithms: &[
        crate::config::AlgorithmInfo::new("sequential", "sequential", "One event at a time from a priority queue: exact, the ground truth, and the baseline every speedup is measured against.").exact().cpu_only(),
        crate::config::AlgorithmInfo::new("window", "window", "Sang et al. 2019: every event in [t_min, t_min + d) runs in parallel. Exact, because with shifted service no token can finish sooner than d after it starts, so nothing inside the window can affect anything else inside it.").exact(),
        crate::config::AlgorithmInfo::new("interval-original", "interval / original", "The old algorithm: every event up to the next multiple of d runs in parallel with its own timestamp. Events inside an interval can depend on each other, so causality errors happen (red on the heatmap in the causality mode).").runs("interval", Some("original")),
        crate::config::AlgorithmInfo::new("interval-boundary", "interval / boundary", "Park & Fishwick 2009: every event up to the next multiple of d runs at that boundary. Order is preserved but every event is delayed, so utilization is biased down; the corrected value multiplies it by 1 + d/(2M).").runs("interval", Some("boundary")),
        crate::config::AlgorithmInfo::new("interval", "interval", "Interval up to the next multiple of d, keeping the preset's run.timestamps.").unlisted(),
    ],
};

/// Runs `configs` (one torus, each with its own seed and d) side by side in one GPU engine
/// ([`crate::config::Replicas`]).
fn run_replicas(
    configs: &[&crate::config::Config],
    device: std::sync::Arc<pdes_gpu::Gpu>,
) -> Result<Vec<pdes_core::sim::Report>, pdes_core::sim::SimError> {
    use pdes_core::sim::{Engine, SimError};
    let tori = configs
        .iter()
        .map(|c| c.get::<config::TorusConfig>())
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| SimError::Gpu("replicas: not a torus configuration".into()))?;
    let first = tori
        .first()
        .ok_or_else(|| SimError::Gpu("replicas: no configuration given".into()))?;
    let runs: Vec<gpu::ReplicaRun> = tori.iter().map(|c| gpu::ReplicaRun::of(c)).collect();
    if runs.iter().zip(&tori).any(|(r, c)| r.apply(first) != **c) {
        return Err(SimError::Gpu(
            "replicas: the configurations differ in more than seed and d".into(),
        ));
    }
    let mut phases = pdes_gpu::stamps::HostPhases::start("torus replicas");
    let mut engine = gpu::GpuTorus::replica_runs(device, first, &runs)?;
    phases.mark("set-up");
    engine.advance(pdes_core::sim::Budget::Finish)?;
    phases.mark("steps");
    let reports = engine
        .replica_summaries()?
        .iter()
        .map(pdes_core::sim::Report::of)
        .collect();
    phases.mark("summaries");
    drop(engine);
    phases.mark("freed");
    Ok(reports)
}
