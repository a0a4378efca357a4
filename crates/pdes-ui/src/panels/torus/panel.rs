//! The torus in the window (its registry panel): the timeline strip — the current window
//! (or interval) over the pending event times —, the heatmap's hover text and the
//! inspector of a pinned facility.

use crate::kit::heatmap::Mode;
use crate::kit::plots::Series;
use crate::kit::plots::{RECENT_STEPS, legend_if_room, plot_title, tag, time_series_from};
use crate::kit::session::Session;
use eframe::egui;
use egui_plot::{Bar, BarChart, Line, Plot, PlotPoints};
use pdes_core::sim::StepRecord;
use pdes_core::time::to_units;
use pdes_models::torus::config::TorusConfig;
use pdes_models::torus::cpu::{CpuEngine, CpuTorus};
use pdes_models::torus::gpu::GpuTorus;
use pdes_models::torus::state::Facility;

/// Most facilities whose pending events the strip reads back from a GPU engine per frame.
const GPU_STRIP_FACILITIES: usize = 4096;

/// The current window over the pending events, on a time axis: the band from t_min to the
/// step's bound (its width is d for the window, so it grows with d), every facility's
/// pending departure as a tick at its time (CPU engines, and GPU engines up to 64×64).
pub fn timeline(ui: &mut egui::Ui, s: &Session) {
    let Some(cfg) = s.config.get::<TorusConfig>() else {
        return;
    };
    let log: &[StepRecord] = s.engine().step_log();
    let d = cfg.run.d;
    let t = to_units(s.now());
    let (lo, hi, label, hi_name) = match cfg.run.algorithm {
        pdes_models::queueing::Algorithm::Window => {
            (t, t + d, "window [t_min, t_min + d)", "t_min + d")
        }
        pdes_models::queueing::Algorithm::Interval => (
            t,
            (t / d).ceil() * d,
            "interval: up to the next multiple of d",
            "boundary",
        ),
        pdes_models::queueing::Algorithm::Sequential => {
            (t, t, "sequential: one event at a time", "")
        }
    };
    let pending = pending_departures(s, cfg);
    let last = log.last().map_or(0, |r| r.events);
    let gpu_note = if pending.is_empty() && s.runs_on() == "gpu" {
        "   (pending events: shown on the GPU for grids up to 64×64)"
    } else {
        ""
    };
    let header = format!(
        "{label}: t_min = {t:.3}{}   last step: {last} events   ticks: pending departures{gpu_note}",
        if hi_name.is_empty() {
            String::new()
        } else {
            format!(", {hi_name} = {hi:.3}")
        }
    );
    crate::kit::strip::show(
        ui,
        &crate::kit::strip::Strip {
            t,
            // a fixed span of time (a few mean services, at least 3d): d changes the band,
            // not the axis
            span: (6.0 * cfg.model.mean_service).max(3.0 * d).max(1e-3),
            band: (lo, hi),
            pending: &pending,
            header,
            caption: outline_caption(cfg.run.algorithm),
        },
    );
}

/// The pending departure times the strip shows: the CPU engines' state, or a GPU engine's
/// downloaded state up to [`GPU_STRIP_FACILITIES`] facilities; none otherwise.
fn pending_departures(s: &Session, cfg: &TorusConfig) -> Vec<f64> {
    let any = s.engine.as_any();
    let deps = |f: &[Facility]| -> Vec<f64> {
        f.iter()
            .take(200_000)
            .filter(|f| f.departure != pdes_models::torus::state::NEVER)
            .map(|f| to_units(f.departure))
            .collect()
    };
    if let Some(c) = any.downcast_ref::<CpuEngine>() {
        deps(&c.cpu.state().facilities)
    } else if let Some(g) = any.downcast_ref::<GpuTorus>()
        && (cfg.model.rows * cfg.model.cols) as usize <= GPU_STRIP_FACILITIES
    {
        g.shown_state()
            .map(|st| deps(&st.facilities))
            .unwrap_or_default()
    } else {
        Vec::new()
    }
}

/// What the heatmap's white outlines are (NEXT_STEP_BIT) under `algorithm`, and why they
/// may run together.
fn outline_caption(algorithm: pdes_models::queueing::Algorithm) -> &'static str {
    match algorithm {
        pdes_models::queueing::Algorithm::Window => {
            "outlined: the facilities with an event in the next window — they run in parallel, because every service lasts at least d: no event inside the window can cause an earlier one elsewhere"
        }
        pdes_models::queueing::Algorithm::Interval => {
            "outlined: the facilities with an event in the next interval — run together although one of them can send a token that should arrive before another's event: the interval is not a safe window"
        }
        pdes_models::queueing::Algorithm::Sequential => {
            "outlined: the one next event — sequential processes the earliest event, then looks again"
        }
    }
}

