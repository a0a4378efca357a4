//! The command line: `run`, `presets`, `verify`, `bench` (every model's suites, from the
//! registry), `sweep` and `sweep-merge`, and `gui`.

pub mod fit;
pub mod run;
pub mod sweep;
pub mod tune;
pub mod verify;

use clap::{Parser, Subcommand, ValueEnum};
use pdes_bench as bench;
pub use pdes_core::Error as CliError;
pub use pdes_runs::output;
use std::path::PathBuf;

/// PDES Lab: parallel discrete-event simulation on the GPU, seen and measured.
#[derive(Parser, Debug)]
#[command(name = "pdes-lab", version, about)]
pub struct Cli {
    /// What to do; without a command the window opens on the default preset.
    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// True for the commands that open no window.
    pub fn is_headless(&self) -> bool {
        !matches!(self.command, None | Some(Command::Gui { .. }))
    }

    /// True for the commands whose result goes to standard output (no `--out`).
    pub fn writes_stdout(&self) -> bool {
        match &self.command {
            None | Some(Command::Gui { .. }) => false,
            Some(Command::Run(a)) => a.out.is_none(),
            Some(Command::Sweep(a)) => a.out.is_none(),
            Some(Command::SweepMerge(a)) => a.out.is_none(),
            Some(Command::Fit(a)) => a.out.is_none(),
            Some(Command::Bench(a)) => a.out.is_none(),
            Some(Command::Verify(_) | Command::Presets | Command::Devices | Command::Tune(_)) => {
                true
            }
        }
    }
}

/// When the command started: set by [`mark_start`] at the top of `main`, so that a
/// summary's `wall_seconds` is the user's wait, not the engine's alone.
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Marks the command's start (the first thing `main` does).
pub fn mark_start() {
    let _ = STARTED.set(std::time::Instant::now());
}

/// Seconds since the command started ([`mark_start`]; since the first call where it was
/// not marked).
pub fn command_seconds() -> f64 {
    STARTED
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a preset headless and print its summary.
    Run(RunArgs),
    /// Open the window on a preset (the default without a command).
    Gui {
        /// Preset: a built-in name or a TOML file.
        preset: Option<String>,
    },
    /// List the built-in presets, one line each.
    Presets,
    /// Run a fixed benchmark suite and print timings and speedups.
    Bench(BenchArgs),
    /// Check that every GPU engine gives its CPU twin's results on this machine's adapter
    /// (exit status 1 on any difference).
    Verify(VerifyArgs),
    /// Run a preset over a grid of key values and seeds: one row per run, mean and 95%
    /// confidence interval per point, optionally the figure.
    Sweep(sweep::SweepArgs),
    /// Join the CSVs of a sharded sweep (`sweep --shard I/N`) into the unsharded one.
    SweepMerge(sweep::MergeArgs),
    /// Fit normal mixtures of 1..K components to a column of numbers by maximum
    /// likelihood (Nelder–Mead); BIC chooses K.
    Fit(fit::FitArgs),
    /// List this host's GPUs with the numbers `--devices` takes.
    Devices,
    /// Recommend d: sweep it over a log grid up to the largest valid d, measuring the
    /// parallel events and the metric's bias against its exact value (or sequential runs
    /// of the same seeds), and name the largest d within the tolerance.
    Tune(tune::TuneArgs),
}

/// Arguments of `pdes-lab verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// One configuration per engine and reduction variant (what the app runs at start).
    #[arg(long)]
    pub quick: bool,
    /// Output format (table or json).
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
}

/// Arguments of `pdes-lab bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Suite to run (every model's suites; `pdes-lab presets` says what each measures; the
    /// default is the first model's first suite).
    #[arg(long, default_value = bench::suite_names()[0], value_parser = clap::builder::PossibleValuesParser::new(bench::suite_names()))]
    pub suite: String,
    /// Output format (table or json).
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
    /// Write the report to this file instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Time every GPU pass with timestamp queries (adds a little overhead).
    #[arg(long)]
    pub profile: bool,
    /// Timed runs of each case, the median reported: GPU cases after an untimed warm-up;
    /// diffusion's CPU event runs once (a minute at 2048²).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
}

/// Arguments of `pdes-lab run`.
#[derive(clap::Args, Debug, Default)]
pub struct RunArgs {
    /// Preset: a built-in name (see `pdes-lab presets`) or a TOML file.
    pub preset: Option<String>,
    /// Override a preset key, e.g. --set run.d=0.5 --set model.rows=64 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Algorithm of the preset's model (overrides run.algorithm and run.timestamps);
    /// `pdes-lab presets` lists each model's algorithms.
    #[arg(long, value_parser = algorithm_names())]
    pub algorithm: Option<String>,
    /// Engine (overrides run.engine).
    #[arg(long, value_enum)]
    pub engine: Option<EngineArg>,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
    /// Write the output to this file instead of stdout (only when the run succeeds).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write the per-step series (t_min, bound, events) as CSV to this file.
    #[arg(long, value_name = "FILE")]
    pub steps_csv: Option<PathBuf>,
    /// Write one output value per independent unit as a CSV column for `pdes-lab fit`
    /// (M/M/c/k: every replication's L̂).
    #[arg(long)]
    pub samples: Option<PathBuf>,
    /// The GPUs the run uses: `all`, or device numbers such as 0,1 (`pdes-lab devices`);
    /// each passes `verify --quick` first. Several: M/M/c/k's replications split between
    /// them (the same summary as on one).
    #[arg(long, value_name = "all|0,1")]
    pub devices: Option<pdes_runs::devices::Devices>,
}

