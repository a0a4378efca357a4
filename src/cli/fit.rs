//! `pdes-lab fit DATA`: normal mixtures of k = 1..K components fitted by maximum likelihood
//! (Nelder–Mead), BIC choosing k (paper 003 §3). DATA is a CSV file or the shipped
//! synthetic sample `cheng2014-lgd`.

use super::{CliError, EngineArg, Format, output};
use pdes_models::fit::{self, Data, Search};
use std::path::PathBuf;

/// Arguments of `pdes-lab fit`.
#[derive(clap::Args, Debug)]
pub struct FitArgs {
    /// A CSV file (one numeric column, header optional; or --column NAME), or
    /// `cheng2014-lgd`: the shipped synthetic sample of 7,051 values (the guide: its mixture).
    pub data: String,
    /// The column to fit, by its header.
    #[arg(long)]
    pub column: Option<String>,
    /// Components: K (1..=K) or A..B, within 1..10.
    #[arg(long, default_value = "1..10")]
    pub components: String,
    /// Where the log-likelihood is evaluated: cpu (f64) or gpu (f32).
    #[arg(long, value_enum, default_value = "cpu")]
    pub engine: EngineArg,
    /// With --engine gpu, where Nelder–Mead's iterations run: device (each minimization one
    /// workgroup, run to its end: one dispatch, then one per k), host (rounds, one round
    /// trip each), or auto (the device up to 65,536 distinct values).
    #[arg(long, value_enum, default_value = "auto")]
    pub iterate_on: IterateOn,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = super::format_parser())]
    pub format: Format,
    /// Write the output to this file (whole or not at all) instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `--iterate-on`: where a GPU fit's Nelder–Mead iterations run ([`fit::SearchLoop`]).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum IterateOn {
    /// The device up to 65,536 distinct values, else the host.
    Auto,
    /// The host, in rounds.
    Host,
    /// The device, a workgroup per minimization.
    Device,
}

impl From<IterateOn> for fit::SearchLoop {
    fn from(a: IterateOn) -> Self {
        match a {
            IterateOn::Auto => Self::Auto,
            IterateOn::Host => Self::Host,
            IterateOn::Device => Self::Device,
        }
    }
}

/// Parses `--components`: "K" (1..=K) or "A..B", within 1..=10.
pub fn parse_components(s: &str) -> Result<std::ops::RangeInclusive<usize>, String> {
    let bad = || format!("--components {s}: expected K or A..B with 1 ≤ A ≤ B ≤ 10");
    let (a, b) = match s.split_once("..") {
        Some((a, b)) => (
            a.trim().parse().map_err(|_| bad())?,
            b.trim().parse().map_err(|_| bad())?,
        ),
        None => (1, s.trim().parse().map_err(|_| bad())?),
    };
    if !(1 <= a && a <= b && b <= fit::gpu::MAX_COMPONENTS) {
        return Err(bad());
    }
    Ok(a..=b)
}

/// Reads DATA: the built-in sample or a CSV file.
pub fn load(data: &str, column: Option<&str>) -> Result<Data, String> {
    if data == fit::BUILTIN_LGD {
        return Ok(Data::synthetic_lgd(fit::data::LGD_N));
    }
    Data::read_csv(std::path::Path::new(data), column)
}

/// The fits as text in `format`.
pub fn format_report(r: &fit::Report, format: Format) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(r).unwrap_or_default();
            s.push('\n');
            s
        }
        Format::Csv => {
            let kmax = r.fits.iter().map(|f| f.components).max().unwrap_or(1);
            let mut h = vec![
                "components".to_string(),
                "loglik".into(),
                "bic".into(),
                "iterations".into(),
                "evaluations".into(),
            ];
            for p in ["weight", "mean", "sd"] {
                h.extend((1..=kmax).map(|j| format!("{p}_{j}")));
            }
            let mut s = h.join(",") + "\n";
            for f in &r.fits {
                let mut row = vec![
                    f.components.to_string(),
                    f.loglik.to_string(),
                    f.bic.to_string(),
                    f.iterations.to_string(),
                    f.evaluations.to_string(),
                ];
                for v in [&f.weights, &f.means, &f.sds] {
                    row.extend(
                        (0..kmax).map(|j| v.get(j).map_or(String::new(), |x| x.to_string())),
                    );
                }
                s += &(row.join(",") + "\n");
            }
            s
        }
        Format::Table => {
            let mut s = format!(
                "n = {} ({} distinct), log-likelihood on the {}, {:.3} s in {} rounds\n{:>2} {:>14} {:>14} {:>6}  weights / means / sds\n",
                r.n, r.distinct, r.engine, r.wall_seconds, r.rounds, "k", "ln L", "BIC", "iter"
            );
            for f in &r.fits {
                let list = |v: &[f64]| {
                    v.iter()
                        .map(|&x| four_places(x))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                s += &format!(
                    "{:>2} {:>14.3} {:>14.3} {:>6}  w [{}] μ [{}] σ [{}]{}\n",
                    f.components,
                    f.loglik,
                    f.bic,
                    f.iterations,
                    list(&f.weights),
                    list(&f.means),
                    list(&f.sds),
                    if f.components == r.chosen_components {
                        "  ← BIC"
                    } else {
                        ""
                    }
                );
            }
            s
        }
    }
}

/// Runs `pdes-lab fit`.
pub fn run(args: &FitArgs) -> Result<(), CliError> {
    let ks = parse_components(&args.components).map_err(CliError::Input)?;
    if let Some(p) = &args.out {
        output::check_writable(p)
            .map_err(|e| CliError::Input(format!("--out {}: {e}", p.display())))?;
    }
    if args.engine == EngineArg::Cpu && args.iterate_on != IterateOn::Auto {
        return Err(CliError::Input(
            "--iterate-on: only a GPU fit (--engine gpu) has a choice; the CPU's iterations run on the host".into(),
        ));
    }
    let data = load(&args.data, args.column.as_deref()).map_err(CliError::Input)?;
    let gpu = match args.engine {
        EngineArg::Gpu => Some(pdes_gpu::Gpu::shared().map_err(CliError::Run)?),
        EngineArg::Cpu => None,
    };
    let distinct = data.values.len();
    if *ks.start() > distinct {
        return Err(CliError::Input(format!(
            "--components: the data have {distinct} distinct values, fewer than the {} components asked for",
            ks.start()
        )));
    }
    if *ks.end() > distinct {
        output::to_stderr(&format!(
            "pdes-lab: --components {}..{}: the data have {distinct} distinct values, so k stops at {distinct}",
            ks.start(),
            ks.end()
        ));
    }
    let search = Search {
        iterate_on: args.iterate_on.into(),
        ..Search::default()
    };
    let r = fit::report(&data, ks, gpu, search).map_err(CliError::Run)?;
    output::emit(
        &format_report(&r, args.format),
        args.out.as_deref(),
        "--out",
    )
}

/// A parameter as the table shows it: four decimals for ordinary magnitudes, four
/// significant digits in scientific notation for data of another scale (1e300, 1e-300).
fn four_places(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        format!("{x:.4e}")
    } else {
        format!("{x:.4}")
    }
}
