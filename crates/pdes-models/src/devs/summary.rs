//! What a DEVS run reports (`pdes-lab run` JSON/CSV/table): the protocol's counts and the
//! rule's final means. Every field is an exact function of the cells and the step log, so
//! the three simulators report the same values (the engine and algorithm aside).

use super::config::DevsConfig;
use super::{Cell, DevsStep, Rule, sir_unpack};
use pdes_core::sim::ModelSummary;
use serde::Serialize;

/// The summary of a DEVS run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// `model.kind`.
    pub model: &'static str,
    /// "sequential" or "flattened".
    pub algorithm: &'static str,
    /// "cpu" or "gpu".
    pub engine: &'static str,
    /// Threads: 1 for sequential, the CPU's cores for flattened on the CPU, one per cell
    /// on the GPU.
    pub threads: u64,
    /// Rows × columns.
    pub cells: u64,
    /// Steps taken.
    pub steps: u64,
    /// Time of the last step taken (0 before the first).
    pub time: u32,
    /// All transitions (what "per second" counts).
    pub transitions: u64,
    /// δint taken.
    pub internal_transitions: u64,
    /// δext taken.
    pub external_transitions: u64,
    /// δconf taken.
    pub confluent_transitions: u64,
    /// Messages routed.
    pub messages: u64,
    /// Imminent cells per step, on average.
    pub mean_imminent_per_step: f64,
    /// Benchmark: cells whose digit equals (time mod 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cells_equal_time_mod_2: Option<u64>,
    /// SIR: mean susceptible fraction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_s: Option<f64>,
    /// SIR: mean infected fraction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_i: Option<f64>,
    /// SIR: mean recovered fraction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_r: Option<f64>,
    /// SIR: cells with a non-zero infected fraction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub infected_cells: Option<u64>,
}

/// Mean S, I, R fractions and the cells with I > 0 (SIR words).
pub fn compartments(cells: &[Cell]) -> ([f64; 3], u64) {
    let mut sums = [0u64; 3];
    let mut infected = 0;
    for c in cells {
        let (s, i, r) = sir_unpack(c.value);
        sums[0] += u64::from(s);
        sums[1] += u64::from(i);
        sums[2] += u64::from(r);
        infected += u64::from(i > 0);
    }
    let n = cells.len().max(1) as f64 * 1000.0;
    (sums.map(|x| x as f64 / n), infected)
}

impl Summary {
    /// The summary of `cells` after the steps of `log`.
    pub fn new(cfg: &DevsConfig, engine: &'static str, cells: &[Cell], log: &[DevsStep]) -> Self {
        let sum = |f: fn(&DevsStep) -> u32| log.iter().map(|s| u64::from(f(s))).sum::<u64>();
        let steps = log.len() as u64;
        let time = log.last().map_or(0, |s| s.t);
        let mut out = Self {
            model: cfg.kind_name(),
            algorithm: cfg.algorithm.name(),
            engine,
            threads: match (engine, cfg.algorithm) {
                ("gpu", _) => u64::from(cfg.space.cells()),
                (_, super::config::DevsAlgorithm::Sequential) => 1,
                _ => rayon::current_num_threads() as u64,
            },
            cells: u64::from(cfg.space.cells()),
            steps,
            time,
            transitions: log.iter().map(DevsStep::transitions).sum(),
            internal_transitions: sum(|s| s.internal),
            external_transitions: sum(|s| s.external),
            confluent_transitions: sum(|s| s.confluent),
            messages: sum(|s| s.messages),
            mean_imminent_per_step: if steps == 0 {
                0.0
            } else {
                sum(|s| s.imminent) as f64 / steps as f64
            },
            cells_equal_time_mod_2: None,
            mean_s: None,
            mean_i: None,
            mean_r: None,
            infected_cells: None,
        };
        match cfg.rule {
            Rule::Benchmark { .. } => {
                out.cells_equal_time_mod_2 =
                    Some(cells.iter().filter(|c| c.value == time % 2).count() as u64);
            }
            Rule::Sir(_) => {
                let ([s, i, r], infected) = compartments(cells);
                (out.mean_s, out.mean_i, out.mean_r) = (Some(s), Some(i), Some(r));
                out.infected_cells = Some(infected);
            }
        }
        out
    }
}

impl ModelSummary for Summary {
    const WORK: &'static str = "transitions";
    const RATE: &'static str = "transitions_per_second";
    fn statistics(&self) -> Vec<(&'static str, f64)> {
        let mut v = vec![("mean_imminent_per_step", self.mean_imminent_per_step)];
        if let Some(c) = self.cells_equal_time_mod_2 {
            v.push(("cells_equal_time_mod_2", c as f64));
        }
        for (k, x) in [
            ("mean_s", self.mean_s),
            ("mean_i", self.mean_i),
            ("mean_r", self.mean_r),
        ] {
            if let Some(x) = x {
                v.push((k, x));
            }
        }
        v
    }
}
