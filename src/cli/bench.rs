//! `pdes-lab bench`: runs a suite of the model that owns it (the registry lists every
//! model's suites), after proving CPU ≡ GPU on this adapter when the suite has GPU rows.

use super::{CliError, Format};
use serde::Serialize;
use std::path::PathBuf;

/// How a suite runs and reports.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Output format (table or json).
    pub format: Format,
    /// Write the report here instead of stdout.
    pub out: Option<PathBuf>,
    /// Time every GPU pass with timestamp queries.
    pub profile: bool,
    /// Timed runs of each GPU case after one untimed warm-up (median reported).
    pub repeat: u32,
}

/// Every model's suite names (the `--suite` values), from the registry.
pub fn suite_names() -> Vec<&'static str> {
    crate::models::MODELS
        .iter()
        .flat_map(|m| m.suites.iter().map(|s| s.name))
        .collect()
}

/// Runs the suite `name` with the model that owns it.
pub fn run(name: &str, options: &BenchOptions) -> Result<(), CliError> {
    check_destination(options.out.as_deref())?;
    let model = crate::models::MODELS
        .iter()
        .find(|m| m.suites.iter().any(|s| s.name == name))
        .ok_or_else(|| {
            CliError::Input(format!(
                "--suite: \"{name}\" is not a suite (suites: {})",
                suite_names().join(", ")
            ))
        })?;
    (model.bench)(name, options)
}

/// Fails early when `--out` cannot be written (a long suite is not run to be lost).
pub fn check_destination(out: Option<&std::path::Path>) -> Result<(), CliError> {
    match out {
        Some(p) => super::output::check_writable(p)
            .map_err(|e| CliError::Input(format!("--out {}: {e}", p.display()))),
        None => Ok(()),
    }
}

/// Runs `pdes-lab verify --quick` on this adapter before any GPU row is measured: a GPU
/// that does not reproduce its CPU twins gets no benchmark. Returns the verdict line that
/// the report carries.
pub fn verification_gate() -> Result<String, CliError> {
    let gpu = crate::gpu::Gpu::shared().map_err(CliError::Run)?;
    let options = crate::verify::Options {
        quick: true,
        perturb_gpu: false,
    };
    let v = crate::verify::run(&gpu, options, |_| {});
    if !v.ok() {
        return Err(CliError::Run(format!(
            "GPU differs from CPU on {} ({} of {} checks failed; first: {}); no GPU row is reported: run `pdes-lab verify` for the details",
            v.adapter,
            v.failed,
            v.passed + v.failed,
            v.first_failure().unwrap_or_default()
        )));
    }
    Ok(format!(
        "pdes-lab verify --quick: {} passed, 0 failed on {}",
        v.passed, v.adapter
    ))
}

/// Writes a suite's report: JSON (suite, device, time, command, rows) or the table with a
/// heading that names the device.
pub fn write_report<R: Serialize>(
    suite_name: &str,
    options: &BenchOptions,
    rows: &[R],
    table: &str,
    verification: Option<String>,
) -> Result<(), CliError> {
    let (format, out) = (options.format, options.out.as_deref());
    let device = match crate::gpu::Gpu::shared() {
        Ok(g) => g.describe(),
        Err(e) => format!("no GPU ({e})"),
    };
    let text = match format {
        Format::Json => {
            let report = serde_json::json!({
                "suite": suite_name,
                "device": device,
                "unix_time": std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
                "command": std::env::args().collect::<Vec<_>>().join(" "),
                "verification": verification,
                "rows": rows,
            });
            serde_json::to_string_pretty(&report).expect("serializable") + "\n"
        }
        _ => format!(
            "suite {suite_name} on {device}\n{}{table}",
            verification.map_or_else(String::new, |v| v + "\n")
        ),
    };
    super::output::emit(&text, out, "--out")
}