/// Following one token hop by hop (the window's "Follow"): from a CPU engine's state, or a
/// GPU engine's downloaded one up to [`GPU_STRIP_FACILITIES`] facilities.
pub static FOLLOW: crate::kit::panel::FollowToken = crate::kit::panel::FollowToken {
    serving: token_serving,
    place: token_place,
};

/// The state a follow reads: the CPU engine's, or a small GPU run's downloaded.
fn with_state<T>(
    s: &Session,
    read: impl FnOnce(&pdes_models::torus::state::TorusState) -> Option<T>,
) -> Option<T> {
    let any = s.engine.as_any();
    if let Some(c) = any.downcast_ref::<CpuEngine>() {
        return read(c.cpu.state());
    }
    let g = any.downcast_ref::<GpuTorus>()?;
    let (rows, cols) = s.shape();
    if (rows * cols) as usize > GPU_STRIP_FACILITIES {
        return None;
    }
    read(&g.shown_state().ok()?)
}

fn token_serving(s: &Session, f: u32) -> Option<u32> {
    with_state(s, |st| {
        let k = st.facilities.get(f as usize)?.serving;
        (k != pdes_models::torus::state::NONE).then_some(k)
    })
}

fn token_place(s: &Session, token: u32) -> Option<crate::kit::panel::TokenPlace> {
    with_state(s, |st| {
        let cell = st.token_place(token)?;
        let t = st.tokens.get(token as usize)?;
        Some(crate::kit::panel::TokenPlace {
            id: u64::from(token),
            cell,
            arrived: to_units(t.arrived),
            visits: t.visits,
        })
    })
}

/// The facts about a CPU facility that the hover text and the inspector both show.
fn facility_lines(ui: &mut egui::Ui, st: &Facility) {
    ui.label(format!("tokens: {}", st.tokens()));
    ui.label(format!("busy: {}", st.busy()));
    // what decides whether it is outlined: its departure inside [t_min, t_min + d)
    if st.departure == pdes_models::queueing::NEVER {
        ui.label("next departure: none (idle)");
    } else {
        ui.label(format!("next departure: {:.4}", to_units(st.departure)));
    }
    ui.label(format!("last arrival: {:.4}", to_units(st.last_arrival)));
}

/// The heatmap's hover text for facility `f`.
pub fn hover(ui: &mut egui::Ui, s: &Session, f: u32) {
    let cols = s.shape().1;
    ui.label(format!("facility ({}, {})", f / cols, f % cols));
    match s.engine.as_any().downcast_ref::<CpuEngine>() {
        Some(c) => facility_lines(ui, &c.cpu.state().facilities[f as usize]),
        None => {
            ui.label("click to pin and inspect");
        }
    }
}

/// The inspector of a pinned facility `f` (inside the grid: the caller checks).
pub fn inspector(ui: &mut egui::Ui, s: &Session, f: u32) {
    let cols = s.shape().1;
    ui.heading(format!("Facility ({}, {})", f / cols, f % cols));
    let engine = s.engine.as_any();
    if let Some(c) = engine.downcast_ref::<CpuEngine>() {
        let st = &c.cpu.state().facilities[f as usize];
        facility_lines(ui, st);
        ui.label(format!("causality errors: {}", st.causality_errors));
        if let CpuTorus::Stepped(st) = &c.cpu {
            let recent: Vec<_> = st
                .violations
                .iter()
                .rev()
                .filter(|v| v.facility == f)
                .take(8)
                .collect();
            if !recent.is_empty() {
                ui.label("recent violations (arrival < last arrival):");
                for v in recent {
                    ui.monospace(format!(
                        "step {:>6}: {:.4} < {:.4}",
                        v.step,
                        to_units(v.arrival),
                        to_units(v.last_arrival)
                    ));
                }
            }
        }
    } else if let Some(g) = engine.downcast_ref::<GpuTorus>() {
        // two small readbacks, not the whole grid
        match (s.display_word(f), g.facility_snapshot(f)) {
            (Some([word, _]), Ok((dep, last, err_step))) => {
                ui.label(format!(
                    "tokens: {}",
                    word & !pdes_models::torus::state::NEXT_STEP_BIT
                ));
                ui.label(match dep {
                    Some(t) => format!("busy, departs at {:.4}", to_units(t)),
                    None => "idle".to_string(),
                });
                if let Some(l) = last {
                    ui.label(format!("last arrival: {:.4}", to_units(l)));
                }
                ui.label(if err_step > 0 {
                    format!("latest causality error at step {err_step}")
                } else {
                    "no causality error".into()
                });
                ui.small("(the GPU keeps only the step of the latest violation; the CPU engine lists them)");
            }
            (_, Err(e)) => {
                ui.label(e.to_string());
            }
            (None, _) => {
                ui.label("(no heatmap buffer to read the tokens from)");
            }
        }
    }
}

