//! Live plots: the helpers every model's plots use (a line per session, A/B overlaid, an
//! optional reference line) and the CSV export. Which plots a model shows is its panel's
//! (`crate::panels`, one folder per model).

use super::session::{Sample, Session};
use eframe::egui;
use egui_plot::{HLine, Legend, Line, Plot, PlotPoints};

/// The narrowest plot that draws its legend: in a narrower one (an 800-pixel window) the
/// legend would cover the curves and spill into the next plot; the hover text names them.
pub const LEGEND_MIN_WIDTH: f32 = 170.0;

/// `plot` (`width` wide) with its legend where there is room for one.
pub fn legend_if_room(plot: Plot<'_>, width: f32) -> Plot<'_> {
    if width >= LEGEND_MIN_WIDTH {
        plot.legend(Legend::default().background_alpha(0.35))
    } else {
        plot
    }
}

/// What a plot reads of a run: its configuration and its samples — a live session's, or an
/// earlier run's kept as a ghost.
pub struct Trace<'a> {
    /// The run's configuration.
    pub config: &'a pdes_models::preset::Config,
    /// Its plot samples.
    pub samples: &'a [Sample],
}

/// An earlier run's curves, drawn faintly behind the live ones after a parameter changed,
/// so that the change can be seen against the run before it.
#[derive(Clone, Debug)]
pub struct Ghost {
    /// What differed ("run.d=4"), for the legend.
    pub label: String,
    /// Its configuration.
    pub config: pdes_models::preset::Config,
    /// Its samples when it was replaced.
    pub samples: Vec<Sample>,
}

impl Ghost {
    /// What its plots read.
    pub fn trace(&self) -> Trace<'_> {
        Trace {
            config: &self.config,
            samples: &self.samples,
        }
    }
}

/// Earlier runs kept as ghosts (the oldest is dropped first).
pub const GHOSTS: usize = 3;

/// Steps shown in the events-per-step series.
pub const RECENT_STEPS: usize = 2000;

/// A session's legend entry: its algorithm, prefixed with A or B in A/B mode.
pub fn tag(s: &Session, i: usize, ab: bool) -> String {
    let alg = s.algorithm_label().replace(" / ", "/");
    if ab {
        format!("{}: {alg}", ["A", "B"][i])
    } else {
        alg
    }
}

/// A plot's title over its column, `width` wide: cut short with "…" where the column is
/// narrower (a small window), the whole title and `hover` when the pointer is on it.
pub fn plot_title(ui: &mut egui::Ui, title: &str, hover: &str, width: f32) {
    ui.scope(|ui| {
        ui.set_max_width(width);
        ui.add(egui::Label::new(title).truncate())
            .on_hover_text(format!("{title}: {hover}"));
    });
}

/// One plot with a line per session (`points` gives a run's), an optional reference line,
/// and — without A/B — the earlier runs' lines faint behind the live one.
pub fn plot_series(
    ui: &mut egui::Ui,
    [w, h]: [f32; 2],
    (label, hover): (&str, &str),
    sessions: &[&Session],
    points: impl Fn(&Trace) -> Vec<[f64; 2]>,
    reference: Option<(&str, f64)>,
) {
    let ab = sessions.len() > 1;
    let series: Vec<Vec<[f64; 2]>> = sessions.iter().map(|s| points(&s.trace())).collect();
    let ghosts: Vec<(&str, Vec<[f64; 2]>)> = match sessions {
        [a] => a
            .ghosts
            .iter()
            .map(|g| (g.label.as_str(), points(&g.trace())))
            .collect(),
        _ => Vec::new(),
    };
    // headroom above the highest curve for the legend (top right), so that it covers no data
    let (low, top) = series
        .iter()
        .flatten()
        .map(|p| p[1])
        .chain(reference.map(|r| r.1))
        .filter(|y| y.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        });
    ui.vertical(|ui| {
        plot_title(ui, label, hover, w);
        let mut plot =
            legend_if_room(Plot::new(label).width(w).height(h), w).x_axis_label("simulated time");
        if top > low {
            plot = plot.include_y(top + (top - low) * LEGEND_HEADROOM);
        } else if top.is_finite() {
            // a constant curve (a sequential run's 1 event a step): its value and 0 in view,
            // not ±1000 around it where it read as 0
            plot = plot
                .include_y(0.0)
                .include_y(top + top.abs().max(1.0) * LEGEND_HEADROOM);
        }
        plot.show(ui, |p| {
            // oldest faintest; drawn first, under the live curve
            for (k, (name, pts)) in ghosts.into_iter().enumerate() {
                let alpha = (50 + 40 * k) as u8;
                p.line(
                    Line::new(format!("earlier: {name}"), PlotPoints::from(pts))
                        .color(egui::Color32::from_rgba_unmultiplied(170, 170, 170, alpha))
                        .width(1.0),
                );
            }
            for (i, pts) in series.into_iter().enumerate() {
                p.line(Line::new(tag(sessions[i], i, ab), PlotPoints::from(pts)));
            }
            if let Some((name, v)) = reference {
                p.hline(HLine::new(name, v).style(egui_plot::LineStyle::dashed_loose()));
            }
        });
    });
}

/// The band a plot shows above its highest value, as a fraction of the values' range:
/// where the legend sits.
pub const LEGEND_HEADROOM: f64 = 0.35;

/// The moving mean of `pts` (y) over windows of `w` points, at each window's last x.
pub fn moving_mean(pts: &[[f64; 2]], w: usize) -> Vec<[f64; 2]> {
    let w = w.max(1);
    let mut sum = 0.0;
    let mut out = Vec::with_capacity(pts.len());
    for (i, p) in pts.iter().enumerate() {
        sum += p[1];
        if i >= w {
            sum -= pts[i - w][1];
        }
        if i + 1 >= w {
            out.push([p[0], sum / w as f64]);
        }
    }
    out
}