/// Every model's algorithm names, from the registry (clap lists them in --help and in
/// the error for an unknown one; whether one fits the preset's model is checked later).
fn algorithm_names() -> clap::builder::PossibleValuesParser {
    // each name once, in the registry's order (several models share "sequential", …)
    let mut names: Vec<&'static str> = Vec::new();
    for a in pdes_models::MODELS.iter().flat_map(|m| m.algorithms) {
        if !names.contains(&a.name) {
            names.push(a.name);
        }
    }
    clap::builder::PossibleValuesParser::new(names)
}

/// `--engine` values.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineArg {
    /// CPU.
    Cpu,
    /// GPU (wgpu compute).
    Gpu,
}

pub use pdes_runs::output::Format;

/// `--format`'s parser: one of [`Format::NAMES`], as clap lists them in `--help` and in its
/// refusal.
pub fn format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Format::NAMES)
        .map(|name: String| Format::from_name(&name).unwrap_or_default())
}

pub fn dispatch(cli: Cli) -> Result<(), CliError> {
    // a result for a closed stdout is refused before any work (`run … >&-`, issue 57 §2)
    if cli.writes_stdout() && !output::stdout_is_open() {
        return Err(output::stdout_closed());
    }
    match cli.command {
        None => gui(None),
        Some(Command::Gui { preset }) => gui(preset.as_deref()),
        Some(Command::Run(args)) => run::run(&args),
        Some(Command::Verify(v)) => verify::run(&v),
        Some(Command::Sweep(a)) => sweep::run(&a),
        Some(Command::SweepMerge(a)) => sweep::merge(&a),
        Some(Command::Fit(a)) => fit::run(&a),
        Some(Command::Tune(a)) => tune::run(&a),
        Some(Command::Devices) => {
            let lines = pdes_runs::devices::list();
            if lines.is_empty() {
                return Err(CliError::Run(
                    "this host has no GPU adapter with Vulkan, Metal or DX12".into(),
                ));
            }
            output::write_stdout(&(lines.join("\n") + "\n")).map_err(output::stdout_error)
        }
        Some(Command::Bench(b)) => bench::run(
            &b.suite,
            &bench::BenchOptions {
                format: b.format,
                out: b.out.clone(),
                profile: b.profile,
                repeat: b.repeat,
            },
        ),
        Some(Command::Presets) => {
            let mut text: String = pdes_models::preset::builtin()
                .map(|(name, text)| {
                    format!("{name:<22} {}\n", pdes_models::preset::description(text))
                })
                .collect();
            text.push_str("\nmodels (model.kind) and their algorithms (--algorithm):\n");
            for m in pdes_models::MODELS {
                let names: Vec<&str> = m.listed().map(|a| a.name).collect();
                text.push_str(&format!(
                    "{:<22} {}: {}\n",
                    m.kind,
                    m.description,
                    names.join(", ")
                ));
            }
            text.push_str("\nkeys of each model (--set KEY=VALUE) and what they take:\n");
            text.push_str(&pdes_models::keys::text(
                &pdes_models::registry::key_tables(),
            ));
            text.push_str("\nbench suites (pdes-lab bench --suite):\n");
            for (kind, suites, _) in bench::SUITES {
                for s in *suites {
                    text.push_str(&format!("{:<22} {kind}: {}\n", s.name, s.help));
                }
            }
            output::write_stdout(&text).map_err(output::stdout_error)
        }
    }
}

fn gui(preset: Option<&str>) -> Result<(), CliError> {
    let args = RunArgs {
        preset: preset.map(str::to_string),
        ..Default::default()
    };
    // a preset that cannot be read still opens the window, on the default preset with the
    // reason in its status line (and on stderr): a student double-clicking a bad file saw
    // nothing at all
    let (config, note) = match run::config_from_args(&args) {
        Ok(c) => (c, None),
        // without a display there is no window to show the default in: the preset's
        // error alone, as a usage error (it was followed by "no display found", exit 1)
        Err(e @ CliError::Input(_)) if no_display().is_err() => return Err(e),
        Err(CliError::Input(e)) if preset.is_some() => {
            output::to_stderr(&format!("pdes-lab: {e}"));
            let config = run::config_from_args(&RunArgs::default())?;
            (
                config,
                Some(format!("{e} — showing the default preset instead")),
            )
        }
        Err(e) => return Err(e),
    };
    no_display()?;
    pdes_ui::app::run_native(config, note).map_err(CliError::Run)
}

/// On Linux and the BSDs the window needs an X11 or Wayland display: without one, one line
/// that says so and how to run headless (winit's own error is four lines about an event
/// loop).
fn no_display() -> Result<(), CliError> {
    let unix_desktop = cfg!(all(unix, not(target_os = "macos")));
    let none = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .all(|v| std::env::var_os(v).is_none_or(|x| x.is_empty()));
    if unix_desktop && none {
        return Err(CliError::Run(
            "no display found (DISPLAY and WAYLAND_DISPLAY are unset): the window needs one; run headless with `pdes-lab run [PRESET]` (see `pdes-lab --help`)".into(),
        ));
    }
    Ok(())
}
