//! The M/M/c/k replications in the window: every heatmap cell is one replication
//! (customers in its system now); the plots show the analysis so far — the grand mean of
//! L̂ with its 95% interval narrowing as the runs lengthen, blocking and utilization —
//! each against its exact steady-state value.

use crate::kit::plots::Series;
use crate::kit::plots::time_series;
use crate::kit::session::Session;
use eframe::egui;
use pdes_core::time::to_units;
use pdes_models::mmck::Replication;
use pdes_models::mmck::analytic::Steady;
use pdes_models::mmck::config::MmckConfig;
use pdes_models::mmck::cpu::CpuMmck;
use pdes_models::mmck::gpu::GpuMmck;

/// Replication `i`, read from the engine (one readback on the GPU).
fn replication(s: &Session, i: u32) -> Option<Replication> {
    let any = s.engine.as_any();
    if let Some(c) = any.downcast_ref::<CpuMmck>() {
        return c.replications().get(i as usize).cloned();
    }
    any.downcast_ref::<GpuMmck>()
        .and_then(|g| g.replications().ok())
        .and_then(|r| r.get(i as usize).cloned())
}

/// The heatmap's hover text for cell `i`.
pub fn hover(ui: &mut egui::Ui, s: &Session, i: u32) {
    let Some(c) = s.config.get::<MmckConfig>() else {
        return;
    };
    if i >= c.run.replications {
        ui.label("(no replication)");
        return;
    }
    ui.label(format!("replication {i}"));
    if let Some(w) = s.display_word(i) {
        ui.label(format!("{} customers in the system", w[0]));
    }
    ui.label("click to pin and inspect");
}

/// The inspector of pinned replication `i`.
pub fn inspector(ui: &mut egui::Ui, s: &Session, i: u32) {
    ui.heading(format!("Replication {i}"));
    let (Some(c), Some(r)) = (s.config.get::<MmckConfig>(), replication(s, i)) else {
        ui.label("(no replication here)");
        return;
    };
    let t = &r.tally;
    let len = r.t.saturating_sub(t.t_start);
    ui.label(format!(
        "time {:.3}, {} in the system ({} waiting)",
        to_units(r.t),
        r.n,
        r.queue.len()
    ));
    ui.label(format!(
        "departures {} of {}{}",
        r.departures,
        c.run.customers,
        if r.done(&c.shape()) {
            " — finished"
        } else {
            ""
        }
    ));
    if len > 0 {
        ui.label(format!(
            "its L̂ = ∫n dt / T = {:.4} (exact {:.4})",
            t.area as f64 / len as f64,
            Steady::of(&c.model).number_in_system
        ));
        ui.label(format!("blocked {} of {} arrivals", t.blocked, t.arrivals));
    }
    ui.label("Each replication is an independent run with its own random numbers (seed, replication number); the grand mean over them and its confidence interval are in the plots.");
}

/// The replications' plots.
pub fn plots(ui: &mut egui::Ui, a: &Session, b: Option<&Session>) {
    let sessions: Vec<&Session> = std::iter::once(a).chain(b).collect();
    let exact = a.config.get::<MmckConfig>().map(|c| Steady::of(&c.model));
    let w = (ui.available_width() - 18.0) / 3.0;
    let h = ui.available_height() - 24.0;
    let reference =
        |label: &'static str, v: fn(&Steady) -> f64| exact.as_ref().map(|e| (label, v(e)));
    ui.horizontal(|ui| {
        time_series(
            ui,
            [w, h],
            ("number in system L̂", "Grand mean over the replications of each one's time-average number in system, up to the time on the axis. Runs start empty, so early values sit below the exact steady-state L (dashed); the next plot shows how sure the mean is."),
            &sessions,
            |x| x.number_in_system,
            reference("exact L", |e| e.number_in_system),
        );
        time_series(
            ui,
            [w, h],
            ("95% half-width of L̂", "Half-width of the Student-t 95% confidence interval of the grand mean across replications: it narrows as the replications lengthen (each L̂ varies less) — and as 1/√R with more replications."),
            &sessions,
            |x| x.number_in_system_ci,
            None,
        );
        time_series(
            ui,
            [w, h],
            ("blocking probability", "Arrivals that found k customers and were lost, over all arrivals so far; dashed: the exact p_k."),
            &sessions,
            |x| x.blocking,
            reference("exact p_k", |e| e.blocking),
        );
    });
}

/// The replications' panel in the registry.
pub const PANEL: crate::panels::Panel = crate::panels::Panel {
    hover,
    inspector,
    form: super::form::form,
    colour_range,
    count_label: "customers in system",
    count_mode: "customers in system",
    plots,
    series: &[
        Series::NumberInSystem,
        Series::NumberInSystemCi95,
        Series::Blocking,
        Series::Utilization,
        Series::MeanSojourn,
    ],
    monitors,
    ..crate::panels::generic::PANEL
};

/// Colours from an empty system to a full one (k).
fn colour_range(s: &Session) -> (f32, f32) {
    match s.config.get::<MmckConfig>() {
        Some(c) => (0.0, c.model.capacity as f32),
        None => (0.0, 5.0),
    }
}

/// The replications' monitors: L̂ with its interval's half-width, blocking and utilization
/// against their exact steady-state values.
fn monitors(s: &Session) -> Vec<crate::kit::monitors::Monitor> {
    use crate::kit::monitors::{Monitor, latest};
    let Some(c) = s.config.get::<MmckConfig>() else {
        return Vec::new();
    };
    let e = Steady::of(&c.model);
    let x = latest(s);
    vec![
        Monitor::new("L̂ (grand mean)", x.number_in_system, "Mean over replications of each one's time-average number in system; beside it the exact L.")
            .exact("exact", e.number_in_system),
        Monitor::new("95% half-width", x.number_in_system_ci, "Half-width of the Student-t 95% interval of the grand mean."),
        Monitor::new("blocking", x.blocking, "Arrivals lost (found k customers) over all arrivals; beside it the exact p_k.")
            .exact("exact", e.blocking),
        Monitor::new("utilization", x.utilization, "Busy fraction of a server; beside it λ(1 − p_k)/(cμ).")
            .exact("exact", e.utilization),
    ]
}
