//! What a model is to the generic code, in one module because each names the other: its
//! entry in the registry ([`ModelInfo`]: name, algorithms with their help, presets, keys,
//! parser, engine constructor, verify checks, replicas, Info page; the window's panels and
//! the bench suites are kept by the crates above, keyed by `kind`), a validated
//! configuration of any model ([`Config`], behind the [`ModelConfig`] trait each model
//! implements), the one-line error of a preset ([`PresetError`]), and the checks every
//! model's parser shares (unknown keys, named with the model's valid keys; values of the
//! wrong type, named with what the key takes). Nothing here knows which models exist: the
//! registry-aware part (built-in presets, `--set`, `model.kind`) is [`crate::preset`].
//!
//! Keys are dotted paths (`model.rows`, `run.d`, …). Every error is one line that names the
//! key (or file) and what it accepts, so the command line and the app can show it as is.

use pdes_core::sim::SimError;
use pdes_core::time::{Ticks, to_ticks};
use pdes_gpu::{Gpu, LiveEngine};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

use crate::error::clip;
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

/// Parses preset text into a table; `origin` names it in the error.
pub fn parse_table(text: &str, origin: &str) -> Result<toml::Table, PresetError> {
    text.parse().map_err(|e: toml::de::Error| {
        // the message alone ("duplicate key") does not say which: the span does
        let at = e.span().map(|span| {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            let quoted = text.get(span.clone()).unwrap_or("").trim();
            (line, quoted)
        });
        let reason = match at {
            Some((line, quoted)) if !quoted.is_empty() => format!(
                "malformed TOML at line {line}: {} (`{}`)",
                e.message().replace('\n', " "),
                echo(&quoted)
            ),
            Some((line, _)) => format!(
                "malformed TOML at line {line}: {}",
                e.message().replace('\n', " ")
            ),
            None => format!("malformed TOML: {}", e.message().replace('\n', " ")),
        };
        PresetError::File {
            path: origin.to_string(),
            reason,
        }
    })
}

/// A preset as written: its `[model]` and `[run]` sections, each model's own structs read
/// with serde (unknown keys refused, absent ones the struct's defaults).
#[derive(serde::Deserialize, serde::Serialize, Default)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct Sections<M, R> {
    /// `[model]`.
    pub(crate) model: M,
    /// `[run]`.
    pub(crate) run: R,
}

/// The registry's parser of a model whose preset is `Sections<M, R>` and whose
/// configuration `validate` makes of it.
pub(crate) fn parse_sections<M, R, C>(
    table: &toml::Table,
    info: &ModelInfo,
    validate: fn(Sections<M, R>) -> Result<C, PresetError>,
) -> Result<Config, PresetError>
where
    M: serde::de::DeserializeOwned + Default,
    R: serde::de::DeserializeOwned + Default,
    C: ModelConfig,
{
    Ok(Config::new(validate(read_keys(table, info)?)?))
}

/// Reads the preset table of model `info` with serde into its key structs `T`
/// (`deny_unknown_fields`). A key the model does not have is named with the model's valid
/// keys (`info.keys`); a value of the wrong type is named with what serde says the key
/// takes (the ranges are the model's `validate()`'s).
pub fn read_keys<T: serde::de::DeserializeOwned>(
    table: &toml::Table,
    info: &crate::config::ModelInfo,
) -> Result<T, PresetError> {
    for (section, value) in table {
        let t = value
            .as_table()
            .ok_or_else(|| key_err(section, "expected a [section] table"))?;
        if section != "model" && section != "run" {
            return Err(key_err(
                section,
                "unknown key (sections are [model] and [run])",
            ));
        }
        for name in t.keys() {
            let key = format!("{section}.{name}");
            if !info.has_key(&key) {
                return Err(unknown_model_key(info, &key));
            }
        }
    }
    table.clone().try_into().map_err(|e: toml::de::Error| {
        // serde names the key last: "invalid type: string \"x\", expected u32 in `model.rows`"
        let text = e.to_string().replace('\n', " ");
        let text = text.trim();
        let named = text
            .rfind(" in `")
            .filter(|_| text.ends_with('`'))
            .map(|i| &text[i + 5..text.len() - 1]);
        match named.and_then(|k| info.key(k).map(|key| (k, key))) {
            // a table's (a network's shape, its stations): what serde found wrong inside it
            // names the inner key ("unknown field `law`, expected `kind` or `mean`")
            Some((k, key)) if holds_a_table(table, k) => {
                let inside = in_words(text.rfind(" in `").map_or(text, |i| &text[..i]));
                key.refuse_as(
                    given(table, k),
                    format!("{} — here: {}", key.words(), clip(&inside, 200)),
                )
            }
            // refused by range, whatever serde objected to (sign, size, type, spelling)
            Some((k, key)) => key.refuse(given(table, k)),
            // a key inside a table (a station's servers): serde's reason, in words, under
            // the key's whole name
            None => match named {
                Some(k) => key_err(k, clip(&in_words(&text[..text.len() - k.len() - 6]), 160)),
                None => key_err(info.kind, clip(&in_words(text), 160)),
            },
        }
    })
}

