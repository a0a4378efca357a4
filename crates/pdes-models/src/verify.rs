//! `pdes-lab verify`: proves, on this machine's own adapter, that every GPU engine gives
//! its CPU twin's results. For each reduction variant the adapter supports it runs the
//! reductions' self-check and each model's small configurations (sizes that are not
//! multiples of the workgroup or segment sizes, several tokens per facility, several seeds)
//! on the CPU and on the GPU, and compares every output that must be identical: the
//! summary's fields, the per-step log and the final state (every facility and token, every
//! cell). This module is the machinery (options, results, comparisons); each model's cases
//! and checks are in its folder (`crates/pdes-models/src/<model>/verify.rs`), reached through the
//! registry.
//!
//! Nothing is compared "to a tolerance": the torus's statistics are ratios of exact integer
//! sums, and the diffusion engines perform the same correctly rounded f32 operations in the
//! same order on both sides (products kept out of fused multiply-adds, subnormals flushed;
//! see `crates/pdes-models/src/diffusion/shaders/diffusion.wgsl`), so equal inputs give equal bits. A
//! difference is a bug.

use crate::config::Config;
use crate::config::ModelInfo;
use pdes_core::sim::waiting::{advance_in_slices, advance_settled, when_back};
use pdes_core::sim::{Budget, Report, SimError, StepRecord};
use pdes_gpu::Gpu;
use pdes_gpu::shaders::Reductions;
use serde::Serialize;
use web_time::Instant;

/// Summary fields that legitimately differ between engines (besides the work rate, which
/// each report names itself).
// where it ran and how: the CPU's thread count and the GPU's (one per unit) differ by design
const NOT_COMPARED: [&str; 3] = ["engine", "threads", "wall_seconds"];

pub use crate::config::{CheckResult, Options};

/// The outcome of a whole verification.
#[derive(Clone, Debug, Serialize)]
pub struct Verification {
    /// The adapter checked ("name (backend, driver)").
    pub adapter: String,
    /// The reduction variants checked.
    pub reductions: Vec<String>,
    /// Every check, in the order run.
    pub checks: Vec<CheckResult>,
    /// Checks that passed.
    pub passed: usize,
    /// Checks that failed.
    pub failed: usize,
}

impl Verification {
    /// True when every check passed.
    pub fn ok(&self) -> bool {
        self.failed == 0
    }

    /// The first failure's first line, for a status line.
    pub fn first_failure(&self) -> Option<String> {
        self.checks.iter().find(|c| !c.passed).map(|c| {
            format!(
                "{}: {}",
                c.name,
                c.details.first().map_or("failed", String::as_str)
            )
        })
    }
}

/// The reduction variants `gpu` supports, best first.
pub fn variants(gpu: &Gpu) -> Vec<Reductions> {
    let mut v = Vec::new();
    if gpu.device.features().contains(wgpu::Features::SUBGROUP) {
        v.push(Reductions::Subgroup);
    }
    v.push(Reductions::Portable);
    v
}

/// One configuration a model's checks run on both sides.
pub struct Case {
    /// What the check line shows.
    pub label: &'static str,
    /// The built-in preset it starts from.
    pub preset: &'static str,
    /// `--set` overrides on top of the preset.
    pub sets: &'static [&'static str],
    /// Also part of `--quick`.
    pub quick: bool,
}

/// One check of `case`'s configuration as its model's own type `C`, named and timed: the
/// case's preset is resolved among `models`' own, and `check` gets the typed configuration.
pub fn check_case<C: 'static>(
    name: String,
    models: &[&'static ModelInfo],
    case: &Case,
    check: impl FnOnce(&C) -> Result<Vec<String>, String>,
) -> CheckResult {
    timed(name, || match config_of(models, case)?.get::<C>() {
        Some(cfg) => check(cfg),
        None => Err(format!(
            "{}: not a configuration of this check's model",
            case.preset
        )),
    })
}

