//! The M/M/c/k replications' part of the left panel: λ, μ, c, k; customers, replications,
//! warm-up and seed — and the preset table they make.

use crate::kit::controls;
use crate::kit::form::{AlgorithmChoice, ModelForm, preset_table};
use eframe::egui;
use pdes_models::mmck::config;
use pdes_models::mmck::config::MmckConfig;
use pdes_models::preset::Config;

/// The replications' values in the controls.
#[derive(Clone, Debug, PartialEq)]
pub struct MmckForm {
    /// λ.
    pub arrival_rate: f64,
    /// μ.
    pub service_rate: f64,
    /// c.
    pub servers: u32,
    /// k.
    pub capacity: u32,
    /// Departures per replication.
    pub customers: u64,
    /// Replications.
    pub replications: u32,
    /// Departures deleted at the start.
    pub warmup: u64,
    /// Seed.
    pub seed: u64,
}

/// The registry's constructor: the form showing `cfg` (paper 003's queue for another model).
pub fn form(cfg: &Config) -> Box<dyn ModelForm> {
    let c = cfg.get::<MmckConfig>();
    Box::new(MmckForm {
        arrival_rate: c.map_or(4.0, |c| c.model.arrival_rate),
        service_rate: c.map_or(1.0, |c| c.model.service_rate),
        servers: c.map_or(3, |c| c.model.servers),
        capacity: c.map_or(5, |c| c.model.capacity),
        customers: c.map_or(2000, |c| c.run.customers),
        replications: c.map_or(1024, |c| c.run.replications),
        warmup: c.map_or(0, |c| c.run.warmup),
        seed: c.map_or(1, |c| c.run.seed),
    })
}

impl ModelForm for MmckForm {
    fn kind(&self) -> &'static str {
        "mmck"
    }

    fn model_controls(&mut self, ui: &mut egui::Ui) -> bool {
        let mut changed = false;
        ui.label(pdes_models::mmck::INFO.description).on_hover_text(
            "Customers arrive at rate λ; c servers serve at rate μ each; at most k are in the system (in service included): an arrival that finds k is lost. Every heatmap cell is one independent replication (Cheng 2014, paper 003 §4).",
        );
        egui::Grid::new("mmck model").num_columns(2).show(ui, |ui| {
            for (label, key, help, value) in [
                (
                    "λ",
                    &config::ARRIVAL_RATE,
                    "Arrivals per unit time.",
                    &mut self.arrival_rate,
                ),
                (
                    "μ",
                    &config::SERVICE_RATE,
                    "Services per unit time of one server.",
                    &mut self.service_rate,
                ),
            ] {
                changed |= controls::row(
                    ui,
                    label,
                    help,
                    key,
                    egui::DragValue::new(value).speed(0.05),
                );
            }
            changed |= controls::row(
                ui,
                "c",
                "Servers.",
                &config::SERVERS,
                egui::DragValue::new(&mut self.servers),
            );
            changed |= controls::row(
                ui,
                "k",
                "Capacity: customers in the system at most, those in service included (k ≥ c).",
                &config::CAPACITY,
                egui::DragValue::new(&mut self.capacity),
            );
        });
        changed
    }

    fn run_controls(&mut self, ui: &mut egui::Ui, _error: &mut Option<String>) -> bool {
        let mut changed = false;
        changed |= controls::row(
            ui,
            "customers",
            "A replication ends at this departure.",
            &config::CUSTOMERS,
            egui::DragValue::new(&mut self.customers),
        );
        changed |= controls::row(
            ui,
            "replications",
            "Independent runs, one heatmap cell each (one GPU thread each). More replications narrow the confidence interval of the grand mean as 1/√R.",
            &config::REPLICATIONS,
            egui::DragValue::new(&mut self.replications),
        );
        changed |= controls::row(
            ui,
            "warm-up",
            "Departures deleted at the start of each replication: runs start empty, which biases L̂ low until the queue reaches its steady state.",
            &config::WARMUP,
            egui::DragValue::new(&mut self.warmup),
        );
        changed
    }

    fn run_controls_after(&mut self, ui: &mut egui::Ui) -> bool {
        controls::seed(
            ui,
            "Replication r draws from the generator keyed by (seed, r).",
            &mut self.seed,
        )
    }

    fn table(&self, algorithm: AlgorithmChoice, engine: &str, _end_time: f64) -> toml::Table {
        let mut model = toml::Table::new();
        model.insert("kind".into(), "mmck".into());
        model.insert("arrival_rate".into(), self.arrival_rate.into());
        model.insert("service_rate".into(), self.service_rate.into());
        model.insert("servers".into(), i64::from(self.servers).into());
        model.insert("capacity".into(), i64::from(self.capacity).into());
        let mut run = toml::Table::new();
        run.insert("algorithm".into(), algorithm.algorithm.into());
        for (k, v) in [
            ("customers", self.customers),
            ("warmup", self.warmup),
            ("seed", self.seed),
        ] {
            run.insert(k.into(), (v.min(i64::MAX as u64) as i64).into());
        }
        run.insert("replications".into(), i64::from(self.replications).into());
        run.insert("engine".into(), engine.into());
        preset_table(model, run)
    }
}
