//! Your own network in the window: the stations by index on the heatmap (tokens present),
//! a table of the stations above it with their live utilization beside the exact value,
//! hover and inspector facts, monitors and plots against Jackson's or MVA's values. The
//! form is the generic one (the stations are the file's to say). Up to
//! [`graph::MOST_NODES`] stations the view is the graph (`graph.rs`): stations as nodes,
//! routes as arrows.

mod graph;

use crate::kit::monitors::{Monitor, last_step_events, latest};
use crate::kit::plots::Series;
use crate::kit::plots::{per_interval, plot_series, time_series, time_series_from};
use crate::kit::session::Session;
use eframe::egui;
use pdes_core::time::to_units;
use pdes_models::network::analytic::Values;
use pdes_models::network::config::NetworkConfig;
use pdes_models::network::engine::NetEngine;
use pdes_models::network::gpu::GpuNetwork;
use pdes_models::network::spec::EXIT;
use pdes_models::network::state::NetState;
use std::borrow::Cow;

/// The most stations the table above the heatmap lists.
const TABLE_ROWS: usize = 12;
/// The most routes a station's facts list.
const ROUTES_SHOWN: usize = 6;

/// A probability as a percentage with two significant digits below 10% (a tandem's route to
/// one of 16,384 lines is 0.0046%, not "0%").
fn percent(p: f64) -> String {
    let v = 100.0 * p;
    let decimals = if v >= 10.0 || v <= 0.0 {
        0
    } else {
        (1.0 - v.log10().floor()).clamp(0.0, 6.0) as usize
    };
    format!("{v:.decimals$}%")
}

fn config(s: &Session) -> Option<&NetworkConfig> {
    s.config.get::<NetworkConfig>()
}

/// The state of the session's run, from the CPU engine or read back from the GPU's.
fn live_state(s: &Session) -> Option<Cow<'_, NetState>> {
    let any = s.engine.as_any();
    if let Some(e) = any.downcast_ref::<NetEngine>() {
        return Some(Cow::Borrowed(e.state()));
    }
    let g = any.downcast_ref::<GpuNetwork>()?;
    g.download_state().ok().map(|(state, _)| Cow::Owned(state))
}

fn exact(s: &Session) -> Option<&Values> {
    config(s).and_then(|c| c.exact().as_ref().ok())
}

/// Station `i`'s facts: its servers, service, routes, and where the run stands there.
fn facts(ui: &mut egui::Ui, s: &Session, i: u32) {
    let Some(cfg) = config(s) else { return };
    let Some(st) = cfg.network.stations.get(i as usize) else {
        ui.label("no station here");
        return;
    };
    ui.label(format!(
        "{} server{}, {} service (mean {})",
        st.servers,
        if st.servers == 1 { "" } else { "s" },
        st.service.name(),
        st.service.mean()
    ));
    let names = |d: u32| {
        if d == EXIT {
            "exit".to_string()
        } else {
            cfg.network.stations[d as usize].name.clone()
        }
    };
    // a tandem's last station routes to every line: the first few, then how many more
    let mut routes: Vec<String> = st
        .routes
        .iter()
        .take(ROUTES_SHOWN)
        .map(|&(d, p)| format!("{} {}", names(d), percent(p)))
        .collect();
    if st.routes.len() > ROUTES_SHOWN {
        routes.push(format!("and {} more", st.routes.len() - ROUTES_SHOWN));
    }
    ui.label(format!("routes: {}", routes.join(", ")));
    if let Some(state) = live_state(s) {
        let here = &state.stations[i as usize];
        ui.label(format!(
            "present: {} ({} queued)",
            here.present, here.queued
        ));
        // this station's alone: a hover asks every frame
        let sm = state.measures_of(i as usize, s.now().min(cfg.end_ticks()).max(1));
        ui.label(format!(
            "utilization so far {:.4}, mean number {:.3}",
            sm.utilization, sm.mean_number
        ));
        let (a, b) = (
            state.first_server[i as usize] as usize,
            state.first_server[i as usize + 1] as usize,
        );
        if let Some(next) = state.servers[a..b]
            .iter()
            .map(|k| k.departure)
            .filter(|&t| t != u64::MAX)
            .min()
        {
            ui.label(format!("next departure at {:.4}", to_units(next)));
        }
    }
    if let Some(v) = exact(s).map(|v| v.stations[i as usize]) {
        ui.label(format!(
            "exact: utilization {:.4}, mean number {:.3}",
            v.utilization, v.mean_number
        ));
    }
}