/// Runs a model's `cases` (all, or the quick ones) with reduction variant `r`: each case's
/// configuration must be a `C`, which `check` compares on both sides. Check lines are named
/// "<kind> <label> (<variant>)".
pub fn check_cases<C: 'static>(
    kind: &str,
    models: &[&'static ModelInfo],
    cases: &[Case],
    r: Reductions,
    options: Options,
    record: &mut dyn FnMut(CheckResult),
    check: impl Fn(&C) -> Result<Vec<String>, String>,
) {
    for case in cases.iter().filter(|c| c.quick || !options.quick) {
        record(check_case(
            format!("{kind} {} ({})", case.label, reductions_name(r)),
            models,
            case,
            &check,
        ));
    }
}

/// Runs a CPU twin and a GPU engine of the same configuration under the same budgets
/// ([`budgets`] of `end`) and compares, after each, the step logs and the time reached; then
/// their reports. Returns the differences (empty: identical). `options.perturb_gpu` adds one
/// to the GPU's work first (the test hook).
pub fn compare_engines(
    cpu: &mut dyn pdes_core::sim::Engine,
    gpu: &mut dyn pdes_core::sim::Engine,
    end: u64,
    options: Options,
) -> Result<Vec<String>, String> {
    pollster::block_on(compare_engines_async(cpu, gpu, end, options))
}

/// [`compare_engines`] as a future that yields while the GPU engine waits for its device (a
/// browser tab's: see [`pdes_core::sim::waiting`]); on a device that waits it never yields.
pub async fn compare_engines_async(
    cpu: &mut dyn pdes_core::sim::Engine,
    gpu: &mut dyn pdes_core::sim::Engine,
    end: u64,
    options: Options,
) -> Result<Vec<String>, String> {
    let mut diffs = Vec::new();
    for b in budgets(end) {
        // in slices: in a page the CPU twin shares the one thread with the window's frames
        advance_in_slices(cpu, b, end).await.map_err(gpu_err)?;
        advance_settled(gpu, b).await.map_err(gpu_err)?;
        diffs.extend(compare_step_logs(cpu.step_log(), gpu.step_log()));
        if cpu.now() != gpu.now() {
            diffs.push(format!(
                "now after {b:?}: CPU {} ticks, GPU {}",
                cpu.now(),
                gpu.now()
            ));
        }
        if !diffs.is_empty() {
            return Ok(diffs);
        }
    }
    let mut gpu_report = when_back(|| gpu.report()).await.map_err(gpu_err)?;
    if options.perturb_gpu {
        gpu_report.perturb_work();
    }
    diffs.extend(compare_reports(
        &cpu.report().map_err(gpu_err)?,
        &gpu_report,
    ));
    Ok(diffs)
}

