//! The panel of a model that writes none: built only from what every model exposes — its
//! preset keys (a control per key, read from the configuration itself), its step counters
//! (events per step, the events monitor) and its heatmap words (a count per cell). A model
//! writes its own panel where it teaches something this one cannot (the torus's window
//! strip, the diffusion grid's temperatures, …).

use crate::kit::form::{AlgorithmChoice, ModelForm, preset_table};
use crate::kit::heatmap::Mode;
use crate::kit::monitors::{Monitor, last_step_events};
use crate::kit::plots::{per_interval, plot_series};
use crate::kit::session::Session;
use eframe::egui;
use pdes_models::preset::Config;

/// `[run]` keys the window's own controls set (algorithm, engine, end time) rather than
/// the form's rows.
const SET_BY_THE_WINDOW: [&str; 4] = ["algorithm", "timestamps", "engine", "end_time"];

/// The heatmap's hover text for cell `i`: where it is.
fn hover(ui: &mut egui::Ui, s: &Session, i: u32) {
    let (_, cols) = s.config.shape();
    ui.label(format!("cell ({}, {})", i / cols.max(1), i % cols.max(1)));
}

/// The inspector of pinned cell `i`.
fn inspector(ui: &mut egui::Ui, s: &Session, i: u32) {
    let (_, cols) = s.config.shape();
    ui.heading(format!("cell ({}, {})", i / cols.max(1), i % cols.max(1)));
    ui.label(format!(
        "{} has no inspector of its own.",
        s.config.model_info().label
    ));
}

/// The plot every engine can feed: events per step.
fn plots(ui: &mut egui::Ui, a: &Session, b: Option<&Session>) {
    let sessions: Vec<&Session> = std::iter::once(a).chain(b).collect();
    let size = [ui.available_width(), ui.available_height() - 24.0];
    plot_series(
        ui,
        size,
        (
            "events per step",
            "Events processed together per step (1 for a sequential algorithm).",
        ),
        &sessions,
        |s| per_interval(s, |x| x.events as f64, |x| x.steps as f64),
        None,
    );
}

/// The monitors every engine can feed.
fn monitors(s: &Session) -> Vec<Monitor> {
    let t = s.engine().totals();
    vec![
        Monitor::new("events", t.events as f64, "Events processed so far."),
        Monitor::new(
            "events in the last step",
            last_step_events(s),
            "Events the last step processed together.",
        ),
    ]
}

/// The colour range of the count mode: 0 to twice the events per cell so far (read from
/// the counters every frame, never from the device), so the spread around the mean shows.
fn colour_range(s: &Session) -> (f32, f32) {
    let (rows, cols) = s.config.shape();
    let cells = (f64::from(rows) * f64::from(cols)).max(1.0);
    let events = s.engine().totals().events as f64;
    (0.0, ((2.0 * events / cells).ceil() as f32).max(4.0))
}

/// The model's preset keys as editable values: `[model]` (its kind aside) and the `[run]`
/// keys the window does not set itself.
#[derive(Clone, Debug)]
struct GenericForm {
    kind: &'static str,
    model: toml::Table,
    run: toml::Table,
    /// The model's end time is a whole number (DEVS: whole steps).
    whole_end_time: bool,
}

/// The form showing `cfg`: every key its preset text holds.
pub fn form(cfg: &Config) -> Box<dyn ModelForm> {
    let table: toml::Table = cfg.to_toml("").parse().unwrap_or_default();
    let section = |name: &str, skip: &[&str]| -> toml::Table {
        let mut t = table
            .get(name)
            .and_then(toml::Value::as_table)
            .cloned()
            .unwrap_or_default();
        t.retain(|k, _| !skip.contains(&k));
        t
    };
    let whole_end_time = matches!(
        table.get("run").and_then(|r| r.get("end_time")),
        Some(toml::Value::Integer(_))
    );
    Box::new(GenericForm {
        whole_end_time,
        kind: cfg.kind(),
        model: section("model", &["kind"]),
        run: section("run", &SET_BY_THE_WINDOW),
    })
}

