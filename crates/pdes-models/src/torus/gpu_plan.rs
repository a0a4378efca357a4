//! What a GPU torus run needs before it starts: the scan's segment length for its size and
//! load, the bytes of each buffer, and whether the adapter can hold them (refused with the
//! figure and the key to change, never discovered as a device error mid-run).

use crate::queueing::{Algorithm, Timestamps};
use crate::torus::config::TorusConfig;
use pdes_core::sim::SimError;
use pdes_gpu::Gpu;
use pdes_gpu::stepped::{self, LOG_BYTES, ScanItems};

/// The scan's segment length for `facilities` in all of `cfg`: the longer segments where
/// [`ScanItems::for_facilities`] takes them, unless a 4096-facility segment could then list
/// more departures per step than its 256 threads take in one round (a facility departs at
/// most once per mean service time, so at most 4096 · d / mean per step): past that a
/// segment needs a second round per step, which costs more than the longer segment saves
/// (bench/NOTES.md, "The segment length by load as well as by size").
pub fn scan_items(cfg: &TorusConfig, facilities: u64) -> ScanItems {
    let items = ScanItems::for_facilities(facilities);
    let most_per_segment = ScanItems::SIXTEEN.segment() as f64 * cfg.run.d / cfg.model.mean_service;
    if items == ScanItems::SIXTEEN && most_per_segment > pdes_gpu::stepped::SCAN_THREADS as f64 {
        ScanItems::EIGHT
    } else {
        items
    }
}

/// Bytes of GPU memory a torus run of `cfg` needs, by buffer: (name, bytes).
pub fn memory_plan(cfg: &TorusConfig) -> Vec<(&'static str, u64)> {
    let items = scan_items(cfg, u64::from(cfg.model.facilities()));
    memory_plan_of(cfg, 1, items)
}

/// [`memory_plan`] for `replicas` runs of `cfg` side by side, with segments of `items`.
pub fn memory_plan_of(
    cfg: &TorusConfig,
    replicas: u64,
    items: ScanItems,
) -> Vec<(&'static str, u64)> {
    let k = replicas * u64::from(cfg.model.facilities());
    let n = replicas * u64::from(cfg.model.tokens());
    let n_wg = replicas * u64::from(cfg.model.facilities()).div_ceil(items.segment());
    let original =
        cfg.run.algorithm == Algorithm::Interval && cfg.run.timestamps == Timestamps::Original;
    // one entry per binding (gpu_setup.rs): where two arrays share one, their sum
    vec![
        (
            "departure and last arrival times",
            8 * k + if original { 8 * k } else { 8 },
        ),
        ("receiver list and error steps", 8 * k),
        ("facility and token records", 32 * k + 16 * n),
        ("mailboxes and step sums", 32 * k + 32 * replicas),
        ("segment minima", 2 * 8 * n_wg),
        ("segment minima of arrivals", 2 * 16 * n_wg),
        ("segment counts and sums", 48 * n_wg),
        ("step log", replicas * LOG_BYTES),
        ("ln table", 4 * 1025),
    ]
}

/// Checks that a run fits the device: every buffer within the binding limit, the dispatch
/// within the workgroup limit. The error names the buffer, the size and the limit.
pub fn check_fits(gpu: &Gpu, cfg: &TorusConfig) -> Result<u64, SimError> {
    let items = scan_items(cfg, u64::from(cfg.model.facilities()));
    check_fits_of(gpu, cfg, 1, items)
}

/// [`check_fits`] for `replicas` runs of `cfg` side by side, with segments of `items`.
pub fn check_fits_of(
    gpu: &Gpu,
    cfg: &TorusConfig,
    replicas: u64,
    items: ScanItems,
) -> Result<u64, SimError> {
    let what = if replicas == 1 {
        format!("{}×{}", cfg.model.rows, cfg.model.cols)
    } else {
        format!(
            "{replicas} replicas of {}×{}",
            cfg.model.rows, cfg.model.cols
        )
    };
    let total = stepped::check_fits(gpu, &what, &memory_plan_of(cfg, replicas, items))?;
    let n_wg = replicas * u64::from(cfg.model.facilities()).div_ceil(items.segment());
    if n_wg > u64::from(gpu.limits.max_compute_workgroups_per_dimension) {
        return Err(SimError::Gpu(format!(
            "{} facilities need {n_wg} workgroups, above this adapter's limit of {}",
            replicas * u64::from(cfg.model.facilities()),
            gpu.limits.max_compute_workgroups_per_dimension
        )));
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(side: u32, d: f64) -> TorusConfig {
        let mut c = TorusConfig::from_toml("", "test").expect("defaults are valid");
        c.model.rows = side;
        c.model.cols = side;
        c.model.mean_service = 10.0;
        c.run.d = d;
        c
    }

    /// The longer segments only where they were measured to pay: from 2048² up, and only
    /// while a segment's departures per step fit its threads in one round.
    #[test]
    fn the_longer_segments_go_to_large_tori_with_few_departures_per_step() {
        let k = |c: &TorusConfig| u64::from(c.model.facilities());
        let small_d = cfg(2048, 0.25);
        assert_eq!(scan_items(&small_d, k(&small_d)), ScanItems::SIXTEEN);
        let half = cfg(2048, 0.5);
        assert_eq!(scan_items(&half, k(&half)), ScanItems::SIXTEEN);
        let wide = cfg(2048, 2.0);
        assert_eq!(scan_items(&wide, k(&wide)), ScanItems::EIGHT);
        let smaller = cfg(1024, 0.25);
        assert_eq!(scan_items(&smaller, k(&smaller)), ScanItems::EIGHT);
    }
}
