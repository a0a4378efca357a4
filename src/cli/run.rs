//! `pdes-lab run`: load a preset, apply overrides, run it headless, print the summary.

use super::{CliError, EngineArg, RunArgs, output};
use pdes_core::sim::Budget;
use pdes_models::preset::{self, Config};
use pdes_runs::engines::Simulation;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How often a long run writes a progress line when stderr is not a terminal.
const PROGRESS_LINE_EVERY: Duration = Duration::from_secs(60);

/// When a run without a terminal says how long it will take (if over a minute).
const ESTIMATE_AFTER: Duration = Duration::from_secs(3);

/// `seconds` as a reader says it: "3 minutes", "2.5 hours", "4 days".
fn duration_words(seconds: f64) -> String {
    if seconds < 90.0 * 60.0 {
        format!("{:.0} minutes", seconds / 60.0)
    } else if seconds < 48.0 * 3600.0 {
        format!("{:.1} hours", seconds / 3600.0)
    } else {
        format!("{:.0} days", seconds / 86400.0)
    }
}

/// Builds the validated configuration `args` describe.
pub fn config_from_args(args: &RunArgs) -> Result<Config, CliError> {
    let name = args.preset.as_deref().unwrap_or(preset::default_preset());
    let (origin, text) = preset::load_text(name).map_err(|e| CliError::Input(e.to_string()))?;
    let mut table = pdes_models::reading::parse_table(&text, &origin)
        .map_err(|e| CliError::Input(e.to_string()))?;
    let mut sets: Vec<String> = args.set.clone();
    if let Some(name) = &args.algorithm {
        // the model the preset names, after any --set model.kind=…
        let mut probe = table.clone();
        for s in &args.set {
            let _ = preset::apply_set(&mut probe, s);
        }
        let kind = preset::kind_of(&probe)
            .unwrap_or(pdes_models::MODELS[0].kind)
            .to_string();
        let model = pdes_models::by_kind(&kind)
            .ok_or_else(|| CliError::Input(format!("model.kind: \"{kind}\" is not a model")))?;
        let Some(a) = model.algorithm(name) else {
            let names: Vec<&str> = model.listed().map(|a| a.name).collect();
            return Err(CliError::Input(format!(
                "--algorithm {name}: not an algorithm of model.kind = \"{kind}\" (its algorithms: {})",
                names.join(", ")
            )));
        };
        sets.push(format!("run.algorithm=\"{}\"", a.algorithm));
        if let Some(ts) = a.timestamps {
            sets.push(format!("run.timestamps=\"{ts}\""));
        }
    }
    if let Some(e) = args.engine {
        sets.push(format!(
            "run.engine=\"{}\"",
            if e == EngineArg::Gpu { "gpu" } else { "cpu" }
        ));
    }
    for s in &sets {
        preset::apply_set(&mut table, s).map_err(|e| CliError::Input(e.to_string()))?;
    }
    Config::from_table(&table).map_err(|e| CliError::Input(format!("preset {origin}: {e}")))
}

