//! `sweep --plot`: the figure of a sweep — a statistic against the first swept key, one
//! series per combination of the other keys, 95% confidence bars over seeds, and the
//! model's analytic value (its `analytic_<statistic>` field) as a dashed line — drawn with
//! plotters into a PNG or an SVG. Text uses the font egui ships (no system fonts needed).

use plotters::prelude::*;
#[cfg(not(target_arch = "wasm32"))]
use std::path::Path;

/// One series of the figure.
pub struct Series {
    /// Legend text ("" for a single series).
    pub label: String,
    /// (x, mean, 95% half-width) per point.
    pub points: Vec<(f64, f64, Option<f64>)>,
    /// (x, analytic value) where the model has one.
    pub reference: Vec<(f64, f64)>,
}

/// What the figure shows.
pub struct Figure<'a> {
    /// Title line.
    pub title: &'a str,
    /// x-axis label (the swept key).
    pub x_label: &'a str,
    /// y-axis label (the statistic).
    pub y_label: &'a str,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// What the dashed reference line is, in the legend.
    pub reference_label: &'a str,
    /// The series.
    pub series: Vec<Series>,
}

const FONT: &str = "pdes-sans";

/// Registers egui's font with plotters (once). In a browser tab plotters measures text with
/// the page's canvas instead and has no font registry.
fn register_font() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // the bytes are a valid TTF shipped with egui; a failure would only lose the text
            let _ = plotters::style::register_font(
                FONT,
                FontStyle::Normal,
                epaint_default_fonts::UBUNTU_LIGHT,
            );
        });
    }
}

/// Figure size in pixels.
const SIZE: (u32, u32) = (960, 600);

/// Draws `fig` into `path` (PNG, or SVG when the name ends in .svg), 960 × 600.
#[cfg(not(target_arch = "wasm32"))]
pub fn draw(fig: &Figure, path: &Path) -> Result<(), String> {
    register_font();
    let svg = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    if svg {
        let root = SVGBackend::new(path, SIZE).into_drawing_area();
        draw_on(&root, fig)?;
        root.present().map_err(|e| e.to_string())
    } else {
        let root = BitMapBackend::new(path, SIZE).into_drawing_area();
        draw_on(&root, fig)?;
        root.present().map_err(|e| e.to_string())
    }
}

/// `fig` as SVG text, 960 × 600: the figure the browser build offers as a download (it has
/// no file system to draw into).
pub fn svg(fig: &Figure) -> Result<String, String> {
    register_font();
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, SIZE).into_drawing_area();
        draw_on(&root, fig)?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(text)
}

const COLOURS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// The mesh, every series (line, points, confidence bars, the dashed exact line) and the
/// legend, on a chart of either x scale (plotters' linear and log axes are different
/// types, so this is written once as a macro rather than as three copies).
macro_rules! draw_series {
    ($chart:expr, $xmap:expr, $fig:expr, $single:expr, $font:expr, $err:expr) => {{
        let (fig, single, font, err) = ($fig, $single, $font, $err);
        let mut chart = $chart;
        chart
            .configure_mesh()
            .x_desc(fig.x_label)
            .y_desc(fig.y_label)
            .x_label_formatter(&|x: &f64| tick_label(*x))
            .label_style(font(15.0))
            .axis_desc_style(font(17.0))
            .draw()
            .map_err(err)?;
        for (i, s) in fig.series.iter().enumerate() {
            let c = COLOURS[i % COLOURS.len()];
            let line = chart
                .draw_series(LineSeries::new(
                    s.points.iter().map(|&(x, m, _)| ($xmap(x), m)),
                    c.stroke_width(2),
                ))
                .map_err(err)?;
            if !single {
                line.label(s.label.clone()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
            }
            chart
                .draw_series(
                    s.points
                        .iter()
                        .map(|&(x, m, _)| Circle::new(($xmap(x), m), 3, c.filled())),
                )
                .map_err(err)?;
            chart
                .draw_series(s.points.iter().filter_map(|&(x, m, ci)| {
                    ci.map(|h| {
                        ErrorBar::new_vertical($xmap(x), m - h, m, m + h, c.stroke_width(1), 8)
                    })
                }))
                .map_err(err)?;
            if s.reference.len() > 1 {
                let dashed = DashedLineSeries::new(
                    s.reference.iter().map(|&(x, y)| ($xmap(x), y)),
                    6,
                    4,
                    c.mix(0.7).stroke_width(1),
                );
                let r = chart.draw_series(dashed).map_err(err)?;
                if i == 0 {
                    r.label(fig.reference_label).legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], BLACK.mix(0.6))
                    });
                }
            }
        }
        let labelled = !single || fig.series.iter().any(|s| s.reference.len() > 1);
        if labelled {
            chart
                .configure_series_labels()
                .label_font(font(14.0))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.3))
                .position(SeriesLabelPosition::UpperRight)
                .draw()
                .map_err(err)?;
        }
    }};
}