/// A preset's text: `# comment` on the first line, then the serialized keys (a model's
/// `to_toml`). Serialization of plain numbers and words cannot fail; if it did, the comment
/// says so instead of writing half a preset.
pub fn with_comment(comment: &str, body: Result<String, toml::ser::Error>) -> String {
    match body {
        Ok(b) => format!("# {}\n{b}", comment.replace('\n', " ")),
        Err(e) => format!("# {} (not written: {e})\n", comment.replace('\n', " ")),
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

/// Puts `section.name = value` into a preset table: the value is read as a TOML value (`16`,
/// `0.5`, `"window"`); a bare word that is not valid TOML is taken as a string. The key is
/// the caller's to check.
pub fn set_in_table(
    table: &mut toml::Table,
    section: &str,
    name: &str,
    value: &str,
) -> Result<(), PresetError> {
    let key = format!("{section}.{name}");
    let value = value.trim();
    if value.contains(['\n', '\r']) {
        return Err(key_err(
            &key,
            "a --set value must be on one line (it contains a line break)",
        ));
    }
    let parsed = format!("v = {value}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(value.to_string()));
    let sec = table
        .entry(section.to_string())
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    match sec {
        toml::Value::Table(t) => {
            t.insert(name.to_string(), parsed);
            Ok(())
        }
        _ => Err(key_err(section, "must be a table")),
    }
}

/// The value of dotted `key` in `table` as a refusal shows it: as written, except that a
/// number too large for TOML (kept as text by `--set`) is shown as the number it is.
/// serde's reason with its type names in words ("expected u32" is no sentence a student
/// reads).
fn in_words(reason: &str) -> String {
    [
        (
            "expected u32",
            "expected a whole number from 0 to 4,294,967,295",
        ),
        ("expected u64", "expected a whole number of at least 0"),
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
    ]
    .iter()
    .fold(reason.to_string(), |r, (from, to)| r.replace(from, to))
}

/// Whether dotted `key` of `table` holds a table or a list of them.
fn holds_a_table(table: &toml::Table, key: &str) -> bool {
    let (section, name) = key.split_once('.').unwrap_or(("", key));
    matches!(
        table.get(section).and_then(|t| t.get(name)),
        Some(toml::Value::Table(_) | toml::Value::Array(_))
    )
}

fn given(table: &toml::Table, key: &str) -> String {
    let (section, name) = key.split_once('.').unwrap_or(("", key));
    match table.get(section).and_then(|t| t.get(name)) {
        Some(toml::Value::String(t))
            if !t.is_empty()
                && t.trim_start_matches(['-', '+'])
                    .chars()
                    .all(|c| c.is_ascii_digit()) =>
        {
            t.clone()
        }
        Some(toml::Value::Float(f)) => crate::error::show_number(*f),
        Some(v) => v.to_string(),
        None => "nothing".into(),
    }
}

/// The error of a key model `info` does not have, with the keys of its section it does.
fn unknown_model_key(info: &crate::config::ModelInfo, key: &str) -> PresetError {
    let section = key.split('.').next().unwrap_or("");
    let valid: Vec<&str> = info
        .key_names()
        .filter(|k| k.starts_with(&format!("{section}.")))
        .collect();
    if valid.is_empty() {
        key_err(key, "unknown key (sections are [model] and [run])")
    } else {
        key_err(
            key,
            format!(
                "unknown key for model.kind = \"{}\" (valid: {})",
                info.kind,
                valid.join(", ")
            ),
        )
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
