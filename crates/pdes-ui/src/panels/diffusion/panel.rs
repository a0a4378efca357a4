//! The diffusion grid in the window (its registry panel): the heatmap's hover text and the
//! inspector of a pinned cell.

use crate::kit::heatmap::Mode;
use crate::kit::plots::Series;
use crate::kit::plots::{per_interval, plot_series, time_series};
use crate::kit::session::Session;
use eframe::egui;
use pdes_models::diffusion::config::DiffusionConfig;
use pdes_models::diffusion::cpu::CpuDiffusion;

/// The heatmap's hover text for cell `i`.
pub fn hover(ui: &mut egui::Ui, s: &Session, i: u32) {
    let cols = s.shape().1;
    ui.label(format!("cell ({}, {})", i / cols, i % cols));
    match s.engine.as_any().downcast_ref::<CpuDiffusion>() {
        Some(c) => {
            ui.label(format!("temperature {:.4}", c.temperature_at(i)));
        }
        None => {
            ui.label("click to pin and inspect");
        }
    }
}

/// The inspector of a pinned cell `i` (inside the grid: the caller checks).
pub fn inspector(ui: &mut egui::Ui, s: &Session, i: u32) {
    let cols = s.shape().1;
    ui.heading(format!("Cell ({}, {})", i / cols, i % cols));
    if let Some(w) = s.display_word(i) {
        ui.label(format!("temperature: {:.4}", f32::from_bits(w[0])));
    }
}

/// The diffusion grid's plots: step size, cells updated per step and mean temperature
/// against simulated time.
pub fn plots(ui: &mut egui::Ui, a: &Session, b: Option<&Session>) {
    let sessions: Vec<&Session> = std::iter::once(a).chain(b).collect();
    let w = (ui.available_width() - 18.0) / 3.0;
    let h = ui.available_height() - 24.0;
    // a quantity per step, averaged over each sample interval (optionally as log10)
    let derived =
        |ui: &mut egui::Ui, text: (&str, &str), num: fn(&pdes_gpu::Sample) -> f64, log_y: bool| {
            let points = |s: &crate::kit::plots::Trace| {
                per_interval(s, num, |x| x.steps as f64)
                    .into_iter()
                    .map(|[t, v]| [t, if log_y { v.max(1e-12).log10() } else { v }])
                    .collect()
            };
            plot_series(ui, [w, h], text, &sessions, points, None);
        };
    ui.horizontal(|ui| {
        derived(
            ui,
            ("step size (log10)", "Simulated time per step, averaged over each plot interval, as log10. Timestepped: the fixed dt. Hybrid: the earliest time any cell moves one quantum, which grows as the grid smooths (capped at the stability bound). Event: the time between two events."),
            |x| x.time,
            true,
        );
        derived(
            ui,
            ("cells updated per step", "Cells whose value changed in a step, averaged over each plot interval: the parallel work of a step. Timestepped and hybrid update every changing cell every step; an event updates a cell and its neighbours."),
            |x| x.events as f64,
            false,
        );
        time_series(
            ui,
            [w, h],
            ("mean temperature", "Mean over all cells. With β = 0 it rises towards the boundary temperature (dashed line)."),
            &sessions,
            |x| x.mean_temperature,
            match a.config.get::<DiffusionConfig>() {
                Some(c) if c.model.beta == 0.0 => Some(("steady state", c.model.boundary)),
                _ => None,
            },
        );
    });
}

/// The diffusion grid's panel in the registry.
pub const PANEL: crate::panels::Panel = crate::panels::Panel {
    hover,
    inspector,
    form: super::form::form,
    modes: &[Mode::Temperature],
    colour_range,
    work_label: "cell updates",
    count_label: "cells",
    count_mode: "count",
    plots,
    series: &[
        Series::MeanTemperature,
        Series::MinTemperature,
        Series::MaxTemperature,
    ],
    monitors,
    ..crate::panels::generic::PANEL
};

/// The range the temperature colormap spans: the initial and boundary temperatures,
/// widened to the latest sample's extremes (heating can go past the boundary).
fn colour_range(s: &Session) -> (f32, f32) {
    let Some(c) = s.config.get::<DiffusionConfig>() else {
        return (0.0, 1.0);
    };
    let (mut lo, mut hi) = (
        c.model.initial.min(c.model.boundary),
        c.model.initial.max(c.model.boundary),
    );
    if let Some(x) = s.samples.last() {
        lo = lo.min(x.min_temperature);
        hi = hi.max(x.max_temperature);
    }
    if hi <= lo {
        hi = lo + 1.0;
    }
    (lo as f32, hi as f32)
}

/// The diffusion grid's monitors: the temperatures and the last step's cell updates.
fn monitors(s: &Session) -> Vec<crate::kit::monitors::Monitor> {
    use crate::kit::monitors::{Monitor, last_step_events, latest};
    let x = latest(s);
    vec![
        Monitor::new(
            "mean temperature",
            x.mean_temperature,
            "Mean over the cells.",
        ),
        Monitor::new("lowest", x.min_temperature, "The coldest cell."),
        Monitor::new("highest", x.max_temperature, "The hottest cell."),
        Monitor::new(
            "cells updated in the last step",
            last_step_events(s),
            "Cell updates of the last step (every cell for timestepped and hybrid, one for event).",
        ),
    ]
}