/// One plot of a sample field against simulated time for every session.
pub fn time_series(
    ui: &mut egui::Ui,
    size: [f32; 2],
    text: (&str, &str),
    sessions: &[&Session],
    value: impl Fn(&super::session::Sample) -> f64,
    reference: Option<(&str, f64)>,
) {
    time_series_from(ui, size, text, sessions, value, reference, 0.0);
}

/// [`time_series`] of the samples at or after `from` (statistics with a warm-up: before it
/// there is nothing to show).
pub fn time_series_from(
    ui: &mut egui::Ui,
    size: [f32; 2],
    text: (&str, &str),
    sessions: &[&Session],
    value: impl Fn(&super::session::Sample) -> f64,
    reference: Option<(&str, f64)>,
    from: f64,
) {
    let points = |s: &Trace| {
        s.samples
            .iter()
            .filter(|x| x.time >= from)
            .map(|x| [x.time, value(x)])
            .collect()
    };
    plot_series(ui, size, text, sessions, points, reference);
}

/// Per sample interval: (time at its end, Δ of one sample field / Δ of another), skipping
/// intervals where the second did not move.
pub fn per_interval(
    s: &Trace,
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
    // titles keep one line (cut with "…" in a narrow window; the hover text says them in
    // full): a title wrapped to three lines made its column taller than the panel
    ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
    (a.panel.plots)(ui, a, b);
}

/// A column of the plotted series' CSV beyond time, steps and events: a quantity some
/// model samples. Each panel lists its own ([`crate::kit::panel::Panel::series`]), so a
/// model's CSV holds its columns only (issue 56 §5: every model's file had the fifteen
/// columns of all of them, zeros in most).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Series {
    /// Busy fraction from the warm-up on.
    Utilization,
    /// Mean sojourn (M/M/c/k: time in system).
    MeanSojourn,
    /// Causality errors so far.
    CausalityErrors,
    /// Services completed since the warm-up.
    Completions,
    /// Tokens in the system now.
    TokensInSystem,
    /// Time-average tokens in the system from the warm-up on.
    MeanTokensInSystem,
    /// Mean cell temperature.
    MeanTemperature,
    /// Lowest cell temperature.
    MinTemperature,
    /// Highest cell temperature.
    MaxTemperature,
    /// Grand mean of the number in system over replications.
    NumberInSystem,
    /// Half-width of its 95% confidence interval.
    NumberInSystemCi95,
    /// Blocked arrivals over all arrivals.
    Blocking,
    /// Mean susceptible, infected and recovered fractions.
    Compartments,
    /// Imminent cells summed over the steps so far.
    Imminent,
    /// Messages routed so far.
    Messages,
}

impl Series {
    /// Its column names (SIR's compartments are three).
    pub fn names(self) -> &'static [&'static str] {
        match self {
            Series::Utilization => &["utilization"],
            Series::MeanSojourn => &["mean_sojourn"],
            Series::CausalityErrors => &["causality_errors"],
            Series::Completions => &["completions"],
            Series::TokensInSystem => &["tokens_in_system"],
            Series::MeanTokensInSystem => &["mean_tokens_in_system"],
            Series::MeanTemperature => &["mean_temperature"],
            Series::MinTemperature => &["min_temperature"],
            Series::MaxTemperature => &["max_temperature"],
            Series::NumberInSystem => &["number_in_system"],
            Series::NumberInSystemCi95 => &["number_in_system_ci95"],
            Series::Blocking => &["blocking"],
            Series::Compartments => &["mean_s", "mean_i", "mean_r"],
            Series::Imminent => &["imminent"],
            Series::Messages => &["messages"],
        }
    }

    /// Its values in sample `x`, one per name.
    fn values(self, x: &super::session::Sample) -> Vec<String> {
        let one = |v: f64| vec![v.to_string()];
        match self {
            Series::Utilization => one(x.utilization),
            Series::MeanSojourn => one(x.sojourn),
            Series::CausalityErrors => vec![x.causality_errors.to_string()],
            Series::Completions => vec![x.completions.to_string()],
            Series::TokensInSystem => one(x.tokens_in_system),
            Series::MeanTokensInSystem => one(x.mean_tokens_in_system),
            Series::MeanTemperature => one(x.mean_temperature),
            Series::MinTemperature => one(x.min_temperature),
            Series::MaxTemperature => one(x.max_temperature),
            Series::NumberInSystem => one(x.number_in_system),
            Series::NumberInSystemCi95 => one(x.number_in_system_ci),
            Series::Blocking => one(x.blocking),
            Series::Compartments => x.compartments.iter().map(|v| v.to_string()).collect(),
            Series::Imminent => vec![x.imminent.to_string()],
            Series::Messages => vec![x.messages.to_string()],
        }
    }
}

/// The plotted series as CSV: one row per sample and session; time, steps and events, then
/// the columns of `a`'s model ([`Series`]).
pub fn csv_text(a: &Session, b: Option<&Session>) -> String {
    let series = a.panel.series;
    let mut header = vec!["session", "algorithm", "time", "steps", "events"];
    header.extend(series.iter().flat_map(|c| c.names().iter().copied()));
    let mut w = header.join(",") + "\n";
    for (i, s) in std::iter::once(a).chain(b).enumerate() {
        let alg = tag(s, i, false);
        for x in &s.samples {
            let mut row = vec![
                ["A", "B"][i].to_string(),
                alg.clone(),
                x.time.to_string(),
                x.steps.to_string(),
                x.events.to_string(),
            ];
            row.extend(series.iter().flat_map(|c| c.values(x)));
            w += &(row.join(",") + "\n");
        }
    }
    w
}
