//! What a model is to the generic code, in one module because each names the other: its
//! entry in the registry ([`ModelInfo`]: name, algorithms with their help, presets, keys,
//! parser, engine constructor, verify checks, replicas, Info page; the window's panels and
//! the bench suites are kept by the crates above, keyed by `kind`), a validated
//! configuration of any model ([`Config`], behind the [`ModelConfig`] trait each model
//! implements) and the one-line error of a preset ([`PresetError`]). Reading a preset's
//! keys, the checks every model's parser shares, is [`crate::reading`]. Nothing here knows
//! which models exist: the registry-aware part (built-in presets, `--set`, `model.kind`) is
//! [`crate::preset`].
//!
//! Keys are dotted paths (`model.rows`, `run.d`, …). Every error is one line that names the
//! key (or file) and what it accepts, so the command line and the app can show it as is.

use pdes_core::sim::SimError;
use pdes_core::time::{Ticks, to_ticks};
use pdes_gpu::{Gpu, LiveEngine};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

pub use crate::error::{PresetError, echo, key_err};

/// Where the simulation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// On the CPU.
    Cpu,
    /// On the GPU through wgpu.
    Gpu,
}

impl EngineKind {
    /// Name in presets and output.
    pub fn name(self) -> &'static str {
        match self {
            Self::Cpu => "cpu",
            Self::Gpu => "gpu",
        }
    }
}

/// What every model's validated configuration offers the generic code (engine factory,
/// command line, app). Each model implements it for its own configuration type; the
/// registry's `parse` builds one from a preset table.
pub trait ModelConfig: std::fmt::Debug + Send + Sync + 'static {
    /// Its model's entry in the registry (its `model.kind`, algorithms, …).
    fn info(&self) -> &'static crate::config::ModelInfo;
    /// (run.algorithm, run.timestamps for the algorithms that have it).
    fn algorithm_keys(&self) -> (&'static str, Option<&'static str>);
    /// Where it runs.
    fn engine(&self) -> EngineKind;
    /// Moves the run to `engine`.
    fn set_engine(&mut self, engine: EngineKind);
    /// End time in time units, as written.
    fn end_time(&self) -> f64;
    /// (rows, cols) of the heatmap.
    fn shape(&self) -> (u32, u32);
    /// The configuration as preset TOML.
    fn to_toml(&self, comment: &str) -> String;
    /// A valid combination that will surprise (shown, never refused), e.g. one that cannot
    /// show what its algorithm is known for.
    fn warning(&self) -> Option<String> {
        None
    }
    /// A copy.
    fn clone_box(&self) -> Box<dyn ModelConfig>;
    /// Equality with another model's configuration (false across models).
    fn eq_dyn(&self, other: &dyn ModelConfig) -> bool;
    /// The configuration as `Any`, for its model's own code ([`Config::get`]).
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A validated configuration of any model: the model's own configuration behind
/// [`ModelConfig`]. Its model's code reaches the typed configuration with [`Config::get`].
#[derive(Debug)]
pub struct Config(Box<dyn ModelConfig>);

impl Clone for Config {
    fn clone(&self) -> Self {
        Self(self.0.clone_box())
    }
}

impl PartialEq for Config {
    fn eq(&self, other: &Self) -> bool {
        self.0.eq_dyn(other.0.as_ref())
    }
}

