//! Live plots. Torus: utilization and sojourn time against simulated time (with the
//! analytic values where they exist), parallel events per step (series and histogram), and
//! cumulative causality errors. Diffusion: step size, cells updated per step and mean
//! temperature against simulated time. A/B sessions are overlaid.

use super::session::Session;
use crate::time::to_units;
use eframe::egui;
use egui_plot::{Bar, BarChart, HLine, Legend, Line, Plot, PlotPoints};
use std::io::Write;

/// Steps shown in the events-per-step series.
const RECENT_STEPS: usize = 2000;

fn tag(s: &Session, i: usize, ab: bool) -> String {
    let alg = s.algorithm_label().replace(" / ", "/");
    if ab {
        format!("{}: {alg}", ["A", "B"][i])
    } else {
        alg
    }
}

/// One plot with a line per session (`points` gives a session's) and an optional
/// reference line.
fn plot_series(
    ui: &mut egui::Ui,
    [w, h]: [f32; 2],
    (label, hover): (&str, &str),
    sessions: &[&Session],
    points: impl Fn(&Session) -> Vec<[f64; 2]>,
    reference: Option<(&str, f64)>,
) {
    let ab = sessions.len() > 1;
    ui.vertical(|ui| {
        ui.label(label).on_hover_text(hover);
        Plot::new(label)
            .width(w)
            .height(h)
            .legend(Legend::default())
            .show(ui, |p| {
                for (i, s) in sessions.iter().enumerate() {
                    p.line(Line::new(tag(s, i, ab), PlotPoints::from(points(s))));
                }
                if let Some((name, v)) = reference {
                    p.hline(HLine::new(name, v).style(egui_plot::LineStyle::dashed_loose()));
                }
            });
    });
}

/// One plot of a sample field against simulated time for every session.
fn time_series(
    ui: &mut egui::Ui,
    size: [f32; 2],
    text: (&str, &str),
    sessions: &[&Session],
    value: impl Fn(&super::session::Sample) -> f64,
    reference: Option<(&str, f64)>,
) {
    let points = |s: &Session| s.samples.iter().map(|x| [x.time, value(x)]).collect();
    plot_series(ui, size, text, sessions, points, reference);
}

/// Per sample interval: (time at its end, Δ of one sample field / Δ of another), skipping
/// intervals where the second did not move.
fn per_interval(
    s: &Session,
    num: impl Fn(&super::session::Sample) -> f64,
    den: impl Fn(&super::session::Sample) -> f64,
) -> Vec<[f64; 2]> {
    s.samples
        .windows(2)
        .filter_map(|w| {
            let d = den(&w[1]) - den(&w[0]);
            (d > 0.0).then(|| [w[1].time, (num(&w[1]) - num(&w[0])) / d])
        })
        .collect()
}

/// Draws the plots of `a`'s model for `a` (and `b`).
pub fn show(ui: &mut egui::Ui, a: &Session, b: Option<&Session>) {
    // claim the whole panel: content a few pixels short of it would let the resizable
    // panel shrink to fit, frame after frame
    ui.set_min_height(ui.available_height());
    if a.is_diffusion() {
        show_diffusion(ui, a, b);
    } else {
        show_torus(ui, a, b);
    }
}

fn show_diffusion(ui: &mut egui::Ui, a: &Session, b: Option<&Session>) {
    let sessions: Vec<&Session> = std::iter::once(a).chain(b).collect();
    let w = (ui.available_width() - 18.0) / 3.0;
    let h = ui.available_height() - 24.0;
    // a quantity per step, averaged over each sample interval (optionally as log10)
    let derived = |ui: &mut egui::Ui,
                   text: (&str, &str),
                   num: fn(&super::session::Sample) -> f64,
                   log_y: bool| {
        let points = |s: &Session| {
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
            match &a.config {
                crate::preset::Config::Diffusion(c) if c.model.beta == 0.0 => {
                    Some(("steady state", c.model.boundary))
                }
                _ => None,
            },
        );
    });
}

