//! The torus's part of the left panel: rows × cols, tokens per facility, mean service and
//! its law, d (slider and typed value), seed — and the preset table they make.

use crate::kit::form::{AlgorithmChoice, ModelForm, preset_table, queueing_run_table};
use eframe::egui;
use pdes_models::preset::Config;

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
    /// The interval d.
    pub d: f64,
    /// The text of d's typed field (validated when it loses focus).
    pub d_text: String,
    /// Seed.
    pub seed: u64,
    /// Warm-up time: statistics from here on.
    pub warmup: f64,
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
        d: c.run.d,
        d_text: format!("{}", c.run.d),
        seed: c.run.seed,
        warmup: c.run.warmup,
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
            let lbl = ui.label("rows × cols").on_hover_text("Size of the torus. Up to 16384 each; large sizes want the GPU engine.");
            ui.horizontal(|ui| {
                changed |= ui.add(egui::DragValue::new(&mut self.rows).range(0..=16384)).labelled_by(lbl.id).changed();
                ui.label("×");
                changed |= ui.add(egui::DragValue::new(&mut self.cols).range(0..=16384)).labelled_by(lbl.id).changed();
            });
            ui.end_row();
            let lbl = ui.label("tokens / facility").on_hover_text("Tokens that start at every facility (P). The network is closed: their number never changes.");
            changed |= ui.add(egui::DragValue::new(&mut self.tokens_per_facility).range(0..=1024)).labelled_by(lbl.id).changed();
            ui.end_row();
            let lbl = ui.label("mean service M").on_hover_text("Mean service time of a visit.");
            changed |= ui.add(egui::DragValue::new(&mut self.mean_service).speed(0.1).range(0.0..=4095.0)).labelled_by(lbl.id).changed();
            ui.end_row();
            ui.label("service").on_hover_text("Exponential with mean M, or shifted: d + Exp(M − d). Shifted keeps the mean but never serves faster than d — the lookahead that makes the window algorithm exact.");
            ui.horizontal(|ui| {
                changed |= ui.selectable_value(&mut self.shifted, false, "exponential").changed();
                changed |= ui.selectable_value(&mut self.shifted, true, "shifted").changed();
            });
            ui.end_row();
        });
        changed
    }

    fn run_controls(&mut self, ui: &mut egui::Ui, error: &mut Option<String>) -> bool {
        let mut changed = false;
        let d_label = ui.label("d").on_hover_text("The interval. Window: events in [t_min, t_min + d) run together. Interval: events up to the next multiple of d. Larger d = more parallel events per step (faster) but, for the interval algorithms, more bias or more causality errors.");
        ui.horizontal(|ui| {
            // the slider's own number box would clamp a typed -1 or 0 and ignore "abc"
            // silently; a typed value goes through the preset's validation instead, which
            // refuses it with the reason
            let slider = ui.add(egui::Slider::new(&mut self.d, 0.001..=100.0).logarithmic(true).show_value(false).text("d (log)"));
            if slider.changed() {
                changed = true;
                self.d_text = format!("{}", self.d);
            }
            let typed = ui.add(egui::TextEdit::singleline(&mut self.d_text).desired_width(50.0)).labelled_by(d_label.id).on_hover_text("d, typed: press Enter to apply");
            if typed.lost_focus() && self.d_text.trim() != format!("{}", self.d) {
                match self.d_text.trim().parse::<f64>() {
                    Ok(v) if v.is_finite() => {
                        self.d = v;
                        changed = true;
                    }
                    _ => {
                        *error = Some(format!(
                            "run.d: \"{}\" is not a number (expected a number ≥ 2^-20; 0 only for sequential)",
                            self.d_text.trim()
                        ));
                    }
                }
            } else if !typed.has_focus() && error.is_none() {
                self.d_text = format!("{}", self.d);
            }
        });
        ui.end_row();
        changed
    }

    fn run_controls_after(&mut self, ui: &mut egui::Ui) -> bool {
        let lbl = ui.label("warm-up").on_hover_text("Statistics (utilization, sojourn, throughput) cover only [warm-up, T]: the run starts with every facility busy, which biases time averages from t = 0 even under sequential. Must be below the end time.");
        let mut changed = ui
            .add(
                egui::DragValue::new(&mut self.warmup)
                    .speed(1.0)
                    .range(0.0..=f64::MAX),
            )
            .labelled_by(lbl.id)
            .changed();
        ui.end_row();
        let lbl = ui.label("seed").on_hover_text("Every service time and route is a pure function of (seed, token, visit): the same seed gives the same sample path in every exact algorithm, on the CPU and on the GPU.");
        changed |= ui
            .add(egui::DragValue::new(&mut self.seed))
            .labelled_by(lbl.id)
            .changed();
        ui.end_row();
        changed
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
        model.insert(
            "service".into(),
            if self.shifted {
                "shifted"
            } else {
                "exponential"
            }
            .into(),
        );
        let mut run =
            queueing_run_table(algorithm, "original", self.d, end_time, self.seed, engine);
        if self.warmup > 0.0 {
            run.insert("warmup".into(), self.warmup.into());
        }
        preset_table(model, run)
    }

    fn clone_box(&self) -> Box<dyn ModelForm> {
        Box::new(self.clone())
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
