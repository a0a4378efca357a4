//! The Sweep view's plots: each statistic against the swept key with 95% bars over seeds
//! and the exact value, and the tuning plot (speed against error) whose click sets d in the
//! live run; their axes (log marks at 1, 2 and 5 times the powers of ten).

use super::sweep_view::SweepResult;
use eframe::egui;
use egui_plot::{AxisHints, GridInput, GridMark, Legend, Line, Plot, PlotPoints, Points};

/// The points of `pts` (error, speed) that no other point beats on both (less error and
/// more speed), by increasing error.
pub fn pareto_front(pts: &[(usize, f64, f64)]) -> Vec<(usize, f64, f64)> {
    let mut front: Vec<(usize, f64, f64)> = pts
        .iter()
        .copied()
        .filter(|&(_, e, s)| {
            !pts.iter()
                .any(|&(_, e2, s2)| e2 <= e && s2 >= s && (e2 < e || s2 > s))
        })
        .collect();
    front.sort_by(|a, b| a.1.total_cmp(&b.1));
    front
}

/// The swept key's axis in the sweep plots: in log10 units when the sweep is logarithmic,
/// its labels then reading the key's own values on a 1–2–5 scale (0.2, 0.5, 1, 2, 5, …).
/// Labels may stand 30 points apart: egui_plot's default of 60 left a 0…8 axis of a
/// 260-point plot with the single label 0.
#[derive(Clone, Copy, Debug)]
pub(super) struct SweepAxis {
    /// Logarithmic: every swept value is positive and the sweep asked for log.
    pub(super) log: bool,
}

impl SweepAxis {
    /// Where a swept value lies on the axis.
    fn x(self, v: f64) -> f64 {
        if self.log { v.log10() } else { v }
    }

    /// The plot with this axis's labels, grid and spacing.
    fn apply<'a>(self, plot: Plot<'a>, key: &str) -> Plot<'a> {
        let plot = plot.custom_x_axes(vec![
            AxisHints::new_x()
                .label(key.to_string())
                .label_spacing(30.0..=60.0)
                .formatter(move |mark, _| {
                    let v = if self.log {
                        10f64.powf(mark.value)
                    } else {
                        mark.value
                    };
                    pdes_runs::sweep::plot::tick_label(v)
                }),
        ]);
        if self.log {
            plot.x_grid_spacer(log_marks)
        } else {
            plot
        }
    }
}

/// Grid marks of a log10 axis at 1, 2 and 5 times each power of ten in view (the powers
/// of ten a decade apart, the others ~0.3 decades), so that labels appear as room allows.
fn log_marks(input: GridInput) -> Vec<GridMark> {
    let (lo, hi) = input.bounds;
    let mut marks = Vec::new();
    for decade in (lo.floor() as i32 - 1)..=(hi.ceil() as i32) {
        for (m, step_size) in [(1.0, 1.0), (2.0, 0.3), (5.0, 0.3)] {
            let value = (m * 10f64.powi(decade)).log10();
            if (lo..=hi).contains(&value) {
                marks.push(GridMark { value, step_size });
            }
        }
    }
    marks
}

/// A statistic against the swept key: means with 95% bars, the analytic value dashed.
pub(super) fn statistic_plot(
    ui: &mut egui::Ui,
    res: &SweepResult,
    stat: &str,
    [w, h]: [f32; 2],
    axis: SweepAxis,
) {
    ui.vertical(|ui| {
        ui.label(format!("{stat} against {}", res.key))
            .on_hover_text("Mean over the seeds with its 95% confidence interval; dashed: the model's exact value where it has one (exponential service).");
        axis.apply(Plot::new(format!("sweep {stat}")), &res.key)
            .width(w)
            .height(h)
            .legend(Legend::default())
            .y_axis_label(stat.to_string())
            .show(ui, |p| {
                let mut pts = Vec::new();
                let mut reference = Vec::new();
                for (i, &v) in res.xs.iter().enumerate() {
                    let x = axis.x(v);
                    if let Some(e) = res.estimate(i, stat) {
                        pts.push([x, e.mean]);
                        if let Some(c) = e.ci95 {
                            // one legend entry for every bar (egui_plot groups by name)
                            p.line(
                                Line::new("95% interval", PlotPoints::from(vec![[x, e.mean - c], [x, e.mean + c]]))
                                    .color(egui::Color32::from_rgb(120, 170, 230)),
                            );
                        }
                    }
                    if let Some(a) = res.reference(i, stat) {
                        reference.push([x, a]);
                    }
                }
                // the line and its points are one entry: the mean over the seeds ("runs"
                // labelled the points as if each were a run)
                p.line(Line::new("mean of the seeds", PlotPoints::from(pts.clone())));
                p.points(Points::new("mean of the seeds", PlotPoints::from(pts)).radius(3.0));
                if reference.len() > 1 {
                    p.line(
                        Line::new("exact (exponential)", PlotPoints::from(reference))
                            .style(egui_plot::LineStyle::dashed_loose()),
                    );
                }
            });
    });
}

