//! The DEVS cell spaces in the window: the SIR grid as S/I/R colours (green, red, blue),
//! the benchmark as a two-colour field of digits; plots of the compartments over time,
//! imminent cells and routed messages per step; hover and inspector show a cell's state
//! with its last and next event times.

use crate::kit::heatmap::Mode;
use crate::kit::plots::Series;
use crate::kit::plots::{per_interval, plot_series, tag};
use crate::kit::session::Session;
use eframe::egui;
use egui_plot::{Legend, Line, Plot, PlotPoints};
use pdes_models::devs::config::DevsConfig;
use pdes_models::devs::gpu::GpuDevs;
use pdes_models::devs::live::CpuDevs;
use pdes_models::devs::{Cell, Rule, sir_unpack};

/// Cell `i`'s (state, last, next) from the engine (one readback on the GPU).
fn cell(s: &Session, i: u32) -> Option<(Cell, u32, u32)> {
    let any = s.engine.as_any();
    let i = i as usize;
    if let Some(c) = any.downcast_ref::<CpuDevs>() {
        let sim = c.sim();
        return Some((*sim.cells().get(i)?, sim.last()[i], sim.next()[i]));
    }
    let g = any.downcast_ref::<GpuDevs>()?;
    let snap = g.snapshot().ok()?;
    let [last, next] = *snap.times.get(i)?;
    Some((snap.cells[i], last, next))
}

/// Imminent cells, messages and transitions per step, and over how many steps: the last
/// sample against the latest one before it with fewer steps (after a run's end the last
/// samples repeat its final step count, and the boxes said "no step yet": issue 56 §5).
pub fn per_step(samples: &[pdes_gpu::Sample]) -> Option<(f64, f64, f64, u64)> {
    let b = samples.last()?;
    let a = samples.iter().rev().find(|a| a.steps < b.steps)?;
    let n = (b.steps - a.steps) as f64;
    Some((
        (b.imminent - a.imminent) as f64 / n,
        (b.messages - a.messages) as f64 / n,
        (b.events - a.events) as f64 / n,
        b.steps - a.steps,
    ))
}

/// The widest a phase's box in the step diagram is drawn.
const PHASE_BOX_WIDTH: f32 = 180.0;

/// The four phases of the flattened coordinator's step, as a row of boxes above the grid,
/// each with what the last step did in it (per step over the last sample interval: after
/// a single Step, that step exactly). Paper 004 Figs. 5, 6, 8: the cells of a phase run in
/// parallel — one GPU thread each; the engines run the first three phases as one sweep
/// (they read only the state at t) and the fourth as a minimum over every cell.
pub fn phases(ui: &mut egui::Ui, s: &Session) {
    let per_step = per_step(&s.samples);
    let t = pdes_core::time::to_units(s.now());
    let sequential = s.algorithm_label() == "sequential";
    let count = |v: Option<f64>| v.map_or("—".to_string(), |x| format!("{x:.0}"));
    let boxes = [
        (
            "1 output",
            format!(
                "{} imminent cells (next = t) emit λ(s)",
                count(per_step.map(|p| p.0))
            ),
        ),
        (
            "2 route",
            format!(
                "{} messages pulled into in-bags along the couplings",
                count(per_step.map(|p| p.1))
            ),
        ),
        (
            "3 transition",
            format!(
                "{} transitions: δint (imminent), δext (input), δconf (both)",
                count(per_step.map(|p| p.2))
            ),
        ),
        (
            "4 next time",
            format!("t = min over every cell's next = {t:.0}"),
        ),
    ];
    // the four boxes in one row where they fit at a narrower width (at 800×600 they took
    // two rows and left the grid ~70 px): each a quarter of the room, arrows and margins
    // aside, between 90 px and PHASE_BOX_WIDTH
    let per_box = ((ui.available_width() - 3.0 * 24.0) / 4.0 - 16.0).clamp(90.0, PHASE_BOX_WIDTH);
    ui.horizontal_wrapped(|ui| {
        for (i, (title, text)) in boxes.iter().enumerate() {
            if i > 0 {
                ui.label("->");
            }
            egui::Frame::group(ui.style()).show(ui, |ui| {
                // never wider than the room left (a wider maximum widens the whole view)
                ui.set_max_width(ui.available_width().min(per_box));
                ui.vertical(|ui| {
                    ui.strong(*title);
                    ui.label(text);
                });
            });
        }
    });
    let over = match per_step {
        Some((.., 1)) => "the last step".to_string(),
        Some((.., n)) => format!("per step over the last {n} steps"),
        None => "no step yet".to_string(),
    };
    ui.label(
        egui::RichText::new(if sequential {
            format!("{over}. Sequential runs the same step with the classic PDEVS coordinator, cell by cell; the flattened coordinator runs each phase as one pass over all cells, each reading only the previous phase's arrays — so a phase's cells run in parallel, one GPU thread each.")
        } else {
            format!("{over}. A phase's cells run in parallel, one GPU thread each (paper 004 Figs. 5, 6, 8): phases 1–3 read only the state at t, so the engines run them as one pass that writes a second copy of the state; phase 4 needs every cell.")
        })
        .small(),
    );
}

