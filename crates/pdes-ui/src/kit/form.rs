//! The editable parameters of the left panel, validated through the same preset code as
//! the command line (one mechanism, one set of error messages).

use eframe::egui;
use pdes_models::AlgorithmInfo;
use pdes_models::preset::{Config, EngineKind};

/// An algorithm the controls offer: an entry of the model registry.
pub type AlgorithmChoice = &'static AlgorithmInfo;

/// The A/B comparison's default B algorithm: the model's first algorithm other than A's
/// (A's own when the model has only one; every model has at least one).
pub fn b_default(kind: &str, a: AlgorithmChoice) -> AlgorithmChoice {
    let all = choices(kind);
    all.iter().copied().find(|&x| x != a).unwrap_or(all[0])
}

/// The algorithms the controls list for the model of `kind`.
pub fn choices(kind: &str) -> Vec<AlgorithmChoice> {
    pdes_models::by_kind(kind)
        .map(|m| m.listed().collect())
        .unwrap_or_default()
}

/// One model's part of the left panel: its parameter widgets and the preset table its
/// values make. Each model implements it in its folder (`models/<model>/form.rs`) and the
/// registry's panel builds it from a configuration.
pub trait ModelForm: FormCopy + std::fmt::Debug {
    /// `model.kind`.
    fn kind(&self) -> &'static str;
    /// The "Model" section's widgets; true when a value changed.
    fn model_controls(&mut self, ui: &mut egui::Ui) -> bool;
    /// The model's rows of the run grid above the engine row (the torus's d; the grid's dt
    /// and quantum). A typed value that is not even a number goes to `error`.
    fn run_controls(&mut self, ui: &mut egui::Ui, error: &mut Option<String>) -> bool;
    /// The model's rows of the run grid below the engine row (the torus's seed).
    fn run_controls_after(&mut self, _ui: &mut egui::Ui) -> bool {
        false
    }
    /// The preset table of these values with `algorithm`, `engine` and `end_time`.
    fn table(&self, algorithm: AlgorithmChoice, engine: &str, end_time: f64) -> toml::Table;
}

/// The values in the controls (some may be invalid while the user types): the model's own
/// and the ones every model has.
#[derive(Debug)]
pub struct Form {
    /// The model's parameters and their widgets.
    pub model: Box<dyn ModelForm>,
    /// Algorithm (of the model in use).
    pub algorithm: AlgorithmChoice,
    /// Run on the GPU.
    pub gpu: bool,
    /// End time.
    pub end_time: f64,
}

impl Clone for Form {
    fn clone(&self) -> Self {
        Self {
            model: self.model.clone_box(),
            algorithm: self.algorithm,
            gpu: self.gpu,
            end_time: self.end_time,
        }
    }
}

impl Form {
    /// The form showing `cfg`, whose model's panel is `panel`.
    pub fn from_config(cfg: &Config, panel: &crate::kit::panel::Panel) -> Self {
        Self {
            model: (panel.form)(cfg),
            algorithm: cfg.algorithm_info(),
            gpu: cfg.engine() == EngineKind::Gpu,
            end_time: cfg.end_time(),
        }
    }

    /// `model.kind` of the model the form edits.
    pub fn kind(&self) -> &'static str {
        self.model.kind()
    }

    /// The model's form as its own type (tests).
    pub fn model_mut<T: 'static>(&mut self) -> Option<&mut T> {
        self.model.as_any_mut().downcast_mut::<T>()
    }

    /// Validates the form into a configuration, or the one-line reason it is invalid.
    pub fn to_config(&self) -> Result<Config, String> {
        self.to_config_with(self.algorithm)
    }

    /// The same parameters with another algorithm (the B side of A/B mode).
    pub fn to_config_with(&self, algorithm: AlgorithmChoice) -> Result<Config, String> {
        // CPU-only algorithms: the engine switch stays, the run goes to the CPU
        let engine = if self.gpu && algorithm.gpu {
            "gpu"
        } else {
            "cpu"
        };
        let table = self.model.table(algorithm, engine, self.end_time);
        Config::from_table(&table).map_err(|e| e.to_string())
    }
}

/// The run controls of the models that share the queueing run keys (the torus, the open
/// network): d (slider and typed text), the warm-up and the seed.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueingRun {
    /// The interval d.
    pub d: f64,
    /// d as typed in its box (validated when it loses focus).
    pub d_text: String,
    /// Statistics from this time on.
    pub warmup: f64,
    /// Seed.
    pub seed: u64,
}

/// What d, the warm-up and the seed mean for one model (their hover texts).
pub struct QueueingRunHelp {
    /// d's.
    pub d: &'static str,
    /// The warm-up's.
    pub warmup: &'static str,
    /// The seed's.
    pub seed: &'static str,
}

impl QueueingRun {
    /// The controls' values of `run`.
    pub fn of(run: &pdes_models::queueing::RunConfig) -> Self {
        Self {
            d: run.d,
            d_text: format!("{}", run.d),
            warmup: run.warmup,
            seed: run.seed,
        }
    }

    /// d's rows of the run grid (above the engine row); a typed value that is not a number
    /// goes to `error`.
    pub fn d_controls(
        &mut self,
        ui: &mut egui::Ui,
        error: &mut Option<String>,
        help: &QueueingRunHelp,
    ) -> bool {
        crate::kit::controls::interval_d(ui, help.d, &mut self.d, &mut self.d_text, error)
    }

    /// The warm-up's and the seed's rows (below the engine row).
    pub fn after_controls(&mut self, ui: &mut egui::Ui, help: &QueueingRunHelp) -> bool {
        let mut changed = crate::kit::controls::warmup(ui, help.warmup, &mut self.warmup);
        changed |= crate::kit::controls::seed(ui, help.seed, &mut self.seed);
        changed
    }

    /// The `[run]` section: algorithm (its timestamps, else `default_timestamps`), d, end
    /// time, warm-up (left out at 0, its default: a preset written from the window stays
    /// as short), seed, engine.
    pub fn table(
        &self,
        algorithm: AlgorithmChoice,
        default_timestamps: &'static str,
        end_time: f64,
        engine: &str,
    ) -> toml::Table {
        let mut run = toml::Table::new();
        run.insert("algorithm".into(), algorithm.algorithm.into());
        run.insert(
            "timestamps".into(),
            algorithm.timestamps.unwrap_or(default_timestamps).into(),
        );
        run.insert("d".into(), self.d.into());
        run.insert("end_time".into(), end_time.into());
        if self.warmup > 0.0 {
            run.insert("warmup".into(), self.warmup.into());
        }
        run.insert(
            "seed".into(),
            (self.seed.min(i64::MAX as u64) as i64).into(),
        );
        run.insert("engine".into(), engine.into());
        run
    }
}

/// `model.service` of a queueing model: "shifted" or "exponential".
pub fn service_name(shifted: bool) -> &'static str {
    if shifted { "shifted" } else { "exponential" }
}

/// A preset table from its two sections.
pub fn preset_table(model: toml::Table, run: toml::Table) -> toml::Table {
    let mut t = toml::Table::new();
    t.insert("model".into(), toml::Value::Table(model));
    t.insert("run".into(), toml::Value::Table(run));
    t
}

/// What every form has by being `Clone` (a boxed copy) and `'static` (`Any`).
pub trait FormCopy {
    /// A copy.
    fn clone_box(&self) -> Box<dyn ModelForm>;
    /// The form as `Any` (tests set a model's fields through it).
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

impl<T: ModelForm + Clone + 'static> FormCopy for T {
    fn clone_box(&self) -> Box<dyn ModelForm> {
        Box::new(self.clone())
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
