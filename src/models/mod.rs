//! What is simulated: model parameters, initial state and analytic references, and the
//! registry of models ([`MODELS`]): what the command line and the app need to know about a
//! model (its name, its algorithms with their help, which of them have a GPU engine)
//! without naming it.

use eframe::egui;

pub mod devs;
pub mod diffusion;
pub mod mmck;
pub mod open_network;
pub mod phold;
pub mod queueing;
pub mod torus;

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
    pub parse: fn(&toml::Table) -> Result<crate::preset::Config, crate::preset::PresetError>,
    /// Its composed WGSL modules by name, for a reduction variant (validation tests).
    pub shader_modules: fn(crate::gpu::shaders::Reductions) -> Vec<(String, String)>,
    /// Its `pdes-lab verify` checks with one reduction variant.
    pub verify: VerifyFn,
    /// Its checks that run once per verification, whatever the variants.
    pub verify_once: VerifyOnceFn,
    /// Bytes its CPU engine allocates for a configuration of this model.
    pub cpu_bytes: fn(&crate::preset::Config) -> u64,
    /// Builds its engine for a configuration of this model (on the GPU when a device is given).
    pub build: crate::engines::BuildFn,
    /// What it shows in the window.
    pub panel: Panel,
    /// Its `pdes-lab bench` suites.
    pub suites: &'static [BenchSuite],
    /// Runs one of its suites.
    pub bench: fn(&str, &crate::cli::bench::BenchOptions) -> Result<(), crate::cli::CliError>,
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
    pub accepts: fn(&crate::preset::Config) -> bool,
    /// Runs `config` to its end with each of `seeds` (its `run.seed` replaced) on `gpu`:
    /// one report per seed, in order, each exactly the run that seed gives alone (the
    /// wall-clock fields are not filled in).
    pub run: ReplicasRunFn,
}

/// [`Replicas::run`]: (configuration, seeds, device) → one report per seed.
pub type ReplicasRunFn = fn(
    &crate::preset::Config,
    &[u64],
    std::sync::Arc<crate::gpu::Gpu>,
) -> Result<Vec<crate::sim::Report>, crate::sim::SimError>;

/// What a model shows in the window beyond the generic parts (heatmap, plots' frame,
/// status bar): its hover text, its inspector, and an optional strip above the heatmap.
#[derive(Debug)]
pub struct Panel {
    /// The heatmap's hover text for one cell.
    pub hover: fn(&mut egui::Ui, &crate::app::session::Session, u32),
    /// The inspector of a pinned cell (its heading and facts; the cell is inside the grid).
    pub inspector: fn(&mut egui::Ui, &crate::app::session::Session, u32),
    /// A strip above the heatmap (the torus: the current window over the pending events).
    pub timeline: Option<fn(&mut egui::Ui, &crate::app::session::Session)>,
    /// Its part of the left panel, showing a configuration of this model.
    pub form: fn(&crate::preset::Config) -> Box<dyn crate::app::form::ModelForm>,
    /// Its heatmap modes (the first is the default).
    pub modes: &'static [crate::app::heatmap::Mode],
    /// The values at the bottom and top of its colormap for a session.
    pub colour_range: fn(&crate::app::session::Session) -> (f32, f32),
    /// What its work counter counts, for "… per second" in the status bar.
    pub work_label: &'static str,
    /// What the count mode of its heatmap counts per cell ("tokens", "customers").
    pub count_label: &'static str,
    /// The name of its count mode ([`crate::app::heatmap::Mode::Tokens`]) in the mode
    /// selector and above the colour bar ("queue length", "events per LP").
    pub count_mode: &'static str,
    /// The plots below the heatmap, for a session and its A/B partner.
    pub plots:
        fn(&mut egui::Ui, &crate::app::session::Session, Option<&crate::app::session::Session>),
    /// The numeric monitors above the heatmap: current values and their exact ones.
    pub monitors: fn(&crate::app::session::Session) -> Vec<crate::app::monitors::Monitor>,
    /// Its recent causality errors, oldest first (empty for models and engines without a
    /// list).
    pub violations: fn(&crate::app::session::Session) -> Vec<crate::app::violations::Violation>,
}

/// A benchmark suite of a model.
#[derive(Debug)]
pub struct BenchSuite {
    /// `--suite` value.
    pub name: &'static str,
    /// What it measures.
    pub help: &'static str,
}

/// A model's verification checks with one reduction variant; each result goes to the sink.
pub type VerifyFn = fn(
    &std::sync::Arc<crate::gpu::Gpu>,
    crate::gpu::shaders::Reductions,
    crate::verify::Options,
    &mut dyn FnMut(crate::verify::CheckResult),
);

/// A model's checks that run once per verification.
pub type VerifyOnceFn = fn(
    &std::sync::Arc<crate::gpu::Gpu>,
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

/// Every model, in the picker's order.
pub static MODELS: &[&ModelInfo] = &[
    &torus::INFO,
    &diffusion::INFO,
    &open_network::INFO,
    &mmck::INFO,
    &devs::SIR_INFO,
    &devs::BENCHMARK_INFO,
    &phold::INFO,
];

/// The model of `model.kind`.
pub fn by_kind(kind: &str) -> Option<&'static ModelInfo> {
    MODELS.iter().copied().find(|m| m.kind == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_and_algorithm_name_is_unique_and_every_teaching_preset_is_its_model() {
        let mut kinds: Vec<_> = MODELS.iter().map(|m| m.kind).collect();
        kinds.dedup();
        assert_eq!(kinds.len(), MODELS.len());
        for m in MODELS {
            let mut names: Vec<_> = m.algorithms.iter().map(|a| a.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), m.algorithms.len(), "{}", m.kind);
            let (_, text) = crate::preset::load_text(m.teaching_preset).unwrap();
            let cfg = crate::preset::Config::from_toml(&text, m.teaching_preset).unwrap();
            assert_eq!(cfg.kind(), m.kind);
            // every listed algorithm is found again from its preset keys
            for a in m.listed() {
                assert_eq!(m.algorithm_of(a.algorithm, a.timestamps), Some(a));
            }
        }
    }
}
