//! The open network in the window: lines as heatmap rows and servers as columns, hover and
//! inspector facts, and its plots — utilization, sojourn per visit and tokens in the system
//! (which grows with the interval: paper 002 Fig. 3), with the Jackson values as references.

use crate::kit::heatmap::Mode;
use crate::kit::plots::Series;
use crate::kit::plots::time_series;
use crate::kit::session::Session;
use eframe::egui;
use pdes_core::time::to_units;
use pdes_models::open_network::config::OpenConfig;
use pdes_models::open_network::engine::OpenEngine;
use pdes_models::open_network::gpu::GpuOpen;
use pdes_models::torus::ServiceKind;

/// The facts of facility `f` (line, position): everything on the CPU engine; on the GPU
/// engine what one small readback gives.
fn facts(ui: &mut egui::Ui, s: &Session, f: u32) {
    if let Some(g) = s.engine.as_any().downcast_ref::<GpuOpen>() {
        match g.facility_snapshot(f) {
            Ok(snap) => {
                ui.label(match snap.departure {
                    Some(t) => format!("busy until {:.4}", to_units(t)),
                    None => "idle".to_string(),
                });
                if snap.last_error_step > 0 {
                    ui.label(format!(
                        "latest causality error in step {}",
                        snap.last_error_step
                    ));
                }
            }
            Err(e) => {
                ui.label(format!("could not read the facility: {e}"));
            }
        }
        return;
    }
    let Some(e) = s.engine.as_any().downcast_ref::<OpenEngine>() else {
        return;
    };
    let fac = &e.state().facilities[f as usize];
    ui.label(format!(
        "tokens: {}",
        fac.queued + u32::from(fac.serving != u32::MAX)
    ));
    ui.label(format!("busy: {}", fac.serving != u32::MAX));
    ui.label(format!("visits completed: {}", fac.completions));
    ui.label(format!("last arrival: {:.4}", to_units(fac.last_arrival)));
    if fac.causality_errors > 0 {
        ui.label(format!("causality errors: {}", fac.causality_errors));
    }
}

/// The heatmap's hover text.
pub fn hover(ui: &mut egui::Ui, s: &Session, f: u32) {
    let cols = s.shape().1;
    ui.label(format!("line {}, server {}", f / cols, f % cols));
    facts(ui, s, f);
}

/// The inspector of a pinned facility.
pub fn inspector(ui: &mut egui::Ui, s: &Session, f: u32) {
    let cols = s.shape().1;
    ui.heading(format!("Line {}, server {}", f / cols, f % cols));
    facts(ui, s, f);
    if f % cols + 1 == cols {
        ui.small("last server of its line: a token leaves with P_exit, else the switch sends it to a random line");
    }
}

/// The colormap spans 0 … 4 tokens.
fn colour_range(_: &Session) -> (f32, f32) {
    (0.0, 4.0)
}

/// Utilization, sojourn per visit and tokens in the system against simulated time.
pub fn plots(ui: &mut egui::Ui, a: &Session, b: Option<&Session>) {
    let Some(cfg) = a.config.get::<OpenConfig>() else {
        return;
    };
    let sessions: Vec<&Session> = std::iter::once(a).chain(b).collect();
    let w = (ui.available_width() - 18.0) / 3.0;
    let h = ui.available_height() - 24.0;
    // the Jackson values are drawn whatever the service: with shifted service the gap to
    // them is what the shift changes in the model
    let jackson = if cfg.model.service == ServiceKind::Exponential {
        "Jackson"
    } else {
        "Jackson, exponential service"
    };
    ui.horizontal(|ui| {
        time_series(
            ui,
            [w, h],
            ("utilization", "Busy fraction up to t, averaged over all servers. Dashed: the Jackson value ρ = λM/(lines·P_exit) for exponential service. An open network must serve every arrival, so delays barely change it."),
            &sessions,
            |x| x.utilization,
            Some((jackson, cfg.model.rho())),
        );
        time_series(
            ui,
            [w, h],
            ("mean sojourn per visit", "Queue wait + service per completed visit; dashed: M/(1 − ρ)."),
            &sessions,
            |x| x.sojourn,
            Some((jackson, cfg.model.analytic_sojourn())),
        );
        time_series(
            ui,
            [w, h],
            ("tokens in system", "Tokens in the network now. Delaying events to interval boundaries keeps tokens longer, so an open network holds more of them as the interval grows (paper 002 Fig. 3); dashed: the Jackson mean."),
            &sessions,
            |x| x.tokens_in_system,
            Some((jackson, cfg.model.analytic_tokens_in_system())),
        );
    });
}