/// Speed against error, one point per swept value, the Pareto front drawn; a click picks
/// the nearest point's value.
pub(super) fn tuning_plot(
    ui: &mut egui::Ui,
    res: &SweepResult,
    stat: &str,
    [w, h]: [f32; 2],
) -> Option<f64> {
    let pts = res.tuning(stat);
    let front = pareto_front(&pts);
    let mut picked = None;
    ui.vertical(|ui| {
        ui.label("speed against error (choose d here)").on_hover_text(format!(
            "Each point is one value of {}: right means more events per step run in parallel (faster), up means a larger error in {stat} (distance from the exact value, or from the smallest {} swept), with the 95% interval of its mean over the seeds. The line joins the points no other point beats on both: pick one on it — where neighbouring intervals overlap, the difference between them is noise (run more seeds). Click a point to set its value in the live run.",
            res.key, res.key
        ));
        let linear = SweepAxis { log: false };
        let response = linear
            .apply(Plot::new("sweep tuning"), "parallel events per step")
            .width(w)
            .height(h)
            // top left: the fastest values (right) have the largest errors (top), and the
            // legend at the top right hid the largest d's point
            .legend(Legend::default().position(egui_plot::Corner::LeftTop))
            .y_axis_label(format!("|{stat} error|"))
            .show(ui, |p| {
                // each error with its point's 95% interval: a front whose neighbours' bars
                // overlap is noise, not a choice
                for &(i, e, speed) in &pts {
                    if let Some(h) = res.estimate(i, stat).and_then(|est| est.ci95) {
                        p.line(
                            Line::new(
                                "95% interval",
                                PlotPoints::from(vec![[speed, (e - h).max(0.0)], [speed, e + h]]),
                            )
                            .color(egui::Color32::from_rgb(120, 170, 230)),
                        );
                    }
                }
                p.points(
                    Points::new(
                        res.key.clone(),
                        PlotPoints::from(pts.iter().map(|&(_, e, s)| [s, e]).collect::<Vec<_>>()),
                    )
                    .radius(4.0),
                );
                p.line(
                    Line::new(
                        "Pareto front",
                        PlotPoints::from(front.iter().map(|&(_, e, s)| [s, e]).collect::<Vec<_>>()),
                    )
                    .color(egui::Color32::from_rgb(240, 180, 80)),
                );
                p.pointer_coordinate()
            });
        if response.response.clicked()
            && let Some(c) = response.inner
        {
            picked = nearest(&pts, c.x, c.y).map(|p| res.xs[p]);
        }
        ui.horizontal_wrapped(|ui| {
            // at most six buttons, spread along the front
            let step = front.len().div_ceil(6).max(1);
            for &(p, _, _) in front.iter().step_by(step) {
                if ui
                    .small_button(format!("use {} = {}", res.key, value_label(res.xs[p])))
                    .on_hover_text("Set this value in the live run (a point on the Pareto front).")
                    .clicked()
                {
                    picked = Some(res.xs[p]);
                }
            }
        });
    });
    picked
}

/// A swept value as the buttons show it: 4 significant digits.
pub fn value_label(x: f64) -> String {
    let v: f64 = format!("{x:.3e}").parse().unwrap_or(x);
    v.to_string()
}

/// The point of `pts` (error, speed) nearest to (speed x, error y), in plot proportions.
fn nearest(pts: &[(usize, f64, f64)], x: f64, y: f64) -> Option<usize> {
    let (sx, sy) = pts.iter().fold((1e-12f64, 1e-12f64), |(a, b), &(_, e, s)| {
        (a.max(s.abs()), b.max(e.abs()))
    });
    pts.iter()
        .min_by(|a, b| {
            let da = ((a.2 - x) / sx).powi(2) + ((a.1 - y) / sy).powi(2);
            let db = ((b.2 - x) / sx).powi(2) + ((b.1 - y) / sy).powi(2);
            da.total_cmp(&db)
        })
        .map(|p| p.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log sweep from 0.25 to 8 gets marks at 0.5, 1, 2 and 5 (and no other), placed in
    /// log10 units, the power of ten marked as the coarser step.
    #[test]
    fn a_log_axis_is_marked_at_one_two_and_five_times_the_powers_of_ten() {
        let axis = SweepAxis { log: true };
        let marks = log_marks(GridInput {
            bounds: (axis.x(0.25), axis.x(8.0)),
            base_step_size: 0.01,
        });
        let values: Vec<f64> = marks.iter().map(|m| 10f64.powf(m.value)).collect();
        let expected = [0.5, 1.0, 2.0, 5.0];
        assert_eq!(values.len(), expected.len(), "{values:?}");
        for (v, e) in values.iter().zip(expected) {
            assert!((v - e).abs() < 1e-9, "{values:?}");
        }
        let decade = marks.iter().find(|m| m.value == 0.0).expect("1 is marked");
        assert!(decade.step_size > marks[0].step_size);
        assert_eq!(SweepAxis { log: false }.x(8.0), 8.0);
    }

    #[test]
    fn the_front_keeps_the_points_nothing_beats() {
        let pts = [
            (0, 0.01, 2.0),
            (1, 0.02, 4.0),
            (2, 0.03, 3.0),
            (3, 0.05, 8.0),
        ];
        let f: Vec<usize> = pareto_front(&pts).iter().map(|p| p.0).collect();
        assert_eq!(f, vec![0, 1, 3]);
    }
}
