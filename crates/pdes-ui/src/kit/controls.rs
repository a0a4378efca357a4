//! The controls the queueing forms share (the torus and the open network): a size as two
//! whole numbers, the service law, d as a slider with a typed box, the warm-up and the
//! seed. Each returns whether its value changed; hover texts are the model's own.

use eframe::egui;
use pdes_models::keys::Key;

/// A control's hover text: what it means (`help`), then its key and what the key takes,
/// in the words a refusal uses.
pub fn hint(help: &str, key: &Key) -> String {
    let takes = format!("{}: {}", key.name, key.words());
    if help.is_empty() {
        takes
    } else {
        format!("{help}\n\n{takes}")
    }
}

/// Two whole numbers side by side ("rows × cols"), each from 0 to `max`: 0 is let through
/// so that the preset's validation refuses it with the key and the range, not the widget.
pub fn size_pair(ui: &mut egui::Ui, label: &str, help: &str, a: &mut u32, b: &mut u32) -> bool {
    let lbl = ui.label(label).on_hover_text(help);
    let mut changed = false;
    ui.horizontal(|ui| {
        changed |= ui
            .add(egui::DragValue::new(a))
            .labelled_by(lbl.id)
            .changed();
        ui.label("×");
        changed |= ui
            .add(egui::DragValue::new(b))
            .labelled_by(lbl.id)
            .changed();
    });
    ui.end_row();
    changed
}

/// The service law: exponential (false) or shifted (true).
pub fn service_law(ui: &mut egui::Ui, help: &str, shifted: &mut bool) -> bool {
    ui.label("service").on_hover_text(help);
    let mut changed = false;
    ui.horizontal(|ui| {
        changed |= ui.selectable_value(shifted, false, "exponential").changed();
        changed |= ui.selectable_value(shifted, true, "shifted").changed();
    });
    ui.end_row();
    changed
}

/// d: a logarithmic slider and a box to type it in (`text`, kept beside the value). The
/// slider's own number box would clamp a typed -1 or 0 and ignore "abc" silently; a typed
/// number goes through the preset's validation instead, which refuses it with the reason,
/// and text that is not a number is refused here into `error`.
pub fn interval_d(
    ui: &mut egui::Ui,
    help: &str,
    d: &mut f64,
    text: &mut String,
    error: &mut Option<String>,
) -> bool {
    let mut changed = false;
    let d_label = ui
        .label("d")
        .on_hover_text(hint(help, &pdes_models::queueing::D));
    ui.horizontal(|ui| {
        let slider = ui.add(
            egui::Slider::new(d, 0.001..=100.0)
                .logarithmic(true)
                .show_value(false)
                .text("d (log)"),
        );
        if slider.changed() {
            changed = true;
            *text = format!("{d}");
        }
        let typed = ui
            .add(egui::TextEdit::singleline(text).desired_width(50.0))
            .labelled_by(d_label.id)
            .on_hover_text("d, typed: press Enter to apply");
        if typed.lost_focus() && text.trim() != format!("{d}") {
            match text.trim().parse::<f64>() {
                Ok(v) if v.is_finite() => {
                    *d = v;
                    changed = true;
                }
                _ => {
                    *error = Some(
                        pdes_models::queueing::D
                            .refuse(format!("\"{}\"", text.trim()))
                            .to_string(),
                    );
                }
            }
        } else if !typed.has_focus() && error.is_none() {
            *text = format!("{d}");
        }
    });
    ui.end_row();
    changed
}

/// One row of a form's grid: `label`, whose hover text is `help` with `key`'s range, and
/// the widget `edit` it labels; true when the value changed.
pub fn row(ui: &mut egui::Ui, label: &str, help: &str, key: &Key, edit: impl egui::Widget) -> bool {
    let lbl = ui.label(label).on_hover_text(hint(help, key));
    let changed = ui.add(edit).labelled_by(lbl.id).changed();
    ui.end_row();
    changed
}

/// The warm-up: a time from 0 on (below the end time, which the preset checks).
pub fn warmup(ui: &mut egui::Ui, help: &str, value: &mut f64) -> bool {
    let edit = egui::DragValue::new(value).speed(1.0);
    row(ui, "warm-up", help, &pdes_models::queueing::WARMUP, edit)
}

/// The random seed.
pub fn seed(ui: &mut egui::Ui, help: &str, seed: &mut u64) -> bool {
    row(
        ui,
        "seed",
        help,
        &pdes_models::keys::SEED,
        egui::DragValue::new(seed),
    )
}