/// A cell's state in words.
fn state_text(rule: &Rule, c: &Cell) -> String {
    match rule {
        Rule::Benchmark { .. } => format!("digit {}", c.value),
        Rule::Sir(_) => {
            let (s, i, r) = sir_unpack(c.value);
            format!(
                "s = {:.3}, i = {:.3}, r = {:.3}",
                f64::from(s) / 1000.0,
                f64::from(i) / 1000.0,
                f64::from(r) / 1000.0
            )
        }
    }
}

fn when(t: u32) -> String {
    if t == pdes_models::devs::PASSIVE {
        "never (passive)".into()
    } else {
        t.to_string()
    }
}

/// The heatmap's hover text for cell `i`.
pub fn hover(ui: &mut egui::Ui, s: &Session, i: u32) {
    let Some(cfg) = s.config.get::<DevsConfig>() else {
        return;
    };
    let (row, col) = (i / cfg.space.cols, i % cfg.space.cols);
    ui.label(format!("cell ({row}, {col})"));
    if let Some((c, last, next)) = cell(s, i) {
        ui.label(state_text(&cfg.rule, &c));
        ui.label(format!(
            "last transition t = {last}, next t = {}",
            when(next)
        ));
    }
    ui.label("click to pin and inspect");
}

/// The inspector of pinned cell `i`.
pub fn inspector(ui: &mut egui::Ui, s: &Session, i: u32) {
    let Some(cfg) = s.config.get::<DevsConfig>() else {
        return;
    };
    let (row, col) = (i / cfg.space.cols, i % cfg.space.cols);
    ui.heading(format!("Cell ({row}, {col})"));
    let Some((c, last, next)) = cell(s, i) else {
        ui.label("(no cell here)");
        return;
    };
    ui.label(state_text(&cfg.rule, &c));
    ui.label(format!("last = {last}, next = {}", when(next)));
    let mut coupled = [0u32; 9];
    let n = cfg.space.neighbours(i, &mut coupled);
    ui.label(format!(
        "coupled to {n} cells (itself included): each step it receives one message from each imminent one"
    ));
    ui.label(match cfg.rule {
        Rule::Benchmark { .. } => "Every step it is imminent (ta = 1) and has input (its own message), so it takes δconf: the digit flips.",
        Rule::Sir(_) => "Every step it is imminent (ta = 1) and receives the infected fraction of every coupled cell; δconf applies the SIR rule to their sum (exact thousandths).",
    });
}

/// The plots: compartments (SIR) or transitions (benchmark) over time, imminent cells and
/// messages per step.
pub fn plots(ui: &mut egui::Ui, a: &Session, b: Option<&Session>) {
    let sessions: Vec<&Session> = std::iter::once(a).chain(b).collect();
    let ab = sessions.len() > 1;
    let w = (ui.available_width() - 18.0) / 3.0;
    let h = ui.available_height() - 24.0;
    let sir = a
        .config
        .get::<DevsConfig>()
        .is_some_and(|c| matches!(c.rule, Rule::Sir(_)));
    ui.horizontal(|ui| {
        if sir {
            ui.vertical(|ui| {
                ui.label("S / I / R").on_hover_text(
                    "Mean susceptible, infected and recovered fractions over the cells: the epidemic's curves (they add up to 1 exactly).",
                );
                Plot::new("S / I / R")
                    .width(w)
                    .height(h)
                    .legend(Legend::default().position(egui_plot::Corner::RightTop))
                    .x_axis_label("simulated time (steps)")
                    .include_y(0.0)
                    .include_y(1.0)
                    .show(ui, |p| {
                        for (j, s) in sessions.iter().enumerate() {
                            for (k, name, rgb) in [
                                (0, "S", [60, 200, 80]),
                                (1, "I", [230, 60, 50]),
                                (2, "R", [80, 120, 240]),
                            ] {
                                let pts: Vec<[f64; 2]> =
                                    s.samples.iter().map(|x| [x.time, x.compartments[k]]).collect();
                                let label = if ab {
                                    format!("{name} ({})", tag(s, j, true))
                                } else {
                                    name.to_string()
                                };
                                let mut line = Line::new(label, PlotPoints::from(pts))
                                    .color(egui::Color32::from_rgb(rgb[0], rgb[1], rgb[2]));
                                if j == 1 {
                                    line = line.style(egui_plot::LineStyle::dashed_dense());
                                }
                                p.line(line);
                            }
                        }
                    });
            });
        } else {
            plot_series(
                ui,
                [w, h],
                ("transitions per step", "δint + δext + δconf per step: every cell, every step, in the benchmark (ta = 1)."),
                &sessions,
                |s| per_interval(s, |x| x.events as f64, |x| x.steps as f64),
                None,
            );
        }
        plot_series(
            ui,
            [w, h],
            ("imminent cells per step", "Cells whose next event is at the step's time: they all run in parallel in the flattened coordinator. With ta = 1 every cell is imminent at every step."),
            &sessions,
            |s| per_interval(s, |x| x.imminent as f64, |x| x.steps as f64),
            None,
        );
        plot_series(
            ui,
            [w, h],
            ("messages per step", "Messages routed per step: one per coupling of an imminent cell (9 for an inner cell of a Moore neighbourhood, fewer at the edges)."),
            &sessions,
            |s| per_interval(s, |x| x.messages as f64, |x| x.steps as f64),
            None,
        );
    });
}