fn name(s: &Session, i: u32) -> String {
    config(s)
        .and_then(|c| c.network.stations.get(i as usize))
        .map_or(format!("cell {i}"), |st| format!("station {}", st.name))
}

/// The heatmap's hover text.
fn hover(ui: &mut egui::Ui, s: &Session, i: u32) {
    ui.label(name(s, i));
    facts(ui, s, i);
}

/// The inspector of a pinned station.
fn inspector(ui: &mut egui::Ui, s: &Session, i: u32) {
    ui.heading(name(s, i));
    facts(ui, s, i);
}

/// The strip above the heatmap: the stations as a table (up to [`TABLE_ROWS`]) — servers,
/// present, utilization so far and its exact value — or the network's size.
fn stations(ui: &mut egui::Ui, s: &Session) {
    let Some(cfg) = config(s) else { return };
    let net = &cfg.network;
    let state = live_state(s);
    if net.stations.len() > TABLE_ROWS {
        let view = if net.stations.len() <= graph::MOST_NODES {
            "the stations as nodes, left to right from where tokens enter; arrows: the routes, as wide as their flow; outlined: an event in the next window"
        } else {
            "heatmap: the stations by index, row by row"
        };
        ui.label(format!(
            "{} stations, {} servers ({view})",
            net.stations.len(),
            net.servers()
        ));
        return;
    }
    // before the warm-up's end nothing is measured yet: dashes, as the monitors show
    let m = state
        .as_ref()
        .filter(|_| to_units(s.now()) >= cfg.run.warmup)
        .map(|st| st.measures(s.now().min(cfg.end_ticks()).max(1)));
    egui::Grid::new("network stations")
        .striped(true)
        .show(ui, |ui| {
            for h in ["station", "servers", "present", "utilization", "exact"] {
                ui.strong(h);
            }
            ui.end_row();
            for (i, st) in net.stations.iter().enumerate() {
                ui.label(&st.name);
                ui.label(st.servers.to_string());
                ui.label(
                    state
                        .as_ref()
                        .map_or("—".into(), |st| st.stations[i].present.to_string()),
                );
                ui.label(m.as_ref().map_or("—".into(), |m| {
                    format!("{:.4}", m.stations[i].utilization)
                }));
                ui.label(exact(s).map_or("—".into(), |v| {
                    format!("{:.4}", v.stations[i].utilization)
                }));
                ui.end_row();
            }
        });
}

/// The colour range: 0 … 2 × the mean tokens per station (at least 4).
fn colour_range(s: &Session) -> (f32, f32) {
    let Some(cfg) = config(s) else {
        return (0.0, 4.0);
    };
    let tokens = latest(s).tokens_in_system;
    let per = tokens / cfg.network.stations.len().max(1) as f64;
    (0.0, ((2.0 * per).ceil() as f32).max(4.0))
}

/// Utilization, tokens in the network and events per step against simulated time.
fn plots(ui: &mut egui::Ui, a: &Session, b: Option<&Session>) {
    let sessions: Vec<&Session> = std::iter::once(a).chain(b).collect();
    let w = (ui.available_width() - 18.0) / 3.0;
    let h = ui.available_height() - 24.0;
    let v = exact(a);
    // the utilization is measured from the warm-up on: its curve starts there (it drew a
    // line at 0 up to the warm-up, as if the stations were idle)
    let from = config(a).map_or(0.0, |c| c.run.warmup);
    ui.horizontal(|ui| {
        time_series_from(
            ui,
            [w, h],
            ("utilization", "Busy fraction of all servers from the warm-up up to t, services in progress counted; dashed: the exact value (exponential service)."),
            &sessions,
            |x| x.utilization,
            v.map(|v| ("exact", v.utilization)),
            from,
        );
        time_series(
            ui,
            [w, h],
            ("tokens in the network", "Tokens present now; dashed: the exact mean (Jackson or MVA)."),
            &sessions,
            |x| x.tokens_in_system,
            v.map(|v| ("exact", v.mean_tokens)),
        );
        plot_series(
            ui,
            [w, h],
            ("events per step", "Events processed together per step: what the window lets run at once (1 for sequential)."),
            &sessions,
            |s| per_interval(s, |x| x.events as f64, |x| x.steps as f64),
            None,
        );
    });
}

