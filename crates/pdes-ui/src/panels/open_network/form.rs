//! The open network's part of the left panel: lines × servers, λ, P_exit, M and its law,
//! d, seed — and the preset table they make.

use crate::kit::controls;
use crate::kit::form::{
    AlgorithmChoice, ModelForm, QueueingRun, QueueingRunHelp, preset_table, service_name,
};
use eframe::egui;
use pdes_models::open_network::config;
use pdes_models::open_network::config::OpenConfig;
use pdes_models::preset::Config;

/// The open network's values in the controls.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenForm {
    /// Lines.
    pub lines: u32,
    /// Servers per line.
    pub servers_per_line: u32,
    /// λ.
    pub arrival_rate: f64,
    /// P_exit.
    pub exit_probability: f64,
    /// M.
    pub mean_service: f64,
    /// Shifted (true) or exponential service.
    pub shifted: bool,
    /// d, the warm-up and the seed.
    pub run: QueueingRun,
}

/// The registry's constructor: the form showing `cfg` (the generic one for a configuration
/// of another model, which the window never hands it).
pub fn form(cfg: &Config) -> Box<dyn ModelForm> {
    let Some(c) = cfg.get::<OpenConfig>() else {
        return crate::panels::generic::form(cfg);
    };
    Box::new(OpenForm {
        lines: c.model.lines,
        servers_per_line: c.model.servers_per_line,
        arrival_rate: c.model.arrival_rate,
        exit_probability: c.model.exit_probability,
        mean_service: c.model.mean_service,
        shifted: c.model.service == pdes_models::torus::ServiceKind::Shifted,
        run: QueueingRun::of(&c.run),
    })
}

impl ModelForm for OpenForm {
    fn kind(&self) -> &'static str {
        "open-network"
    }

    fn model_controls(&mut self, ui: &mut egui::Ui) -> bool {
        let mut changed = false;
        ui.label(pdes_models::open_network::INFO.description)
            .on_hover_text(pdes_models::open_network::INFO.about);
        egui::Grid::new("omodel").num_columns(2).show(ui, |ui| {
            changed |= controls::size_pair(ui, "lines × servers", &controls::hint("Tandem lines (rows) of single-server FIFO facilities (columns).", &config::LINES), &mut self.lines, &mut self.servers_per_line);
            for (label, help, key, value, speed) in [
                ("arrival rate λ", "External Poisson arrivals per time unit, each to a random line. Stable only while ρ = λM/(lines·P_exit) < 1.", &config::ARRIVAL_RATE, &mut self.arrival_rate, 0.01),
                ("exit probability", "After a line's last server a token leaves with this probability, else the switch sends it to a random line.", &config::EXIT_PROBABILITY, &mut self.exit_probability, 0.01),
                ("mean service M", "Mean service time of a visit.", &pdes_models::torus::config::MEAN_SERVICE, &mut self.mean_service, 0.1),
            ] {
                changed |= controls::row(ui, label, help, key, egui::DragValue::new(value).speed(speed));
            }
            changed |= controls::service_law(ui, &controls::hint("Exponential with mean M, or shifted: d + Exp(M − d), which the exact window algorithm needs.", &pdes_models::torus::config::SERVICE), &mut self.shifted);
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
        model.insert("kind".into(), "open-network".into());
        model.insert("lines".into(), i64::from(self.lines).into());
        model.insert(
            "servers_per_line".into(),
            i64::from(self.servers_per_line).into(),
        );
        model.insert("arrival_rate".into(), self.arrival_rate.into());
        model.insert("exit_probability".into(), self.exit_probability.into());
        model.insert("mean_service".into(), self.mean_service.into());
        model.insert("service".into(), service_name(self.shifted).into());
        preset_table(
            model,
            self.run.table(algorithm, "boundary", end_time, engine),
        )
    }
}

/// What d, the warm-up and the seed mean here.
const RUN_HELP: QueueingRunHelp = QueueingRunHelp {
    d: "The interval (TI in paper 002): window width, or the interval whose boundary events are moved to.",
    warmup: "Statistics (utilization, sojourn, tokens in the system, system time) cover only [warm-up, T]: the network starts empty, which biases every time average low from t = 0.",
    seed: "Every random number is a pure function of (seed, which arrival, which visit).",
};