/// The torus's plots: utilization and sojourn time against simulated time (with the exact
/// values for exponential service), parallel events per step (series and histogram), and
/// cumulative causality errors.
pub fn plots(ui: &mut egui::Ui, a: &Session, b: Option<&Session>) {
    let Some(cfg) = a.config.get::<pdes_models::torus::config::TorusConfig>() else {
        return;
    };
    let sessions: Vec<&Session> = std::iter::once(a).chain(b).collect();
    let ab = sessions.len() > 1;
    let w = (ui.available_width() - 24.0) / 4.0;
    let h = ui.available_height() - 24.0;
    ui.horizontal(|ui| {
        // The exponential model's exact values are drawn whatever the service: with shifted
        // service (the window algorithm) the gap to them is the bias the shift puts into the
        // model (paper 000 Figs. 14–15), which "window is exact" does not remove.
        let exponential = cfg.model.service == pdes_models::torus::ServiceKind::Exponential;
        let label = if exponential {
            "exact"
        } else {
            "exact, exponential service"
        };
        // with a warm-up the statistics start there, and so do their curves
        let from = cfg.run.warmup;
        time_series_from(
            ui,
            [w, h],
            ("utilization", "Busy fraction from the warm-up (run.warmup; 0 if none) up to t, averaged over facilities; a service in progress counts up to t, as `pdes-lab run` counts it (so the curve's last point is the run's utilization). Dashed: the exact value N/(N+K−1) of this network with exponential service. With shifted service (the window algorithm) the run is exact for the shifted model, which is not the exponential one: utilization sits above the line, more as d grows (paper 000 Fig. 14)."),
            &sessions,
            |x| x.utilization,
            Some((label, cfg.model.analytic_utilization())),
            from,
        );
        time_series_from(
            ui,
            [w, h],
            ("mean sojourn time", "Queue wait + service per visit completed since the warm-up. Dashed: the exact value M(N+K−1)/K of this network with exponential service; with shifted service the sojourn falls below it as d grows (paper 000 Fig. 15)."),
            &sessions,
            |x| x.sojourn,
            Some((label, cfg.model.analytic_sojourn())),
            from,
        );
        ui.vertical(|ui| {
            plot_title(ui, "parallel events per step", "Events processed together in each step (recent steps: faint), their moving mean over 1% of those steps (bold), and their histogram below. More events per step = more parallelism for the GPU.", w);
            legend_if_room(Plot::new("events").width(w).height(h), w).x_axis_label("simulated time").show(ui, |p| {
                for (i, s) in sessions.iter().enumerate() {
                    let log = s.engine().step_log();
                    let start = log.len().saturating_sub(RECENT_STEPS);
                    let pts: Vec<[f64; 2]> = log[start..].iter().map(|r| [to_units(r.t_min), r.events as f64]).collect();
                    let mean = crate::kit::plots::moving_mean(&pts, pts.len() / 100);
                    p.line(Line::new(format!("{} (each step)", tag(s, i, ab)), PlotPoints::from(pts)).color(egui::Color32::from_gray(90)).width(0.5));
                    p.line(Line::new(tag(s, i, ab), PlotPoints::from(mean)).width(2.0));
                }
            });
        });
        ui.vertical(|ui| {
            plot_title(ui, "causality errors (cumulative)", "Arrivals older than the last arrival their facility already processed. Always 0 for the exact algorithms.", w);
            // from 0, at least to 1: an all-zero series keeps readable labels
            legend_if_room(Plot::new("errors").width(w).height(h * 0.55), w).include_y(0.0).include_y(1.0).x_axis_label("simulated time").show(ui, |p| {
                for (i, s) in sessions.iter().enumerate() {
                    let pts: PlotPoints = s.samples.iter().map(|x| [x.time, x.causality_errors as f64]).collect();
                    p.line(Line::new(tag(s, i, ab), pts));
                }
            });
            plot_title(ui, "events per step: histogram (recent steps)", "How many steps processed each number of events, over the recent steps.", w);
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

fn histogram(log: &[pdes_core::sim::StepRecord]) -> Vec<Bar> {
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

/// The torus's panel in the registry.
pub const PANEL: crate::panels::Panel = crate::panels::Panel {
    hover,
    inspector,
    timeline: Some(timeline),
    form: super::form::form,
    modes: &[Mode::Tokens, Mode::Busy, Mode::Errors],
    colour_range,
    count_label: "tokens",
    count_mode: "queue length",
    plots,
    series: &[
        Series::Utilization,
        Series::MeanSojourn,
        Series::CausalityErrors,
        Series::Completions,
    ],
    monitors,
    violations,
    follow: Some(&FOLLOW),
    ..crate::panels::generic::PANEL
};

/// The colormap spans 0 … 4P tokens.
fn colour_range(s: &Session) -> (f32, f32) {
    match s.config.get::<pdes_models::torus::config::TorusConfig>() {
        Some(c) => (0.0, (c.model.tokens_per_facility * 4).max(4) as f32),
        None => (0.0, 4.0),
    }
}

/// The torus's monitors: utilization and sojourn with their exact values (exponential
/// service), the last step's events, causality errors so far.
fn monitors(s: &Session) -> Vec<crate::kit::monitors::Monitor> {
    use crate::kit::monitors::{BATCHES, Monitor, batch_means, last_step_events, latest};
    let Some(cfg) = s.config.get::<pdes_models::torus::config::TorusConfig>() else {
        return Vec::new();
    };
    let x = latest(s);
    let exact = if cfg.model.service == pdes_models::torus::ServiceKind::Exponential {
        "exact"
    } else {
        "exp. exact"
    };
    // the statistics' time span, said in the hover text: from 0, or from the warm-up
    let since = if cfg.run.warmup > 0.0 {
        format!("since the warm-up t = {} (none until then)", cfg.run.warmup)
    } else {
        "since t = 0 (no warm-up)".to_string()
    };
    // before the warm-up ends the statistics hold nothing: said, not shown as 0
    let warming_up = pdes_core::time::to_units(s.now()) < cfg.run.warmup;
    let statistic = |m: Monitor| {
        if warming_up {
            m.warming_up(cfg.run.warmup)
        } else {
            m
        }
    };
    // 95% intervals by batch means over the time since the warm-up: the same running
    // means, cut into spans (kit::monitors::batch_means)
    // (spans of at least five mean services: a facility's state forgets that fast)
    let (from, min_span) = (cfg.run.warmup, 5.0 * cfg.model.mean_service);
    let utilization_ci = batch_means(
        &s.samples,
        from,
        min_span,
        |x| x.utilization,
        |x| x.time - from,
    );
    let sojourn_ci = batch_means(
        &s.samples,
        from,
        min_span,
        |x| x.sojourn,
        |x| x.completions as f64,
    );
    let interval = format!(
        " ± is a 95% confidence interval by batch means (the run since the warm-up cut into {BATCHES} spans, shown once each span lasts five mean services): while the exact value lies inside it, the run has not shown a gap — a difference that small is noise; outside it, the gap is real (with shifted service: the bias of paper 000 Figs. 14-15)."
    );
    vec![
        statistic(Monitor::new("utilization", x.utilization, format!("Busy fraction {since}, averaged over facilities; beside it the exact value of this network with exponential service.{interval}"))
            .exact(exact, cfg.model.analytic_utilization())
            .within(utilization_ci)),
        statistic(Monitor::new("mean sojourn", x.sojourn, format!("Queue wait + service per visit completed {since}; beside it the exact value with exponential service.{interval}"))
            .exact(exact, cfg.model.analytic_sojourn())
            .within(sojourn_ci)),
        Monitor::new("events in the last step", last_step_events(s), "Events the last step processed together: the parallelism a GPU gets."),
        Monitor::new("causality errors", x.causality_errors as f64, "Arrivals older than the last one their facility processed, so far (0 for the exact algorithms)."),
    ]
}

/// The CPU stepped engine's recent causality errors (the GPU keeps only each facility's
/// latest step; its list is empty).
fn violations(s: &Session) -> Vec<crate::kit::violation::Violation> {
    match s
        .engine
        .as_any()
        .downcast_ref::<CpuEngine>()
        .map(|c| &c.cpu)
    {
        Some(CpuTorus::Stepped(st)) => st
            .violations
            .iter()
            .map(crate::kit::violation::of_engine)
            .collect(),
        _ => Vec::new(),
    }
}