/// Utilization, mean tokens and mean time per visit against the exact values, the last
/// step's events.
fn monitors(s: &Session) -> Vec<Monitor> {
    let x = latest(s);
    let v = exact(s);
    let warmup = config(s).map_or(0.0, |c| c.run.warmup);
    let with = |m: Monitor, value: Option<f64>| {
        let m = match value {
            Some(e) => m.exact("exact", e),
            None => m,
        };
        // the statistics start at the warm-up's end: a dash until then, not a 0
        if x.time < warmup {
            m.warming_up(warmup)
        } else {
            m
        }
    };
    vec![
        with(
            Monitor::new(
                "utilization",
                x.utilization,
                "Busy fraction of all servers from the warm-up on, services in progress counted up to now (run's utilization); beside it the exact value where the service is exponential.",
            ),
            v.map(|v| v.utilization),
        ),
        with(
            Monitor::new(
                "mean tokens in the network",
                x.mean_tokens_in_system,
                "Time-average tokens in the network from the warm-up on (run's mean_tokens_in_system); beside it Jackson's or MVA's mean.",
            ),
            v.map(|v| v.mean_tokens),
        ),
        with(
            Monitor::new(
                "time per visit",
                x.sojourn,
                "Queue wait + service per completed visit, over all stations (run's mean_sojourn).",
            ),
            v.map(|v| v.mean_sojourn),
        ),
        Monitor::new(
            "events in the last step",
            last_step_events(s),
            "Events the last step processed together.",
        ),
    ]
}

/// The network's panel in the registry.
pub const PANEL: crate::panels::Panel = crate::panels::Panel {
    hover,
    inspector,
    timeline: Some(stations),
    form: super::generic::form,
    colour_range,
    count_label: "tokens",
    count_mode: "tokens per station",
    plots,
    series: &[
        Series::Utilization,
        Series::MeanSojourn,
        Series::TokensInSystem,
        Series::MeanTokensInSystem,
        Series::Completions,
    ],
    monitors,
    cell_name: station_name,
    violations,
    follow: Some(&FOLLOW),
    graph: Some(graph::view),
    ..crate::panels::generic::PANEL
};

/// A station in words ("station doctor").
fn station_name(s: &Session, i: u32) -> String {
    config(s)
        .and_then(|c| c.network.stations.get(i as usize))
        .map_or_else(
            || format!("station {i}"),
            |st| format!("station {}", st.name),
        )
}

/// The CPU engine's recent causality errors (interval / original), oldest first: the late
/// token, its station and the station that sent it.
fn violations(s: &Session) -> Vec<crate::kit::violation::Violation> {
    s.engine
        .as_any()
        .downcast_ref::<NetEngine>()
        .map(|e| {
            e.violations()
                .map(crate::kit::violation::of_engine)
                .collect()
        })
        .unwrap_or_default()
}

/// Most stations whose tokens the window follows (each frame walks every server and queue).
const FOLLOW_STATIONS: usize = 100_000;

/// Following one token from station to station (issue 55 §4): the window's follow, fed
/// from the engine's state (the GPU engine's downloaded one).
pub static FOLLOW: crate::kit::panel::FollowToken = crate::kit::panel::FollowToken {
    serving: token_serving,
    place: token_place,
};

/// The token in service at station `i` (its first busy server's), if any.
fn token_serving(s: &Session, i: u32) -> Option<u32> {
    let st = live_state(s)?;
    let (a, b) = (
        *st.first_server.get(i as usize)? as usize,
        *st.first_server.get(i as usize + 1)? as usize,
    );
    st.servers[a..b]
        .iter()
        .map(|v| v.token)
        .find(|&t| t != pdes_models::network::state::NONE)
}

/// Where the token in pool slot `slot` is: its station, when it arrived there, its visits
/// and its identity (the slot serves the next arrival once it has left).
fn token_place(s: &Session, slot: u32) -> Option<crate::kit::panel::TokenPlace> {
    let cfg = config(s)?;
    if cfg.network.stations.len() > FOLLOW_STATIONS {
        return None;
    }
    let st = live_state(s)?;
    let token = st.tokens.get(slot as usize)?;
    Some(crate::kit::panel::TokenPlace {
        id: token.id,
        cell: st.token_station(slot).unwrap_or(crate::kit::panel::LEFT),
        arrived: to_units(token.arrived),
        visits: token.visits,
    })
}

#[cfg(test)]
mod tests {
    /// A tandem's route to one of 16,384 lines keeps two significant digits; large shares
    /// are whole percentages.
    #[test]
    fn a_small_share_keeps_two_significant_digits() {
        assert_eq!(super::percent(0.75 / 16384.0), "0.0046%");
        assert_eq!(super::percent(0.5), "50%");
        assert_eq!(super::percent(0.0), "0%");
    }
}