/// The page's version of [`check_cases`] (a browser tab's start-up check): `cases`' quick
/// ones with every reduction variant of `gpu`, each compared by `check` — the model's own
/// comparison written as a future that yields while the page's device has not answered.
/// Check lines are named as [`check_cases`] names them.
pub async fn page_cases<C, F>(
    gpu: std::sync::Arc<Gpu>,
    kind: &str,
    models: &[&'static ModelInfo],
    cases: &[Case],
    check: impl Fn(std::sync::Arc<Gpu>, C, Reductions, Options) -> F,
) -> Vec<CheckResult>
where
    C: Clone + 'static,
    F: std::future::Future<Output = Result<Vec<String>, String>>,
{
    let options = Options {
        quick: true,
        perturb_gpu: false,
    };
    let mut results = Vec::new();
    for r in variants(&gpu) {
        for case in cases.iter().filter(|c| c.quick) {
            let name = format!("{kind} {} ({})", case.label, reductions_name(r));
            let cfg = config_of(models, case).and_then(|c| {
                c.get::<C>().cloned().ok_or_else(|| {
                    format!("{}: not a configuration of this check's model", case.preset)
                })
            });
            let found = match cfg {
                Ok(cfg) => check(gpu.clone(), cfg, r, options).await,
                Err(e) => Err(e),
            };
            results.push(timed_async(name, async { found }).await);
        }
    }
    results
}

/// The validated configuration of a case: its preset, one of `models`' built-in ones, with
/// its `--set` assignments (each a key of that model).
pub fn config_of(models: &[&'static ModelInfo], case: &Case) -> Result<Config, String> {
    let Some((info, text)) = models.iter().find_map(|m| {
        m.presets
            .iter()
            .find(|(name, _)| *name == case.preset)
            .map(|(_, text)| (*m, *text))
    }) else {
        return Err(format!(
            "{}: not a built-in preset of this model",
            case.preset
        ));
    };
    let mut table = crate::reading::parse_table(text, case.preset).map_err(|e| e.to_string())?;
    table.remove("sweep");
    for s in case.sets {
        let (key, value) = s.split_once('=').unwrap_or((s, ""));
        let (section, name) = key.split_once('.').unwrap_or(("", key));
        if !info.has_key(key) {
            return Err(format!(
                "{key}: not a key of model.kind = \"{}\"",
                info.kind
            ));
        }
        crate::reading::set_in_table(&mut table, section, name, value)
            .map_err(|e| e.to_string())?;
    }
    (info.parse)(&table).map_err(|e| e.to_string())
}

/// "subgroup" or "portable".
pub fn reductions_name(r: Reductions) -> &'static str {
    match r {
        Reductions::Subgroup => "subgroup",
        Reductions::Portable => "portable",
    }
}

/// Runs one check, timing it; an error becomes a failed check with the error as detail.
pub fn timed(name: String, f: impl FnOnce() -> Result<Vec<String>, String>) -> CheckResult {
    let started = Instant::now();
    outcome(name, started, f())
}

/// [`timed`] for a check written as a future (one a browser tab can run: see
/// [`compare_engines_async`]).
pub async fn timed_async(
    name: String,
    check: impl std::future::Future<Output = Result<Vec<String>, String>>,
) -> CheckResult {
    let started = Instant::now();
    outcome(name, started, check.await)
}

/// A check's result from its differences or its error.
fn outcome(name: String, started: Instant, found: Result<Vec<String>, String>) -> CheckResult {
    let (passed, details) = match found {
        Ok(diffs) => (diffs.is_empty(), diffs),
        Err(e) => (false, vec![format!("error: {e}")]),
    };
    CheckResult {
        name,
        passed,
        details,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// An engine error as a check detail.
pub fn gpu_err(e: SimError) -> String {
    e.to_string()
}

/// Budgets both sides go through: a few single steps (the GPU's hold/resume path), a
/// simulated-time limit mid-run, then the end.
pub fn budgets(end: u64) -> [Budget; 3] {
    [Budget::Steps(3), Budget::Until(end / 3), Budget::Finish]
}

/// A window run against the sequential run of the same configuration: the differences in
/// the statistics of the sample path only (`fields`), since the steps and the per-step
/// figures differ by design. `options.perturb_gpu` adds one to the window run's work first.
pub fn compare_sample_path(
    sequential: &Report,
    mut window: Report,
    fields: &[&str],
    options: Options,
) -> Vec<String> {
    if options.perturb_gpu {
        window.perturb_work();
    }
    compare_reports(sequential, &window)
        .into_iter()
        .filter(|d| fields.iter().any(|k| d.starts_with(&format!("{k}:"))))
        .collect()
}

/// One line per summary field whose value differs ("field: CPU x, GPU y"), the engines'
/// names and timings aside.
pub fn compare_reports(cpu: &Report, gpu: &Report) -> Vec<String> {
    let (c, g) = (&cpu.fields, &gpu.fields);
    let mut diffs = Vec::new();
    for ((key, cv), (_, gv)) in c.iter().zip(g) {
        if !NOT_COMPARED.contains(&key.as_str()) && key != cpu.rate_field() && cv != gv {
            diffs.push(format!("{key}: CPU {cv}, GPU {gv}"));
        }
    }
    if c.len() != g.len() {
        diffs.push(format!(
            "summary: CPU has {} fields, GPU {}",
            c.len(),
            g.len()
        ));
    }
    diffs
}

/// The first step whose record differs, and a length difference.
pub fn compare_step_logs(cpu: &[StepRecord], gpu: &[StepRecord]) -> Vec<String> {
    let mut diffs = Vec::new();
    if let Some(i) = (0..cpu.len().min(gpu.len())).find(|&i| cpu[i] != gpu[i]) {
        diffs.push(format!(
            "step log: step {i}: CPU {:?}, GPU {:?}",
            cpu[i], gpu[i]
        ));
    }
    if cpu.len() != gpu.len() {
        diffs.push(format!(
            "step log: CPU {} steps, GPU {}",
            cpu.len(),
            gpu.len()
        ));
    }
    diffs
}
