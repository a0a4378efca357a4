//! The menu bar: presets (built-in, open, save), exports (CSV, PNG), heatmap mode.

use super::PdesApp;
use super::heatmap::{self, Mode};
use super::plots;
use eframe::egui;
use pdes_models::preset;

impl PdesApp {
    pub(super) fn menu_bar(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            use super::Tab;
            ui.selectable_value(&mut self.tab, Tab::Live, "Live run")
                .on_hover_text("The simulation as it runs: heatmap and plots over time.");
            ui.selectable_value(&mut self.tab, Tab::Sweep, "Sweep")
                .on_hover_text("The live configuration over a range of one key (d by default): each statistic against it, and speed against error for choosing d.");
            ui.selectable_value(&mut self.tab, Tab::Fit, "Fit")
                .on_hover_text("Normal mixtures of 1..K components fitted by maximum likelihood to a CSV column, the shipped sample or the live M/M/c/k run's per-replication L̂; BIC chooses K (paper 003 §3).");
            ui.selectable_value(&mut self.tab, Tab::Info, "Info")
                .on_hover_text("What the model simulates, what the colours, monitors and plots mean, which paper and figure it comes from, what to try first.");
            ui.separator();
            ui.menu_button("Presets", |ui| {
                for (name, text) in preset::builtin() {
                    if ui
                        .button(*name)
                        .on_hover_text(preset::description(text))
                        .clicked()
                    {
                        self.load_preset(name);
                        ui.close();
                    }
                }
                ui.separator();
                if ui.button("Open…").clicked() {
                    ui.close();
                    if let Some(p) = self.chosen(
                        rfd::FileDialog::new()
                            .add_filter("preset", &["toml"])
                            .pick_file(),
                        "nothing opened",
                    ) {
                        self.load_preset(&p.to_string_lossy());
                    }
                }
                if ui.button("Save as…").clicked() {
                    ui.close();
                    self.save_preset_dialog();
                }
            });
            ui.menu_button("Export", |ui| {
                if ui.button("Plotted series as CSV…").clicked() {
                    ui.close();
                    if let Some(p) = self.chosen(
                        rfd::FileDialog::new()
                            .set_file_name("pdes-series.csv")
                            .save_file(),
                        "not exported",
                    ) {
                        self.message = Some(match plots::write_csv(&p, &self.a, self.b.as_ref()) {
                            Ok(()) => format!("wrote {}", p.display()),
                            Err(e) => format!("could not write {}: {e}", p.display()),
                        });
                    }
                }
                if ui.button("Heatmap as PNG…").clicked() {
                    ui.close();
                    if let Some(p) = self.chosen(
                        rfd::FileDialog::new()
                            .set_file_name("pdes-heatmap.png")
                            .save_file(),
                        "not exported",
                    ) {
                        self.message = Some(match self.write_png(&p) {
                            Ok(()) => format!("wrote {}", p.display()),
                            Err(e) => format!("could not write {}: {e}", p.display()),
                        });
                    }
                }
            });
            ui.separator();
            ui.label("Heatmap:");
            for &m in Mode::of(&self.a) {
                ui.selectable_value(&mut self.mode, m, m.label_in(&self.a));
            }
        });
    }

    /// A file dialog's answer; when there is none, the status bar says so (a dialog that
    /// could not be shown — no desktop portal or GTK — looks like a cancel to rfd, and an
    /// action must never end without a word).
    fn chosen(
        &mut self,
        answer: Option<std::path::PathBuf>,
        what: &str,
    ) -> Option<std::path::PathBuf> {
        if answer.is_none() {
            self.message = Some(format!(
                "{what}: no file was chosen (cancelled, or this desktop offers no file dialog: rfd needs the XDG desktop portal or GTK; the command line writes the same files, see pdes-lab run --help)"
            ));
        }
        answer
    }

    fn save_preset_dialog(&mut self) {
        let cfg = match self.form.to_config() {
            Ok(c) => c,
            Err(e) => {
                self.message = Some(format!("not saved: {e}"));
                return;
            }
        };
        if let Some(p) = self.chosen(
            rfd::FileDialog::new()
                .add_filter("preset", &["toml"])
                .set_file_name("my-preset.toml")
                .save_file(),
            "not saved",
        ) {
            let text = cfg.to_toml("Saved from PDES Lab");
            self.message = Some(match std::fs::write(&p, text) {
                Ok(()) => format!("saved {}", p.display()),
                Err(e) => format!("could not save {}: {e}", p.display()),
            });
        }
    }

    /// Writes the A heatmap, in the current mode and colour range, as a PNG.
    pub fn write_png(&self, path: &std::path::Path) -> Result<(), String> {
        let words = self.a.display_words().map_err(|e| e.to_string())?;
        let (h, w) = self.a.shape();
        let range = match self.mode {
            // queue lengths span the largest one present
            Mode::Tokens | Mode::Busy | Mode::Errors | Mode::Digit | Mode::Compartments => (
                0.0,
                words.iter().map(|c| c[0]).max().unwrap_or(1).max(1) as f32,
            ),
            Mode::Temperature => (self.a.panel.colour_range)(&self.a),
        };
        let step = self.a.steps() as u32;
        let mut rgb = Vec::with_capacity(words.len() * 3);
        for c in &words {
            let [r, g, b] = heatmap::word_colour(self.mode, *c, step, range);
            rgb.extend([(r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8]);
        }
        let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
        let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(|e| e.to_string())?;
        writer.write_image_data(&rgb).map_err(|e| e.to_string())
    }
}
