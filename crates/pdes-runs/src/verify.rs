//! `pdes-lab verify`'s runner: every registered model's checks on this machine's adapter,
//! with each reduction variant it has. The comparison machinery and the types are
//! [`pdes_models::verify`]'s (re-exported here), the cases each model's own.

use pdes_gpu::{Gpu, reduce_check};
pub use pdes_models::verify::*;
use std::sync::Arc;

/// Runs every check on `gpu`, calling `on_check` after each (for a live listing).
pub fn run(
    gpu: &Arc<Gpu>,
    options: Options,
    mut on_check: impl FnMut(&CheckResult),
) -> Verification {
    let variants = variants(gpu);
    let mut checks = Vec::new();
    let mut record = |c: CheckResult| {
        on_check(&c);
        checks.push(c);
    };
    for &r in &variants {
        let tag = reductions_name(r);
        record(timed(format!("reductions ({tag})"), || {
            let groups = if options.quick { 3 } else { 9 };
            reduce_check::run(gpu, r, 0x5eed ^ groups as u64, groups).map_err(|e| e.to_string())
        }));
        for m in pdes_models::MODELS {
            (m.verify)(gpu, r, options, &mut record);
        }
    }
    for m in pdes_models::MODELS {
        (m.verify_once)(gpu, options, &mut record);
    }
    verification(gpu, checks)
}

/// The checks a browser tab runs at start on its device: the quick checks of every model
/// whose GPU engine runs in a page (`ModelInfo::page_checks`; the others run on the CPU
/// there), as one future the page polls once a frame.
pub async fn run_in_page(gpu: Arc<Gpu>) -> Verification {
    let mut checks = Vec::new();
    for m in pdes_models::MODELS {
        if let Some(page_checks) = m.page_checks {
            checks.extend(page_checks(gpu.clone()).await);
        }
    }
    verification(&gpu, checks)
}

/// The outcome of `checks` on `gpu`.
fn verification(gpu: &Gpu, checks: Vec<CheckResult>) -> Verification {
    let passed = checks.iter().filter(|c| c.passed).count();
    Verification {
        adapter: gpu.describe(),
        reductions: variants(gpu)
            .iter()
            .map(|r| reductions_name(*r).into())
            .collect(),
        failed: checks.len() - passed,
        passed,
        checks,
    }
}