/// Implements [`ModelConfig`]'s copy, equality and `Any` for a configuration type.
macro_rules! model_config_boilerplate {
    () => {
        fn clone_box(&self) -> Box<dyn $crate::config::ModelConfig> {
            Box::new(self.clone())
        }
        fn eq_dyn(&self, other: &dyn $crate::config::ModelConfig) -> bool {
            other.as_any().downcast_ref::<Self>() == Some(self)
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    };
}
pub(crate) use model_config_boilerplate;

impl Config {
    /// Wraps a model's validated configuration.
    pub fn new(c: impl ModelConfig) -> Self {
        Self(Box::new(c))
    }

    /// The model's own configuration, if it is a `T`.
    pub fn get<T: 'static>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref::<T>()
    }

    /// The configuration as preset TOML.
    pub fn to_toml(&self, comment: &str) -> String {
        self.0.to_toml(comment)
    }

    /// `model.kind`.
    pub fn kind(&self) -> &'static str {
        self.0.info().kind
    }

    /// The model's entry in the registry.
    pub fn model_info(&self) -> &'static crate::config::ModelInfo {
        self.0.info()
    }

    /// The algorithm's entry in the registry.
    pub fn algorithm_info(&self) -> &'static crate::config::AlgorithmInfo {
        let (algorithm, timestamps) = self.0.algorithm_keys();
        // The one invariant left as a panic: a model's parser accepts only the algorithms
        // its entry lists (the registry's test finds every listed one again from its keys).
        #[allow(clippy::expect_used)]
        self.model_info()
            .algorithm_of(algorithm, timestamps)
            .expect("every configuration's algorithm is registered")
    }

    /// What will surprise about this valid configuration, if anything.
    pub fn warning(&self) -> Option<String> {
        self.0.warning()
    }

    /// Where it runs.
    pub fn engine(&self) -> EngineKind {
        self.0.engine()
    }

    /// Moves the run to `engine` (the app falls back to the CPU this way).
    pub fn set_engine(&mut self, engine: EngineKind) {
        self.0.set_engine(engine);
    }

    /// End time in ticks.
    pub fn end_ticks(&self) -> Ticks {
        to_ticks(self.0.end_time())
    }

    /// End time in time units, as written.
    pub fn end_time(&self) -> f64 {
        self.0.end_time()
    }

    /// (rows, cols) of the grid or torus.
    pub fn shape(&self) -> (u32, u32) {
        self.0.shape()
    }
}

/// A model's engine constructor: `device` is Some when the engine must run on the GPU.
pub type BuildFn = fn(&Config, Option<Arc<Gpu>>) -> Result<Box<dyn LiveEngine>, SimError>;

/// [`ModelInfo::spread`]: a configuration's GPU engine over several devices at once.
pub type SpreadFn = fn(&Config, &[Arc<Gpu>]) -> Result<Box<dyn LiveEngine>, SimError>;

/// [`ModelInfo::page_checks`]: a device → the model's quick checks on it, as a future a
/// browser tab polls once a frame.
pub type PageChecksFn =
    fn(Arc<Gpu>) -> std::pin::Pin<Box<dyn std::future::Future<Output = Vec<CheckResult>>>>;

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

impl AlgorithmInfo {
    /// A listed algorithm with a GPU engine whose `--algorithm` name is its `run.algorithm`,
    /// not exact (the modifiers below say what differs).
    pub const fn new(name: &'static str, label: &'static str, help: &'static str) -> Self {
        Self {
            name,
            label,
            help,
            algorithm: name,
            timestamps: None,
            gpu: true,
            listed: true,
            exact: false,
        }
    }

    /// This algorithm as `run.algorithm` = `algorithm` with `run.timestamps` = `timestamps`.
    pub const fn runs(self, algorithm: &'static str, timestamps: Option<&'static str>) -> Self {
        Self {
            algorithm,
            timestamps,
            ..self
        }
    }

    /// This algorithm reproducing the sequential sample path exactly.
    pub const fn exact(self) -> Self {
        Self {
            exact: true,
            ..self
        }
    }

    /// This algorithm without a GPU engine.
    pub const fn cpu_only(self) -> Self {
        Self { gpu: false, ..self }
    }