/// One row per key of `t`: a number, a checkbox or a word, as the key's value is; an inline
/// table (a generated network's shape, a service law) as its own keys below its name, its
/// `kind` as a word that is not edited here.
fn key_rows(ui: &mut egui::Ui, kind: &str, section: &str, t: &mut toml::Table) -> bool {
    let mut changed = false;
    let info = pdes_models::by_kind(kind);
    for (key, value) in t.iter_mut() {
        let dotted = format!("{section}.{key}");
        let takes = info
            .and_then(|m| m.key(&dotted))
            .map_or(String::new(), |k| format!("{dotted}: {}", k.words()));
        let lbl = ui.label(key.as_str()).on_hover_text(takes);
        let response = match value {
            toml::Value::Integer(i) => ui.add(egui::DragValue::new(i)),
            toml::Value::Float(x) => ui.add(egui::DragValue::new(x).speed(0.01)),
            toml::Value::Boolean(b) => ui.checkbox(b, ""),
            toml::Value::String(s) if key == "kind" && section.contains('.') => ui.label(&*s),
            toml::Value::String(s) => ui.text_edit_singleline(s),
            // a list (a network's stations) is the file's to say: one line instead of its
            // whole text, which ran off the panel
            toml::Value::Array(a) => ui.label(format!("{} entries", a.len())).on_hover_text(
                "Written in the preset file: edit the file and open it again (Presets → Open…).",
            ),
            toml::Value::Table(inner) => {
                let grid = egui::Grid::new(&dotted)
                    .num_columns(2)
                    .show(ui, |ui| key_rows(ui, kind, &dotted, inner));
                changed |= grid.inner;
                grid.response
            }
            other => ui.label(other.to_string()),
        };
        changed |= response.labelled_by(lbl.id).changed();
        ui.end_row();
    }
    changed
}

impl ModelForm for GenericForm {
    fn kind(&self) -> &'static str {
        self.kind
    }

    fn model_controls(&mut self, ui: &mut egui::Ui) -> bool {
        egui::Grid::new("generic model keys")
            .num_columns(2)
            .show(ui, |ui| key_rows(ui, self.kind, "model", &mut self.model))
            .inner
    }

    fn run_controls(&mut self, ui: &mut egui::Ui, _error: &mut Option<String>) -> bool {
        key_rows(ui, self.kind, "run", &mut self.run)
    }

    fn table(&self, algorithm: AlgorithmChoice, engine: &str, end_time: f64) -> toml::Table {
        let mut model = self.model.clone();
        model.insert("kind".into(), self.kind.into());
        let mut run = self.run.clone();
        // the window's values, for the keys this model has
        let info = pdes_models::by_kind(self.kind);
        let mut set = |key: &str, value: toml::Value| {
            if info.is_some_and(|m| m.has_key(&format!("run.{key}"))) {
                run.insert(key.into(), value);
            }
        };
        set("algorithm", algorithm.algorithm.into());
        if let Some(ts) = algorithm.timestamps {
            set("timestamps", ts.into());
        }
        set(
            "end_time",
            if self.whole_end_time {
                (end_time.round() as i64).into()
            } else {
                end_time.into()
            },
        );
        set("engine", engine.into());
        preset_table(model, run)
    }
}

/// The generic panel, and the values every other panel leaves as they are here (each
/// writes `..generic::PANEL` after its own fields).
pub const PANEL: crate::panels::Panel = crate::panels::Panel {
    hover,
    inspector,
    timeline: None,
    form,
    modes: &[Mode::Tokens],
    colour_range,
    work_label: "events",
    count_label: "",
    count_mode: "count per cell",
    plots,
    series: &[],
    monitors,
    cell_name: crate::kit::panel::grid_cell_name,
    violations: crate::kit::violation::none,
    max_steps_per_second: None,
    follow: None,
    graph: None,
};

#[cfg(test)]
mod tests {
    use pdes_models::preset::{Config, config_with};

    /// The generic form of every model's teaching preset gives back that configuration:
    /// every key kind (numbers, words, flags) is read and written as it was.
    #[test]
    fn the_generic_form_gives_back_every_models_configuration() {
        for m in pdes_models::MODELS {
            let cfg = config_with(m.teaching_preset, &[]).unwrap();
            let form = super::form(&cfg);
            assert_eq!(form.kind(), m.kind);
            let table = form.table(cfg.algorithm_info(), cfg.engine().name(), cfg.end_time());
            let back = Config::from_table(&table).unwrap();
            assert_eq!(back, cfg, "{}", m.kind);
        }
    }
}
