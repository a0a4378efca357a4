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
    let passed = checks.iter().filter(|c| c.passed).count();
    Verification {
        adapter: gpu.describe(),
        reductions: variants
            .iter()
            .map(|r| reductions_name(*r).into())
            .collect(),
        failed: checks.len() - passed,
        passed,
        checks,
    }
}
