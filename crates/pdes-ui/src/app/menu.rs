//! The menu bar: presets (built-in, open, save), exports (CSV, PNG), heatmap mode.

use super::PdesApp;
use super::heatmap::{self, Mode};
use super::plots;
use crate::kit::files::{self, Picked};
use eframe::egui;
use pdes_models::preset;

/// The least length of an exported heatmap PNG's longer side, in pixels (a cell is a
/// square of pixels, never less than one).
pub const PNG_LEAST_SIDE: u32 = 512;

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
            // closed by a click outside it or by a choice, not by any click inside: the
            // typed path's field closed the menu when clicked, so nothing could be typed
            // (issue 56 §5)
            let stays_open = egui::containers::menu::MenuConfig::new()
                .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
            egui::containers::menu::MenuButton::new("Presets")
                .config(stays_open)
                .ui(ui, |ui| {
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
                    self.opening_preset = Some(files::pick("preset", &["toml"]));
                }
                // where no file dialog can be shown (no desktop portal, no GTK), a typed path
                #[cfg(not(target_arch = "wasm32"))]
                ui.horizontal(|ui| {
                    let label = ui.label("or a path:");
                    ui.add(
                        egui::TextEdit::singleline(&mut self.preset_path)
                            .hint_text("…/my-preset.toml")
                            .desired_width(200.0),
                    )
                    .labelled_by(label.id);
                    let path = self.preset_path.trim().to_string();
                    if ui
                        .add_enabled(!path.is_empty(), egui::Button::new("Open path"))
                        .on_hover_text("Opens the preset file at this path (for desktops where the file dialog cannot be shown).")
                        .clicked()
                    {
                        ui.close();
                        self.load_preset(&path);
                    }
                });
                if ui.button("Save as…").clicked() {
                    ui.close();
                    self.save_preset_dialog();
                }
            });
            ui.menu_button("Export", |ui| {
                if ui.button("Plotted series as CSV…").clicked() {
                    ui.close();
                    let text = plots::csv_text(&self.a, self.b.as_ref());
                    let saved = files::save("pdes-series.csv", "CSV", &["csv"], text.as_bytes());
                    self.message = Some(saved.message("plotted series"));
                }
                if ui
                    .button("Plots as PNG…")
                    .on_hover_text("The plots as the window shows them, as an image.")
                    .clicked()
                {
                    ui.close();
                    let ctx = ui.ctx().clone();
                    self.ask_for_plots_image(&ctx);
                }
                if ui.button("Heatmap as PNG…").clicked() {
                    ui.close();
                    self.message = Some(match self.png_bytes() {
                        Ok(bytes) => files::save("pdes-heatmap.png", "PNG", &["png"], &bytes)
                            .message("heatmap"),
                        Err(e) => format!("heatmap: could not draw it: {e}"),
                    });
                }
            });
            if ui
                .button("Copy link")
                .on_hover_text("Copies this configuration as a link (?preset=…&run.d=…): the browser build opens exactly this run from it, and the same key=value pairs work as --set on the command line.")
                .clicked()
            {
                self.copy_link(ui.ctx());
            }
            ui.separator();
            ui.label("Heatmap:");
            for &m in Mode::of(&self.a) {
                ui.selectable_value(&mut self.mode, m, m.label_in(&self.a));
            }
        });
    }

    /// Copy link: in the browser the page's address with the configuration as its query
    /// (also put in the address bar); on the desktop the query and the command line that
    /// runs the same configuration.
    fn copy_link(&mut self, ctx: &egui::Context) {
        let link = match self.link() {
            Ok(l) => l,
            Err(e) => {
                self.message = Some(format!("no link: {e}"));
                return;
            }
        };
        #[cfg(target_arch = "wasm32")]
        let text = super::web::address_of(&link);
        #[cfg(not(target_arch = "wasm32"))]
        let text = {
            let sets: String = link.sets.iter().map(|s| format!(" --set {s}")).collect();
            format!("?{}\npdes-lab run {}{sets}", link.query(), link.preset)
        };
        self.message = Some(format!("copied: {}", text.replace('\n', "   ")));
        ctx.copy_text(text);
    }

    fn save_preset_dialog(&mut self) {
        let cfg = match self.form.to_config() {
            Ok(c) => c,
            Err(e) => {
                self.message = Some(format!("not saved: {e}"));
                return;
            }
        };
        let text = cfg.to_toml("Saved from PDES Lab");
        let saved = files::save("my-preset.toml", "preset", &["toml"], text.as_bytes());
        self.message = Some(saved.message("preset"));
    }

    /// Loads a preset the user picked or dropped: a path on the desktop, bytes in the
    /// browser.
    pub fn load_picked(&mut self, picked: Picked) {
        match picked {
            Picked::Path(p) => self.load_preset(&p.to_string_lossy()),
            Picked::Bytes { name, bytes } => match String::from_utf8(bytes) {
                Ok(text) => self.load_preset_text(&name, &text),
                Err(_) => {
                    self.message = Some(format!("{name}: not a preset (a preset is TOML text)"))
                }
            },
        }
    }

    /// The A heatmap, in the current mode and the colour range the screen and its legend
    /// use, as PNG bytes: each cell a square of pixels, the image at least
    /// [`PNG_LEAST_SIDE`] pixels on its longer side (one pixel a cell made a 16×16 grid a
    /// 16-pixel image, issue 56 §5).
    pub fn png_bytes(&self) -> Result<Vec<u8>, String> {
        let words = self.a.display_words().map_err(|e| e.to_string())?;
        let (rows, cols) = self.a.shape();
        // the screen's range (a count's top, "4+ tokens"); the largest count present made
        // an image whose colours the legend did not read
        let range = (self.a.panel.colour_range)(&self.a);
        let step = self.a.steps() as u32;
        let k = PNG_LEAST_SIDE.div_ceil(rows.max(cols).max(1)).clamp(1, 64);
        let (w, h) = (cols * k, rows * k);
        let mut rgb = Vec::with_capacity(w as usize * h as usize * 3);
        for row in words.chunks(cols.max(1) as usize) {
            let line: Vec<u8> = row
                .iter()
                .flat_map(|c| {
                    let [r, g, b] = heatmap::word_colour(self.mode, *c, step, range);
                    let px = [(r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8];
                    std::iter::repeat_n(px, k as usize).flatten()
                })
                .collect();
            for _ in 0..k {
                rgb.extend_from_slice(&line);
            }
        }
        let mut bytes = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut bytes, w, h);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            let mut writer = enc.write_header().map_err(|e| e.to_string())?;
            writer.write_image_data(&rgb).map_err(|e| e.to_string())?;
        }
        Ok(bytes)
    }
}
