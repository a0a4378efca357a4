//! The torus's part of the left panel: rows × cols, tokens per facility, mean service and
//! its law, d (slider and typed value), seed — and the preset table they make.

use crate::kit::controls;
use crate::kit::form::{
    AlgorithmChoice, ModelForm, QueueingRun, QueueingRunHelp, preset_table, service_name,
};
use eframe::egui;
use pdes_models::preset::Config;
use pdes_models::torus::config;

/// The torus's values in the controls.
#[derive(Clone, Debug, PartialEq)]
pub struct TorusForm {
    /// Rows.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
    /// Tokens per facility.
    pub tokens_per_facility: u32,
    /// Mean service time.
    pub mean_service: f64,
    /// Shifted (true) or exponential service.
    pub shifted: bool,
    /// d, the warm-up and the seed.
    pub run: QueueingRun,
}

/// The registry's constructor: the form showing `cfg`.
pub fn form(cfg: &Config) -> Box<dyn ModelForm> {
    // the model's defaults: a test parses them, so they cannot fail in the window
    #[allow(clippy::expect_used)]
    let c = cfg
        .get::<pdes_models::torus::config::TorusConfig>()
        .cloned()
        .unwrap_or_else(|| {
            pdes_models::torus::config::TorusConfig::from_toml("", "defaults")
                .expect("the defaults are valid")
        });
    Box::new(TorusForm {
        rows: c.model.rows,
        cols: c.model.cols,
        tokens_per_facility: c.model.tokens_per_facility,
        mean_service: c.model.mean_service,
        shifted: c.model.service == pdes_models::torus::ServiceKind::Shifted,
        run: QueueingRun::of(&c.run),
    })
}

impl ModelForm for TorusForm {
    fn kind(&self) -> &'static str {
        "torus"
    }

    fn model_controls(&mut self, ui: &mut egui::Ui) -> bool {
        let mut changed = false;
        ui.label(pdes_models::torus::INFO.description).on_hover_text(
            "rows × cols service facilities on a torus, each a server with a FIFO queue. After service a token moves to one of the four neighbours at random (Sang et al. 2019, Park & Fishwick 2009).",
        );
        egui::Grid::new("model").num_columns(2).show(ui, |ui| {
            changed |= controls::size_pair(ui, "rows × cols", &controls::hint("Size of the torus; large sizes want the GPU engine.", &pdes_models::keys::ROWS), &mut self.rows, &mut self.cols);
            changed |= controls::row(ui, "tokens / facility", "Tokens that start at every facility (P). The network is closed: their number never changes.", &config::TOKENS_PER_FACILITY, egui::DragValue::new(&mut self.tokens_per_facility));
            changed |= controls::row(ui, "mean service M", "Mean service time of a visit.", &config::MEAN_SERVICE, egui::DragValue::new(&mut self.mean_service).speed(0.1));
            changed |= controls::service_law(ui, &controls::hint("Exponential with mean M, or shifted: d + Exp(M − d). Shifted keeps the mean but never serves faster than d — the lookahead that makes the window algorithm exact.", &config::SERVICE), &mut self.shifted);
        });
        changed
    }

    fn run_controls(&mut self, ui: &mut egui::Ui, error: &mut Option<String>) -> bool {
        self.run.d_controls(ui, error, &RUN_HELP)
    }

    fn run_controls_after(&mut self, ui: &mut egui::Ui) -> bool {
        self.run.after_controls(ui, &RUN_HELP)
    }

    fn table(&self, algorithm: AlgorithmChoice, engine: &str, end_time: f64) -> toml::Table {
        let mut model = toml::Table::new();
        model.insert("kind".into(), "torus".into());
        model.insert("rows".into(), i64::from(self.rows).into());
        model.insert("cols".into(), i64::from(self.cols).into());
        model.insert(
            "tokens_per_facility".into(),
            i64::from(self.tokens_per_facility).into(),
        );
        model.insert("mean_service".into(), self.mean_service.into());
        model.insert("service".into(), service_name(self.shifted).into());
        preset_table(
            model,
            self.run.table(algorithm, "original", end_time, engine),
        )
    }
}

/// What d, the warm-up and the seed mean here.
const RUN_HELP: QueueingRunHelp = QueueingRunHelp {
    d: "The interval. Window: events in [t_min, t_min + d) run together. Interval: events up to the next multiple of d. Larger d = more parallel events per step (faster) but, for the interval algorithms, more bias or more causality errors.",
    warmup: "Statistics (utilization, sojourn, throughput) cover only [warm-up, T]: the run starts with every facility busy, which biases time averages from t = 0 even under sequential.",
    seed: "Every service time and route is a pure function of (seed, token, visit): the same seed gives the same sample path in every exact algorithm, on the CPU and on the GPU.",
};
