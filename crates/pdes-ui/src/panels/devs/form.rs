//! The DEVS cell spaces' part of the left panel: the grid, its couplings, and the rule's
//! parameters (the benchmark's extra work; the SIR rates) — and the preset table they make.

use crate::kit::controls;
use crate::kit::form::{AlgorithmChoice, ModelForm, preset_table};
use eframe::egui;
use pdes_models::devs::config;
use pdes_models::devs::config::DevsConfig;
use pdes_models::devs::{Neighbourhood, Rule, SirRates};
use pdes_models::preset::Config;

/// The DEVS values in the controls.
#[derive(Clone, Debug, PartialEq)]
pub struct DevsForm {
    /// True: SIR; false: the benchmark.
    pub sir: bool,
    /// Rows.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
    /// Couplings.
    pub neighbourhood: Neighbourhood,
    /// Wrapping edges.
    pub wrap: bool,
    /// The benchmark's extra work per transition.
    pub work: u32,
    /// SIR rates (‰).
    pub rates: SirRates,
}

/// The registry's constructor: the form showing `cfg` (the teaching SIR grid for another
/// model).
pub fn form(cfg: &Config) -> Box<dyn ModelForm> {
    let c = cfg.get::<DevsConfig>();
    let (sir, work, rates) = match c.map(|c| c.rule) {
        Some(Rule::Benchmark { work }) => (false, work, SirRates::default()),
        Some(Rule::Sir(k)) => (true, 0, k),
        None => (true, 0, SirRates::default()),
    };
    Box::new(DevsForm {
        sir,
        rows: c.map_or(63, |c| c.space.rows),
        cols: c.map_or(63, |c| c.space.cols),
        neighbourhood: c.map_or(Neighbourhood::Moore, |c| c.space.neighbourhood),
        wrap: c.is_some_and(|c| c.space.wrap),
        work,
        rates,
    })
}

impl ModelForm for DevsForm {
    fn kind(&self) -> &'static str {
        if self.sir { "sir" } else { "devs-benchmark" }
    }

    fn model_controls(&mut self, ui: &mut egui::Ui) -> bool {
        let mut changed = false;
        let info = if self.sir {
            &pdes_models::devs::SIR_INFO
        } else {
            &pdes_models::devs::BENCHMARK_INFO
        };
        ui.label(info.description).on_hover_text(info.about);
        egui::Grid::new("devs model").num_columns(2).show(ui, |ui| {
            for (label, key, value) in [
                ("rows", &config::ROWS, &mut self.rows),
                ("cols", &config::COLS, &mut self.cols),
            ] {
                changed |= controls::row(ui, label, "", key, egui::DragValue::new(value));
            }
            ui.label("neighbourhood").on_hover_text(controls::hint(
                "The cells coupled to a cell, itself included: Moore = the 3×3 block (the paper's), von Neumann = the cell and its four edge neighbours.",
                &config::NEIGHBOURHOOD,
            ));
            ui.horizontal(|ui| {
                for n in [Neighbourhood::Moore, Neighbourhood::VonNeumann] {
                    changed |= ui
                        .selectable_value(&mut self.neighbourhood, n, n.name())
                        .changed();
                }
            });
            ui.end_row();
            changed |= controls::row(
                ui,
                "wrap",
                "Off (the paper's): edge cells have fewer couplings (4 or 6 in a Moore neighbourhood). On: the grid is a torus.",
                &config::WRAP,
                egui::Checkbox::new(&mut self.wrap, ""),
            );
            if self.sir {
                let k = &mut self.rates;
                for (label, key, help, value) in [
                    ("infection", &config::INFECTION_RATE, "Virulence: fraction of the exposed susceptibles infected per step (paper: 0.8).", &mut k.infection),
                    ("contact", &config::CONTACT_RATE, "Contact rate with the neighbourhood (paper: 0.4).", &mut k.contact),
                    ("recovery", &config::RECOVERY_RATE, "Fraction of the infected that recover per step (paper: 0.2).", &mut k.recovery),
                    ("weight", &config::NEIGHBOUR_WEIGHT, "Weight of each coupled cell's infected in the neighbourhood sum (paper: 0.111 ≈ 1/9).", &mut k.weight),
                ] {
                    let thousandths = egui::DragValue::new(value)
                        .custom_formatter(|v, _| format!("{:.3}", v / 1000.0))
                        .custom_parser(|s| s.trim().parse::<f64>().ok().map(|x| (x * 1000.0).round()));
                    changed |= controls::row(ui, label, help, key, thousandths);
                }
            } else {
                changed |= controls::row(ui, "work", "Extra integer arithmetic per transition (0 in the paper): raise it to see where the GPU starts to win.",
                    &config::WORK, egui::DragValue::new(&mut self.work));
            }
        });
        changed
    }

    fn run_controls(&mut self, _ui: &mut egui::Ui, _error: &mut Option<String>) -> bool {
        false
    }

    fn table(&self, algorithm: AlgorithmChoice, engine: &str, end_time: f64) -> toml::Table {
        let mut model = toml::Table::new();
        model.insert("kind".into(), self.kind().into());
        model.insert("rows".into(), i64::from(self.rows).into());
        model.insert("cols".into(), i64::from(self.cols).into());
        model.insert("neighbourhood".into(), self.neighbourhood.name().into());
        model.insert("wrap".into(), self.wrap.into());
        if self.sir {
            let k = &self.rates;
            for (key, v) in [
                ("infection_rate", k.infection),
                ("contact_rate", k.contact),
                ("recovery_rate", k.recovery),
                ("neighbour_weight", k.weight),
            ] {
                model.insert(key.into(), (f64::from(v) / 1000.0).into());
            }
        } else {
            model.insert("work".into(), i64::from(self.work).into());
        }
        let mut run = toml::Table::new();
        run.insert("algorithm".into(), algorithm.algorithm.into());
        // the controls hold time as a number; DEVS time is a whole number of steps
        run.insert(
            "end_time".into(),
            (end_time.round().clamp(0.0, f64::from(u32::MAX)) as i64).into(),
        );
        run.insert("engine".into(), engine.into());
        preset_table(model, run)
    }
}
