//! `pdes-lab verify`: one line per check as it finishes, then "N passed, N failed".

use super::{CliError, Format, VerifyArgs};
use pdes_runs::verify::{self, Options};
use std::io::Write;

/// Runs the verification and prints it; any difference is exit status 1.
pub fn run(args: &VerifyArgs) -> Result<(), CliError> {
    let gpu = pdes_gpu::Gpu::shared().map_err(CliError::Run)?;
    let options = Options {
        quick: args.quick,
        perturb_gpu: false,
    };
    let table = args.format == Format::Table;
    let mut out = std::io::stdout().lock();
    let mut write_err = None;
    if table {
        let line = format!("verifying {}\n", gpu.describe());
        write_err = out.write_all(line.as_bytes()).err();
    }
    let v = verify::run(&gpu, options, |c| {
        if table && write_err.is_none() {
            write_err = out
                .write_all(check_lines(c).as_bytes())
                .and_then(|_| out.flush())
                .err();
        }
    });
    // always a fresh check; what it found is what the window and --devices then trust
    pdes_runs::trust::remember(&gpu.info, v.passed, v.failed);
    let text = if table {
        // the products M/M/c/k's module was verified with on this device
        let products = match pdes_gpu::shaders::Products::for_device(&gpu.device) {
            pdes_gpu::shaders::Products::Native => "native 64-bit",
            pdes_gpu::shaders::Products::Emulated => "16-bit halves",
        };
        format!(
            "{} passed, {} failed on {} (reductions: {}; products: {products})\n",
            v.passed,
            v.failed,
            v.adapter,
            v.reductions.join(", ")
        )
    } else {
        let mut s = serde_json::to_string_pretty(&v)
            .map_err(|e| CliError::Run(format!("the verification as JSON: {e}")))?;
        s.push('\n');
        s
    };
    if let Some(e) = write_err.or_else(|| {
        out.write_all(text.as_bytes())
            .and_then(|_| out.flush())
            .err()
    }) {
        return Err(CliError::Run(format!("writing the verification: {e}")));
    }
    if v.ok() {
        Ok(())
    } else {
        Err(CliError::Run(format!(
            "GPU differs from CPU in {} of {} checks; first: {}",
            v.failed,
            v.passed + v.failed,
            v.first_failure().unwrap_or_default()
        )))
    }
}

/// "PASS name (0.12 s)" or "FAIL name" and one indented line per difference.
fn check_lines(c: &verify::CheckResult) -> String {
    let mut s = format!(
        "{} {} ({:.2} s)\n",
        if c.passed { "PASS" } else { "FAIL" },
        c.name,
        c.seconds
    );
    for d in &c.details {
        s.push_str(&format!("     {d}\n"));
    }
    s
}