    /// This algorithm as a command-line alias the controls do not list.
    pub const fn unlisted(self) -> Self {
        Self {
            listed: false,
            ..self
        }
    }
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
    /// Every preset key of the model with what it takes ("model.lines", "run.d"): what
    /// `--set` accepts, what an unknown-key message lists, and the ranges its validation
    /// checks and its refusals say (`crate::keys`).
    pub keys: &'static [crate::keys::Key],
    /// The keys whose product is the model's size, as a refusal of a run too large names
    /// them ("model.lines × model.servers_per_line").
    pub size_keys: &'static str,
    /// Reads and validates a preset table of this model.
    pub parse: fn(&toml::Table) -> Result<Config, PresetError>,
    /// Its composed WGSL modules by name, for a reduction variant (validation tests).
    pub shader_modules: fn(pdes_gpu::shaders::Reductions) -> Vec<(String, String)>,
    /// Its `pdes-lab verify` checks with one reduction variant.
    pub verify: VerifyFn,
    /// Its checks that run once per verification, whatever the variants.
    pub verify_once: VerifyOnceFn,
    /// Bytes its CPU engine allocates for a configuration of this model.
    pub cpu_bytes: fn(&Config) -> u64,
    /// Builds its engine for a configuration of this model (on the GPU when a device is given).
    pub build: crate::config::BuildFn,
    /// Its GPU engine's replicas (several seeds in one engine), if it has them: sweeps
    /// run a point's seeds this way.
    pub replicas: Option<Replicas>,
    /// Its GPU engine over several devices (`run --devices`), the work split between them
    /// and the results those of one device, if it has one.
    pub spread: Option<SpreadFn>,
    /// Where its GPU engine also runs on a device that must not be waited on (a browser
    /// tab's: readbacks answered on later frames, see `pdes_gpu::deferred`): its
    /// `verify --quick` checks written so that a page can run them. None: the page runs the
    /// model on the CPU.
    pub page_checks: Option<PageChecksFn>,
    /// The Info tab's text (a small Markdown subset: `# ` headings, `- ` bullets,
    /// paragraphs): what is simulated, what the colours and plots mean, where it comes from
    /// in the papers, what to try first.
    pub info: &'static str,
}

/// Several runs of one model that differ only in what each replica holds of its own (its
/// seed; for the torus also its d), in one GPU engine — one dispatch sequence for all: what
/// makes a sweep's many small runs fast.
#[derive(Debug)]
pub struct Replicas {
    /// Whether a configuration can run this way (e.g. its grid fills whole segments).
    pub accepts: fn(&Config) -> bool,
    /// Whether two accepted configurations can share one engine (they differ at most in
    /// what a replica holds of its own).
    pub together: fn(&Config, &Config) -> bool,
    /// Runs `configs` (each accepted and `together` with the first) to their ends on
    /// `gpu`, side by side: one report per configuration, in order, each exactly the run it
    /// gives alone (the wall-clock fields are not filled in).
    pub run: ReplicasRunFn,
}

/// [`Replicas::run`]: (configurations, device) → one report per configuration.
pub type ReplicasRunFn = fn(
    &[&Config],
    std::sync::Arc<pdes_gpu::Gpu>,
) -> Result<Vec<pdes_core::sim::Report>, pdes_core::sim::SimError>;

/// A model's verification checks with one reduction variant; each result goes to the sink.
pub type VerifyFn = fn(
    &std::sync::Arc<pdes_gpu::Gpu>,
    pdes_gpu::shaders::Reductions,
    Options,
    &mut dyn FnMut(CheckResult),
);

/// A model's checks that run once per verification.
pub type VerifyOnceFn = fn(&std::sync::Arc<pdes_gpu::Gpu>, Options, &mut dyn FnMut(CheckResult));

impl ModelInfo {
    /// Its keys' dotted names, in the table's order.
    pub fn key_names(&self) -> impl Iterator<Item = &'static str> + use<> {
        let keys: &'static [crate::keys::Key] = self.keys;
        keys.iter().map(|k| k.name)
    }

    /// Whether it has the key `name` (dotted).
    pub fn has_key(&self, name: &str) -> bool {
        self.key(name).is_some()
    }

    /// Its key `name` (dotted) and what the key takes.
    pub fn key(&self, name: &str) -> Option<&'static crate::keys::Key> {
        let keys: &'static [crate::keys::Key] = self.keys;
        crate::keys::find(keys, name)
    }

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

// What a model's verify checks take and give (`crate::verify` re-exports them): here
// because the registry entry names them.

/// How much to check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// One configuration per engine instead of several (what the app runs at start).
    pub quick: bool,
    /// Test hook: adds one to every GPU event count before comparing, so that a test can
    /// prove that a wrong GPU result fails the check.
    pub perturb_gpu: bool,
}

/// The outcome of one check.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CheckResult {
    /// What was checked: engine, reductions and configuration.
    pub name: String,
    /// True when the GPU agreed with the CPU in every compared output.
    pub passed: bool,
    /// One line per difference (field, CPU value, GPU value), or the error that stopped it.
    pub details: Vec<String>,
    /// Wall-clock seconds the check took (CPU and GPU runs together).
    pub seconds: f64,
}
