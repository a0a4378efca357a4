//! What the generic code knows of a model without naming it: its entry in the registry
//! ([`ModelInfo`]: name, algorithms with their help, presets, keys, parser, engine
//! constructor, verify checks, replicas, Info page). The window's panels and the bench
//! suites are kept by the crates above (`pdes-ui`, `pdes-bench`), keyed by `kind`.

use crate::config::Config;
use pdes_core::sim::SimError;
use pdes_gpu::{Gpu, LiveEngine};
use std::sync::Arc;

/// A model's engine constructor: `device` is Some when the engine must run on the GPU.
pub type BuildFn = fn(&Config, Option<Arc<Gpu>>) -> Result<Box<dyn LiveEngine>, SimError>;

/// One algorithm of a model, as the command line and the app offer it.
#[derive(Debug, PartialEq, Eq)]
pub struct AlgorithmInfo {
    /// `--algorithm` value, e.g. "interval-boundary".
    pub name: &'static str,
    /// What the controls show, e.g. "interval / boundary".
    pub label: &'static str,
    /// Plain-words explanation (hover text, `presets --algorithms`).
    pub help: &'static str,
    /// `run.algorithm` in a preset.
    pub algorithm: &'static str,
    /// `run.timestamps` in a preset, for the algorithms that have it.
    pub timestamps: Option<&'static str>,
    /// True when it has a GPU engine.
    pub gpu: bool,
    /// False for command-line aliases the controls do not list.
    pub listed: bool,
    /// True when it reproduces the sequential sample path exactly (sequential itself, and
    /// the window algorithm with shifted service): a benchmark row of it must equal its
    /// group's exact reference field for field, or it is refused.
    pub exact: bool,
}

/// One model.
#[derive(Debug)]
pub struct ModelInfo {
    /// `model.kind` in a preset.
    pub kind: &'static str,
    /// What the model picker shows.
    pub label: &'static str,
    /// One line under the picker.
    pub description: &'static str,
    /// The picker's hover text: what the model is and where it comes from.
    pub about: &'static str,
    /// Its algorithms, the controls' order.
    pub algorithms: &'static [AlgorithmInfo],
    /// The built-in preset the picker opens.
    pub teaching_preset: &'static str,
    /// Its built-in presets: (name, text), the files of `presets/` embedded.
    pub presets: &'static [(&'static str, &'static str)],
    /// Every preset key of the model, dotted ("model.lines", "run.d"): what `--set`
    /// accepts and what an unknown-key message lists.
    pub keys: &'static [&'static str],
    /// Reads and validates a preset table of this model.
    pub parse: fn(&toml::Table) -> Result<crate::config::Config, crate::config::PresetError>,
    /// Its composed WGSL modules by name, for a reduction variant (validation tests).
    pub shader_modules: fn(pdes_gpu::shaders::Reductions) -> Vec<(String, String)>,
    /// Its `pdes-lab verify` checks with one reduction variant.
    pub verify: VerifyFn,
    /// Its checks that run once per verification, whatever the variants.
    pub verify_once: VerifyOnceFn,
    /// Bytes its CPU engine allocates for a configuration of this model.
    pub cpu_bytes: fn(&crate::config::Config) -> u64,
    /// Builds its engine for a configuration of this model (on the GPU when a device is given).
    pub build: crate::model::BuildFn,
    /// Its GPU engine's replicas (several seeds in one engine), if it has them: sweeps
    /// run a point's seeds this way.
    pub replicas: Option<Replicas>,
    /// The Info tab's text (a small Markdown subset: `# ` headings, `- ` bullets,
    /// paragraphs): what is simulated, what the colours and plots mean, where it comes from
    /// in the papers, what to try first.
    pub info: &'static str,
}

/// Several runs of one configuration that differ only in their seed, in one GPU engine
/// (one dispatch sequence for all): what makes many seeds of a small model fast.
#[derive(Debug)]
pub struct Replicas {
    /// Whether a configuration can run this way (e.g. its grid fills whole segments).
    pub accepts: fn(&crate::config::Config) -> bool,
    /// Runs `config` to its end with each of `seeds` (its `run.seed` replaced) on `gpu`:
    /// one report per seed, in order, each exactly the run that seed gives alone (the
    /// wall-clock fields are not filled in).
    pub run: ReplicasRunFn,
}

/// [`Replicas::run`]: (configuration, seeds, device) → one report per seed.
pub type ReplicasRunFn = fn(
    &crate::config::Config,
    &[u64],
    std::sync::Arc<pdes_gpu::Gpu>,
) -> Result<Vec<pdes_core::sim::Report>, pdes_core::sim::SimError>;

/// A model's verification checks with one reduction variant; each result goes to the sink.
pub type VerifyFn = fn(
    &std::sync::Arc<pdes_gpu::Gpu>,
    pdes_gpu::shaders::Reductions,
    crate::verify::Options,
    &mut dyn FnMut(crate::verify::CheckResult),
);

/// A model's checks that run once per verification.
pub type VerifyOnceFn = fn(
    &std::sync::Arc<pdes_gpu::Gpu>,
    crate::verify::Options,
    &mut dyn FnMut(crate::verify::CheckResult),
);

impl ModelInfo {
    /// The algorithm named `name` (`--algorithm` value).
    pub fn algorithm(&self, name: &str) -> Option<&'static AlgorithmInfo> {
        self.algorithms.iter().find(|a| a.name == name)
    }

    /// The algorithms the controls list.
    pub fn listed(&self) -> impl Iterator<Item = &'static AlgorithmInfo> + use<> {
        self.algorithms.iter().filter(|a| a.listed)
    }

    /// The algorithm a preset's (run.algorithm, run.timestamps) names.
    pub fn algorithm_of(
        &self,
        algorithm: &str,
        timestamps: Option<&str>,
    ) -> Option<&'static AlgorithmInfo> {
        self.algorithms
            .iter()
            .filter(|a| a.listed && a.algorithm == algorithm)
            .find(|a| a.timestamps.is_none() || a.timestamps == timestamps)
    }
}