/// Every x of a figure's points, and the x and y ranges the chart shows.
struct Extent {
    xs: Vec<f64>,
    x: (f64, f64),
    y: (f64, f64),
}

/// The x range (with a margin) and the y range (bars and exact values included, padded) of
/// `fig`'s points, and every x; an error when no point has a value.
fn ranges(fig: &Figure) -> Result<Extent, String> {
    let xs: Vec<f64> = fig
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    let ys: Vec<f64> = fig
        .series
        .iter()
        .flat_map(|s| {
            s.points
                .iter()
                .flat_map(|&(_, m, c)| [m - c.unwrap_or(0.0), m + c.unwrap_or(0.0)])
                .chain(s.reference.iter().map(|r| r.1))
        })
        .filter(|y| y.is_finite())
        .collect();
    if xs.is_empty() || ys.is_empty() {
        return Err("nothing to plot (no point succeeded)".into());
    }
    let (mut x0, mut x1) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let (mut y0, mut y1) = ys
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &y| (a.min(y), b.max(y)));
    if x1 <= x0 {
        x0 -= 0.5;
        x1 += 0.5;
    }
    // a margin so that the end points and their bars are not on the frame
    if fig.log_x {
        let r = (x1 / x0).powf(0.04);
        x0 /= r;
        x1 *= r;
    } else {
        let m = (x1 - x0) * 0.04;
        x0 -= m;
        x1 += m;
    }
    let pad = ((y1 - y0) * 0.08).max(y1.abs() * 1e-3).max(1e-12);
    y0 -= pad;
    y1 += pad;
    Ok(Extent {
        xs,
        x: (x0, x1),
        y: (y0, y1),
    })
}

fn draw_on<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    fig: &Figure,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let Extent {
        xs,
        x: (x0, x1),
        y: (y0, y1),
    } = ranges(fig)?;
    let font = |size: f64| (FONT, size).into_font();
    let mut builder = ChartBuilder::on(root);
    let chart = builder
        .caption(fig.title, font(22.0))
        .margin(16)
        .x_label_area_size(46)
        .y_label_area_size(70);
    let single = fig.series.len() == 1 && fig.series[0].label.is_empty();
    if fig.log_x {
        let range = (x0.max(1e-300)..x1).log_scale();
        // plotters' own log ticks are the integers and decades: a sweep from 0.25 to 8
        // got no label left of 1; the swept values themselves, where few enough, label it
        match swept_values(&xs) {
            Some(keys) => {
                let c = chart
                    .build_cartesian_2d(range.with_key_points(keys), y0..y1)
                    .map_err(err)?;
                draw_series!(c, |x: f64| x, fig, single, font, err);
            }
            None => {
                let c = chart.build_cartesian_2d(range, y0..y1).map_err(err)?;
                draw_series!(c, |x: f64| x, fig, single, font, err);
            }
        }
    } else {
        let c = chart.build_cartesian_2d(x0..x1, y0..y1).map_err(err)?;
        draw_series!(c, |x: f64| x, fig, single, font, err);
    }
    Ok(())
}

/// The distinct swept values, in order, when there are few enough (≤ 12) to label a log
/// axis with them.
fn swept_values(xs: &[f64]) -> Option<Vec<f64>> {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| *x > 0.0).collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    (!v.is_empty() && v.len() <= 12).then_some(v)
}

/// An axis label: four significant digits at most, without trailing zeros (0.25, 1.167, 8).
pub fn tick_label(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let decimals = (3 - x.abs().log10().floor() as i32).clamp(0, 9) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_have_four_significant_digits_and_no_trailing_zeros() {
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(1.16743), "1.167");
        assert_eq!(tick_label(8.0), "8");
        assert_eq!(tick_label(2000.0), "2000");
        assert_eq!(tick_label(0.001234567), "0.001235");
        assert_eq!(tick_label(-2.5), "-2.5");
        assert_eq!(tick_label(0.0), "0");
    }

    /// A log sweep's own values label its axis (0.5 got no label in 0.5, 1, 2, 4), once
    /// each and in order; too many to read fall back to plotters' ticks.
    #[test]
    fn a_few_swept_values_label_the_log_axis() {
        let xs = [4.0, 0.5, 1.0, 2.0, 0.5, 1.0];
        assert_eq!(swept_values(&xs), Some(vec![0.5, 1.0, 2.0, 4.0]));
        let many: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(swept_values(&many), None);
    }
}