/// Runs `args` to the end time and writes the summary.
pub fn run(args: &RunArgs) -> Result<(), CliError> {
    let config = config_from_args(args)?;
    // destinations are checked before the run, so that no result is computed to be lost
    output::check_distinct(&[
        ("--out", args.out.as_deref()),
        ("--steps-csv", args.steps_csv.as_deref()),
        ("--samples", args.samples.as_deref()),
    ])
    .map_err(CliError::Input)?;
    for (flag, path) in [
        ("--out", &args.out),
        ("--steps-csv", &args.steps_csv),
        ("--samples", &args.samples),
    ] {
        if let Some(p) = path {
            output::check_writable(p)
                .map_err(|e| CliError::Input(format!("{flag} {}: {e}", p.display())))?;
        }
    }
    let end = config.end_ticks();
    let set_up = Instant::now();
    let mut sim = match &args.devices {
        None => Simulation::new(config).map_err(|e| CliError::Input(e.to_string()))?,
        Some(devices) => {
            pdes_runs::devices::check(devices).map_err(CliError::Input)?;
            let count = match devices {
                pdes_runs::devices::Devices::All => pdes_gpu::Gpu::adapters().len(),
                pdes_runs::devices::Devices::Listed(v) => v.len(),
            };
            Simulation::check_devices(&config, count).map_err(CliError::Input)?;
            let gpus = pdes_runs::devices::open_verified(devices, &mut |line| {
                output::to_stderr(&line);
            })
            .map_err(CliError::Run)?;
            Simulation::on_devices(config, &gpus).map_err(|e| CliError::Run(e.to_string()))?
        }
    };
    if args.samples.is_some() && sim.engine.samples().is_none() {
        return Err(CliError::Input(format!(
            "--samples: model.kind = \"{}\" has no per-unit outputs to write (mmck writes every replication's L̂)",
            sim.config.kind()
        )));
    }
    if std::env::var_os("PDES_GPU_PROFILE").is_some() {
        // where a fresh process's time goes before the run (bench/NOTES.md, "The cold run")
        output::to_stderr(&format!(
            "set-up: device and engine in {:.1} ms",
            set_up.elapsed().as_secs_f64() * 1e3
        ));
    }
    let started = Instant::now();
    // Advance in chunks of simulated time that take about 200 ms each: short enough for a
    // live progress bar, long enough that a GPU engine is not stopped every few steps (a GPU
    // batch stopped at the chunk's end runs its remaining steps as empty dispatches). On
    // the CPU the first chunk is tiny and grows while calls are quick (a fixed 1/200 of
    // T = 1e12 was minutes of the open network's events before any progress appeared); on
    // the GPU it is 1/200 of T, since every call stops a batch (starting tiny cost the
    // headline 0.2 s and the torus step 1.3 µs in twenty stopped batches). Either way a
    // slow call halves the next.
    let on_gpu = sim.config.engine() == pdes_models::preset::EngineKind::Gpu;
    let mut chunk = if on_gpu { end / 200 } else { end >> 20 }.max(1);
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut last_line = started;
    let mut estimate_said = false;
    while !sim.engine.finished() {
        let from = sim.engine.now();
        let target = from.saturating_add(chunk).min(end);
        let call = Instant::now();
        sim.engine
            .advance(Budget::Until(target))
            .map_err(|e| CliError::Run(e.to_string()))?;
        let took = call.elapsed();
        let done = sim.engine.now().min(end);
        let covered = done.saturating_sub(from);
        let rest = end - done;
        // a quick call grows the next fourfold, one near the aim twofold, and one of a few
        // milliseconds sixteenfold: every call is a GPU batch's submits and readback
        // (~0.3 ms, and the GPU idle while the next batch's first submission is encoded),
        // so a run of 1000 steps and ~10 ms makes three calls (it made eight, then five)
        if took < Duration::from_millis(5) {
            chunk = chunk.saturating_mul(16);
        } else if took < Duration::from_millis(50) {
            chunk = chunk.saturating_mul(4);
        } else if took < Duration::from_millis(200) {
            chunk = chunk.saturating_mul(2);
        } else if took > Duration::from_millis(800) {
            chunk = (chunk / 2).max(1);
        }
        // and where the rest, at this call's pace, takes less than one call's aim, it is one
        // call: a GPU run of ~20 ms (M/M/c/k's 7,168 replications, SIR's 1000 steps) makes
        // two calls, not three, a readback and a stopped batch fewer
        if covered > 0 && took.as_secs_f64() * (rest as f64) / (covered as f64) < 0.2 {
            chunk = chunk.max(rest);
        }
        if std::io::stderr().is_terminal() {
            if bar.is_none() && started.elapsed() > Duration::from_secs(1) {
                let b = indicatif::ProgressBar::new(end);
                b.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{bar:40} {percent:>3}% simulated time, {elapsed} elapsed, ETA {eta}",
                    )
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                );
                bar = Some(b);
            }
            if let Some(b) = &bar {
                b.set_position(done);
            }
        } else if !estimate_said && started.elapsed() > ESTIMATE_AFTER && done > 0 {
            // a log file learns early what it waits for, when that is over a minute (it
            // waited a minute for the first progress line, issue 57 §2)
            estimate_said = true;
            let elapsed = started.elapsed().as_secs_f64();
            let fraction = done as f64 / end.max(1) as f64;
            let to_go = elapsed * (1.0 - fraction) / fraction;
            if to_go > 60.0 {
                output::to_stderr(&format!(
                    "pdes-lab: about {} to go at this pace ({:.2}% of the simulated time after {elapsed:.0} s); a progress line follows every minute",
                    duration_words(to_go),
                    100.0 * fraction
                ));
            }
        } else if last_line.elapsed() > PROGRESS_LINE_EVERY {
            // a log file (a cluster job's): one line a minute, with the estimate
            last_line = Instant::now();
            let fraction = done as f64 / end.max(1) as f64;
            let elapsed = started.elapsed().as_secs_f64();
            output::to_stderr(&format!(
                "pdes-lab: {:.1}% of the simulated time after {elapsed:.0} s (about {:.0} s to go)",
                100.0 * fraction,
                if fraction > 0.0 {
                    elapsed * (1.0 - fraction) / fraction
                } else {
                    f64::NAN
                }
            ));
        }
    }
    let wall = started.elapsed().as_secs_f64();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let summary = sim
        .engine
        .report()
        .map_err(|e| CliError::Run(e.to_string()))?
        .with_times(super::command_seconds(), wall);
    if let Some(field) = summary.non_finite {
        return Err(CliError::Run(format!(
            "the run diverged: {field} is not a finite number (no result is printed)"
        )));
    }
    let text = output::format_summary(&summary, args.format)
        .map_err(|e| CliError::Run(format!("the summary could not be written as JSON: {e}")))?;
    // the summary first: if the step series then fails, the run's result is kept
    output::emit(&text, args.out.as_deref(), "--out")?;
    // the samples read only when asked for: for M/M/c/k they are every replication's record
    // read back (10⁷ replications: 12 s after the result, which the summary no longer needs)
    if let Some(path) = &args.samples
        && let Some(xs) = sim.engine.samples()
    {
        let mut text = String::from("sample\n");
        for x in xs {
            text += &format!("{x}\n");
        }
        output::emit(&text, Some(path), "--samples")?;
    }
    if let Some(path) = &args.steps_csv {
        output::emit(
            &output::steps_csv(sim.engine.step_log(), sim.engine.step_stride()),
            Some(path),
            "--steps-csv",
        )?;
    }
    // what the user still waits for after the result (PDES_GPU_PROFILE prints it)
    let mut phases = pdes_gpu::stamps::HostPhases::start("run, after the result");
    drop(sim);
    phases.mark("engine freed");
    Ok(())
}
