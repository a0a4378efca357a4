//! The one verify harness (issue 58 §4): a model declares its GPU engine's cases and how to
//! build the engine and its CPU twin for one and compare what the run leaves; the harness
//! runs each case with each reduction variant — under the shared budgets, step logs, clock
//! and report compared after each ([`crate::verify::compare_engines_async`]) — then the
//! model's state comparison, on the desktop (`pdes-lab verify`, the window's check) and in a
//! page (as a future that yields while the page's device has not answered), and reports.
//! A model's `verify.rs` is then its table of cases and its [`Twins`] impl.

use crate::config::ModelInfo;
use crate::verify::{Case, CheckResult, Options, check_cases, compare_engines_async, page_cases};
use pdes_core::sim::Engine;
use pdes_core::time::Ticks;
use pdes_gpu::Gpu;
use pdes_gpu::shaders::Reductions;
use std::future::Future;
use std::sync::Arc;

/// A model's GPU engine and its CPU twin, as the harness runs them.
pub trait Twins: 'static {
    /// The model's configuration type.
    type Config: Clone + 'static;
    /// The CPU twin.
    type Cpu: Engine;
    /// The GPU engine.
    type Gpu: Engine;
    /// What the model's check lines start with ("phold").
    const KIND: &'static str;
    /// The cases ([`Case::quick`] ones also run at the window's start and in a page).
    const CASES: &'static [Case];

    /// The models whose built-in presets the cases start from.
    const MODELS: &'static [&'static ModelInfo];

    /// The pairs of engines a case's configuration is checked with, each with what its
    /// differences are prefixed with ("" for one pair; the torus checks both lengths of its
    /// scan's segments).
    #[allow(clippy::type_complexity)] // a list of (label, twin, engine)
    fn pairs(
        gpu: &Arc<Gpu>,
        cfg: &Self::Config,
        r: Reductions,
    ) -> Result<Vec<(String, Self::Cpu, Self::Gpu)>, String>;

    /// The run's end time in ticks.
    fn end(cfg: &Self::Config) -> Ticks;

    /// What the two engines hold at the end that the reports do not show (every facility,
    /// cell, pending event), as differences; a GPU engine's readbacks are asked for with
    /// `pdes_core::sim::waiting::when_back`, so that a page can wait for them.
    fn compare_states(
        cfg: &Self::Config,
        cpu: &Self::Cpu,
        gpu: &mut Self::Gpu,
    ) -> impl Future<Output = Result<Vec<String>, String>>;

    /// The model's further comparisons of a case (the torus's display pass mid-run), as
    /// differences; none by default.
    fn more(
        gpu: &Arc<Gpu>,
        cfg: &Self::Config,
        r: Reductions,
    ) -> impl Future<Output = Result<Vec<String>, String>> {
        let _ = (gpu, cfg, r);
        std::future::ready(Ok(Vec::new()))
    }
}

/// One case's configuration on every pair of `T`'s engines: the differences, prefixed with
/// the pair's label; a GPU run that did not reach the end is a difference too.
pub async fn check_twins<T: Twins>(
    gpu: &Arc<Gpu>,
    cfg: &T::Config,
    r: Reductions,
    options: Options,
) -> Result<Vec<String>, String> {
    let mut all = Vec::new();
    for (label, mut cpu, mut g) in T::pairs(gpu, cfg, r)? {
        let mut diffs = compare_engines_async(&mut cpu, &mut g, T::end(cfg), options).await?;
        if diffs.is_empty() {
            diffs.extend(T::compare_states(cfg, &cpu, &mut g).await?);
        }
        if !g.finished() {
            diffs.push("the GPU run did not finish".into());
        }
        all.extend(diffs.into_iter().map(|d| format!("{label}{d}")));
    }
    all.extend(T::more(gpu, cfg, r).await?);
    Ok(all)
}

/// Every case of `T` with reductions `r`, on the desktop (a model's `verify`).
pub fn twin_checks<T: Twins>(
    gpu: &Arc<Gpu>,
    r: Reductions,
    options: Options,
    record: &mut dyn FnMut(CheckResult),
) {
    check_cases(
        T::KIND,
        T::MODELS,
        T::CASES,
        r,
        options,
        record,
        |cfg: &T::Config| pollster::block_on(check_twins::<T>(gpu, cfg, r, options)),
    );
}

/// The quick cases of `T` with each reduction variant of `gpu`, as a page runs them at
/// start (a model's `page_checks`).
pub async fn twin_page_checks<T: Twins>(gpu: Arc<Gpu>) -> Vec<CheckResult> {
    page_cases(
        gpu,
        T::KIND,
        T::MODELS,
        T::CASES,
        |gpu, cfg: T::Config, r, options| async move {
            check_twins::<T>(&gpu, &cfg, r, options).await
        },
    )
    .await
}