fn show_torus(ui: &mut egui::Ui, a: &Session, b: Option<&Session>) {
    let Some(cfg) = a.torus() else { return };
    let sessions: Vec<&Session> = std::iter::once(a).chain(b).collect();
    let ab = sessions.len() > 1;
    let w = (ui.available_width() - 24.0) / 4.0;
    let h = ui.available_height() - 24.0;
    ui.horizontal(|ui| {
        let exponential = cfg.model.service == crate::models::torus::ServiceKind::Exponential;
        time_series(
            ui,
            [w, h],
            ("utilization", "Busy fraction up to t, averaged over facilities (on the GPU a service counts when it ends). The dashed line is the exact value N/(N+K−1) for exponential service."),
            &sessions,
            |x| x.utilization,
            exponential.then(|| ("analytic", cfg.model.analytic_utilization())),
        );
        time_series(
            ui,
            [w, h],
            ("mean sojourn time", "Queue wait + service per completed visit. The dashed line is the exact value M(N+K−1)/K for exponential service."),
            &sessions,
            |x| x.sojourn,
            exponential.then(|| ("analytic", cfg.model.analytic_sojourn())),
        );
        ui.vertical(|ui| {
            ui.label("parallel events per step").on_hover_text("Events processed together in each step (recent steps), and their histogram (bars, right axis scale). More events per step = more parallelism for the GPU.");
            Plot::new("events").width(w).height(h).legend(Legend::default()).show(ui, |p| {
                for (i, s) in sessions.iter().enumerate() {
                    let log = s.engine().step_log();
                    let start = log.len().saturating_sub(RECENT_STEPS);
                    let pts: PlotPoints = log[start..].iter().map(|r| [to_units(r.t_min), r.events as f64]).collect();
                    p.line(Line::new(tag(s, i, ab), pts));
                }
            });
        });
        ui.vertical(|ui| {
            ui.label("causality errors (cumulative)").on_hover_text("Arrivals older than the last arrival their facility already processed. Always 0 for the exact algorithms.");
            Plot::new("errors").width(w).height(h * 0.55).legend(Legend::default()).show(ui, |p| {
                for (i, s) in sessions.iter().enumerate() {
                    let pts: PlotPoints = s.samples.iter().map(|x| [x.time, x.causality_errors as f64]).collect();
                    p.line(Line::new(tag(s, i, ab), pts));
                }
            });
            ui.label("events per step: histogram (recent steps)");
            Plot::new("hist").width(w).height(h * 0.3).show(ui, |p| {
                for (i, s) in sessions.iter().enumerate() {
                    let log = s.engine().step_log();
                    let recent = &log[log.len().saturating_sub(RECENT_STEPS)..];
                    p.bar_chart(BarChart::new(tag(s, i, ab), histogram(recent)));
                }
            });
        });
    });
}

fn histogram(log: &[crate::sim::StepRecord]) -> Vec<Bar> {
    let max = log.iter().map(|r| r.events).max().unwrap_or(0);
    if max == 0 {
        return Vec::new();
    }
    let bins = 24u64;
    let width = max.div_ceil(bins).max(1);
    let mut counts = vec![0u64; bins as usize + 1];
    for r in log {
        counts[(r.events / width) as usize] += 1;
    }
    counts
        .iter()
        .enumerate()
        .map(|(i, c)| {
            Bar::new((i as u64 * width) as f64 + width as f64 / 2.0, *c as f64).width(width as f64)
        })
        .collect()
}

/// Writes the plotted series as CSV: one row per sample and session.
pub fn write_csv(path: &std::path::Path, a: &Session, b: Option<&Session>) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(
        w,
        "session,algorithm,time,steps,events,utilization,mean_sojourn,causality_errors,mean_temperature,min_temperature,max_temperature"
    )?;
    for (i, s) in std::iter::once(a).chain(b).enumerate() {
        let alg = tag(s, i, false);
        for x in &s.samples {
            writeln!(
                w,
                "{},{alg},{},{},{},{},{},{},{},{},{}",
                ["A", "B"][i],
                x.time,
                x.steps,
                x.events,
                x.utilization,
                x.sojourn,
                x.causality_errors,
                x.mean_temperature,
                x.min_temperature,
                x.max_temperature
            )?;
        }
    }
    w.flush()
}