/// The strip above the heatmap: where tokens come from and where they go (the heatmap has
/// a line per row and a server per column; the source and the switch are drawn here, on
/// its left and right), with the live counts that conservation ties together.
pub fn flow(ui: &mut egui::Ui, s: &Session) {
    let Some(cfg) = s.config.get::<OpenConfig>() else {
        return;
    };
    let m = &cfg.model;
    let last = s.samples.last();
    let in_system = last.map_or(0.0, |x| x.tokens_in_system);
    // wrapped: at 800 px the last sentence ran past the window's edge ("exit (50…")
    ui.horizontal_wrapped(|ui| {
        ui.label(
            egui::RichText::new(format!("source: λ = {} ->", m.arrival_rate))
                .color(egui::Color32::from_rgb(120, 200, 255)),
        )
        .on_hover_text("External arrivals, a Poisson stream: each token enters server 0 (left column) of a uniformly chosen line (row).");
        ui.label(format!(
            "{} lines × {} servers, {in_system:.0} tokens in the system",
            m.lines, m.servers_per_line
        ));
        ui.label(
            egui::RichText::new(format!(
                "-> after the last server: exit ({:.0}%) or switch to server 0 of a random line ({:.0}%)",
                100.0 * m.exit_probability,
                100.0 * (1.0 - m.exit_probability)
            ))
            .color(egui::Color32::from_rgb(255, 190, 120)),
        )
        .on_hover_text("The switch takes no time. Every line therefore receives λ/(lines·P_exit) tokens per unit of time: the external share plus the recirculated ones.");
    });
}

/// The open network's panel in the registry.
pub const PANEL: crate::panels::Panel = crate::panels::Panel {
    hover,
    inspector,
    timeline: Some(flow),
    form: super::form::form,
    modes: &[Mode::Tokens, Mode::Busy, Mode::Errors],
    colour_range,
    count_label: "tokens",
    count_mode: "queue length",
    plots,
    series: &[
        Series::Utilization,
        Series::MeanSojourn,
        Series::TokensInSystem,
        Series::MeanTokensInSystem,
    ],
    monitors,
    ..crate::panels::generic::PANEL
};

/// The open network's monitors: utilization, sojourn and tokens in the system against the
/// Jackson values, the last step's events.
fn monitors(s: &Session) -> Vec<crate::kit::monitors::Monitor> {
    use crate::kit::monitors::{Monitor, last_step_events, latest};
    let Some(cfg) = s.config.get::<OpenConfig>() else {
        return Vec::new();
    };
    let x = latest(s);
    vec![
        Monitor::new("utilization", x.utilization, "Busy fraction from the warm-up up to now over all servers, services in progress counted up to now (as `run` counts it); beside it the Jackson value ρ (exponential service).")
            .exact("Jackson", cfg.model.rho()),
        Monitor::new("sojourn per visit", x.sojourn, "Queue wait + service per completed visit; beside it M/(1 − ρ).")
            .exact("Jackson", cfg.model.analytic_sojourn()),
        Monitor::new("mean tokens in system", x.mean_tokens_in_system, "Time-average tokens in the network from the warm-up on (run's mean_tokens_in_system); beside it the Jackson network's mean. The plot shows the tokens there now.")
            .exact("Jackson", cfg.model.analytic_tokens_in_system()),
        Monitor::new("events in the last step", last_step_events(s), "Events the last step processed together."),
    ]
}
