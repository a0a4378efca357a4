//! `pdes-lab tune`: the d advisor (issue 55 §5) — the table of d against parallelism, speed
//! and the metric's bias, and the recommendation in words; `--format json` gives the same
//! with `recommended_d`; `--plot FILE` draws the metric against d with its 95% intervals
//! and the reference.

use super::{CliError, EngineArg, Format, RunArgs, format_parser, output, run::config_from_args};
use pdes_runs::tune::{Advice, TuneSpec, tune};
use std::path::PathBuf;

/// Arguments of `pdes-lab tune`.
#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// Preset: a built-in name or a TOML file (a network file, the torus, the open network).
    pub preset: String,
    /// The summary statistic whose bias decides (utilization, mean_sojourn, …).
    #[arg(long, default_value = "utilization")]
    pub metric: String,
    /// The largest bias allowed: a percentage such as 1% or a fraction such as 0.01.
    #[arg(long, default_value = "1%", value_parser = tolerance)]
    pub tolerance: f64,
    /// Seeds per value of d.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub seeds: u32,
    /// Values of d on the log grid (from the largest valid d down to a hundredth of it).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(2..=50))]
    pub points: u32,
    /// Override a preset key (repeatable), e.g. --set run.end_time=5000.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Engine (overrides run.engine).
    #[arg(long, value_enum)]
    pub engine: Option<EngineArg>,
    /// Output format (table or json).
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
    /// Also draw the metric against d (PNG, or SVG for a name ending in .svg).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}

/// `--tolerance`: "1%" or "0.01", above 0 and below 100%.
fn tolerance(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let value = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|p| p / 100.0),
        None => t.parse::<f64>(),
    };
    match value {
        Ok(v) if v > 0.0 && v < 1.0 => Ok(v),
        _ => Err(format!(
            "{text:?}: the tolerance must be a percentage above 0% and below 100% (such as 1%), or a fraction such as 0.01"
        )),
    }
}

/// Runs the advisor and writes its table or JSON.
pub fn run(args: &TuneArgs) -> Result<(), CliError> {
    let config = config_from_args(&RunArgs {
        preset: Some(args.preset.clone()),
        set: args.set.clone(),
        engine: args.engine,
        ..RunArgs::default()
    })?;
    if let Some(p) = &args.plot {
        output::check_writable(p)
            .map_err(|e| CliError::Input(format!("--plot {}: {e}", p.display())))?;
    }
    let gpu = match config.engine() {
        pdes_models::preset::EngineKind::Gpu => {
            Some(pdes_gpu::Gpu::shared().map_err(CliError::Run)?)
        }
        pdes_models::preset::EngineKind::Cpu => None,
    };
    let spec = TuneSpec {
        config,
        metric: args.metric.clone(),
        tolerance: args.tolerance,
        seeds: args.seeds,
        points: args.points,
    };
    let advice = tune(&spec, gpu, output::to_stderr).map_err(CliError::Input)?;
    if let Some(p) = &args.plot {
        draw(&advice, p).map_err(|e| CliError::Run(format!("--plot {}: {e}", p.display())))?;
    }
    let text = match args.format {
        Format::Json => {
            serde_json::to_string_pretty(&advice).map_err(|e| CliError::Run(e.to_string()))? + "\n"
        }
        _ => table(&advice),
    };
    output::write_stdout(&text).map_err(output::stdout_error)
}

/// The advice as a table, the recommendation last.
fn table(a: &Advice) -> String {
    let reference = match a.exact_value {
        Some(v) => format!("exact value {v:.6}"),
        None => format!("sequential runs of the same {} seeds", a.seeds),
    };
    let mut out = format!(
        "{} against {reference}; largest valid d = {:.6}; {} seeds per d\n",
        a.metric, a.largest_valid_d, a.seeds
    );
    out += &format!(
        "{:>10}  {:>15}  {:>9}  {:>14}  {:>12}  {:>20}  {}\n",
        "d", "events per step", "× d_min", "s / 1000 time", a.metric, "bias (95%)", "within"
    );
    for p in &a.points {
        let reference = a.exact_value.unwrap_or(p.metric - p.bias).abs().max(1e-300);
        out += &format!(
            "{:>10.6}  {:>15.3}  {:>9.2}  {:>14.4}  {:>12.6}  {:>+9.3}% ± {:>6.3}%  {}\n",
            p.d,
            p.events_per_step,
            p.parallelism_gain,
            p.seconds_per_1000_time,
            p.metric,
            100.0 * p.bias / reference,
            100.0 * p.bias_half_width / reference,
            if p.within { "yes" } else { "no" }
        );
    }
    out + &format!("recommended: {}\n", a.advice)
}

/// The metric against d (log axis) with its intervals, and the reference as a dashed line.
fn draw(a: &Advice, path: &std::path::Path) -> Result<(), String> {
    use pdes_runs::sweep::plot::{Figure, Series, draw};
    let reference: Vec<(f64, f64)> = a
        .points
        .iter()
        .map(|p| (p.d, a.exact_value.unwrap_or(p.metric - p.bias)))
        .collect();
    let title = match a.recommended_d {
        Some(d) => format!(
            "{} against d (95% intervals): recommended d = {d}",
            a.metric
        ),
        None => format!(
            "{} against d (95% intervals): no d within the tolerance",
            a.metric
        ),
    };
    draw(
        &Figure {
            title: &title,
            x_label: "run.d",
            y_label: &a.metric,
            log_x: true,
            reference_label: match a.reference {
                "exact" => "exact value",
                _ => "sequential runs of the same seeds",
            },
            series: vec![Series {
                label: String::new(),
                points: a
                    .points
                    .iter()
                    .map(|p| (p.d, p.metric, Some(p.bias_half_width)))
                    .collect(),
                reference,
            }],
        },
        path,
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn tolerances_read_as_percentages_or_fractions() {
        assert_eq!(super::tolerance("1%"), Ok(0.01));
        assert_eq!(super::tolerance("0.5 %"), Ok(0.005));
        assert_eq!(super::tolerance("0.02"), Ok(0.02));
        for bad in ["0", "100%", "-1%", "x", "1.5"] {
            assert!(super::tolerance(bad).is_err(), "{bad}");
        }
    }
}
