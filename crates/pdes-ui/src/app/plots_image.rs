//! "Export → Plots as PNG…": the plots panel as the screen shows it (issue 56 §5: a page's
//! plots could not be kept as images). The window asks eframe for a screenshot (desktop
//! and page alike), takes the plots panel's rectangle out of it and saves that as PNG.

use super::PdesApp;
use eframe::egui;
use std::sync::{Arc, Mutex};

/// Where the screenshot this export asked for lands when eframe has read the pixels back
/// (on a later frame): the window takes it from there.
pub type PlotsShot = Arc<Mutex<Option<Arc<egui::ColorImage>>>>;

impl PdesApp {
    /// Asks for the screenshot the plots' image is cut from (it comes on a later frame).
    pub(super) fn ask_for_plots_image(&mut self, ctx: &egui::Context) {
        if self.plots_rect.is_none() {
            self.message = Some("plots: none shown (open the Live run view)".into());
            return;
        }
        let landing = self.plots_shot.clone();
        let repaint = ctx.clone();
        ctx.request_screenshot(move |image| {
            *landing.lock().unwrap_or_else(|e| e.into_inner()) = Some(image);
            repaint.request_repaint();
        });
    }

    /// Takes this export's screenshot, if it came: cut to the plots and saved.
    pub(super) fn take_plots_image(&mut self, ctx: &egui::Context) {
        let shot = self
            .plots_shot
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(image) = shot {
            self.save_plots_image(&image, ctx.pixels_per_point());
        }
    }

    /// Cuts the plots out of window screenshot `image` and saves them as PNG, saying what
    /// happened in the status line.
    pub fn save_plots_image(&mut self, image: &egui::ColorImage, pixels_per_point: f32) {
        let Some(rect) = self.plots_rect else {
            return;
        };
        self.message = Some(match plots_png(image, rect, pixels_per_point) {
            Ok(bytes) => {
                crate::kit::files::save("pdes-plots.png", "PNG", &["png"], &bytes).message("plots")
            }
            Err(e) => format!("plots: could not draw them: {e}"),
        });
    }
}

/// The part of screenshot `image` inside `rect` (points, `pixels_per_point` pixels each)
/// as PNG bytes (RGBA).
pub fn plots_png(
    image: &egui::ColorImage,
    rect: egui::Rect,
    pixels_per_point: f32,
) -> Result<Vec<u8>, String> {
    let [w, h] = image.size;
    let px = |v: f32, most: usize| ((v * pixels_per_point).round().max(0.0) as usize).min(most);
    let (x0, x1) = (px(rect.left(), w), px(rect.right(), w));
    let (y0, y1) = (px(rect.top(), h), px(rect.bottom(), h));
    if x1 <= x0 || y1 <= y0 {
        return Err("the plots are outside the window".into());
    }
    let mut rgba = Vec::with_capacity((x1 - x0) * (y1 - y0) * 4);
    for y in y0..y1 {
        for c in &image.pixels[y * w + x0..y * w + x1] {
            rgba.extend_from_slice(&c.to_srgba_unmultiplied());
        }
    }
    let mut bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut bytes, (x1 - x0) as u32, (y1 - y0) as u32);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(|e| e.to_string())?;
        writer.write_image_data(&rgba).map_err(|e| e.to_string())?;
    }
    Ok(bytes)
}