/// The benchmark's panel in the registry.
pub const BENCHMARK_PANEL: crate::panels::Panel = crate::panels::Panel {
    hover,
    inspector,
    timeline: Some(phases),
    form: super::form::form,
    // calm by default: the flips undone; the flipping digits only on request
    modes: &[Mode::Steadied, Mode::Digit],
    colour_range,
    work_label: "transitions",
    count_label: "digit",
    count_mode: "count",
    plots,
    series: &[Series::Imminent, Series::Messages],
    monitors,
    // every cell of the benchmark changes its value every step: shown as digits at 20 steps
    // a second the whole field flashed yellow and black at 10 Hz (only in that mode)
    max_steps_per_second: Some(2.5),
    ..crate::panels::generic::PANEL
};

/// The SIR grid's panel in the registry.
pub const SIR_PANEL: crate::panels::Panel = crate::panels::Panel {
    modes: &[Mode::Compartments],
    count_label: "S / I / R",
    series: &[Series::Compartments, Series::Imminent, Series::Messages],
    // an epidemic front changes a few cells per step: no full-field flash
    max_steps_per_second: None,
    ..BENCHMARK_PANEL
};

fn colour_range(_: &Session) -> (f32, f32) {
    (0.0, 1.0)
}

/// The cell space's monitors: the compartments (SIR), and the last step's imminent cells,
/// messages and transitions.
fn monitors(s: &Session) -> Vec<crate::kit::monitors::Monitor> {
    use crate::kit::monitors::{Monitor, last_step_events, latest};
    let x = latest(s);
    let mut v = Vec::new();
    if s.config
        .get::<DevsConfig>()
        .is_some_and(|c| matches!(c.rule, Rule::Sir(_)))
    {
        let [sus, inf, rec] = x.compartments;
        v.push(Monitor::new(
            "mean s",
            sus,
            "Mean susceptible fraction over the cells.",
        ));
        v.push(Monitor::new(
            "mean i",
            inf,
            "Mean infected fraction over the cells.",
        ));
        v.push(Monitor::new(
            "mean r",
            rec,
            "Mean recovered fraction over the cells (s + i + r = 1 exactly in every cell).",
        ));
    }
    v.push(Monitor::new(
        "transitions in the last step",
        last_step_events(s),
        "δint + δext + δconf of the last step.",
    ));
    if let Some(c) = s.config.get::<DevsConfig>() {
        v.push(Monitor::new(
            "cells",
            f64::from(c.space.cells()),
            "Cells, every one imminent at every step (ta = 1).",
        ));
    }
    v
}

#[cfg(test)]
mod tests {
    use pdes_gpu::Sample;

    #[test]
    fn the_phases_count_the_last_steps_even_after_the_run_has_ended() {
        let at = |steps, imminent, messages, events| Sample {
            steps,
            imminent,
            messages,
            events,
            ..Sample::default()
        };
        // two samples at the final step count (the frame that found the run ended)
        let samples = [
            at(0, 0, 0, 0),
            at(8, 80, 160, 240),
            at(12, 120, 240, 360),
            at(12, 120, 240, 360),
        ];
        assert_eq!(super::per_step(&samples), Some((10.0, 20.0, 30.0, 4)));
        assert_eq!(super::per_step(&samples[..1]), None);
        assert_eq!(super::per_step(&[]), None);
    }
}
