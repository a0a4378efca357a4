//! The torus's GPU engine on a device that defers its readbacks, as a browser tab's does
//! (`Gpu::deferring`): each readback is answered on a later call, the batch loop returns
//! with a batch in flight, and the page's checks yield while they wait. Run on the desktop's
//! adapter (lavapipe in CI), whose `poll(Poll)` stands in for the page's event loop.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use crate::common_cfg::{config, gpu};
use pdes_lab::gpu::{Gpu, LiveEngine};
use pdes_lab::models::torus::cpu::TorusEngine;
use pdes_lab::models::torus::gpu::GpuTorus;
use pdes_lab::sim::waiting::when_back;
use pdes_lab::sim::{Budget, Engine, SimError};
use pdes_lab::verify::CheckResult;
use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

/// Storage buffers a shader stage may bind in Chromium's WebGPU (SwiftShader's adapter
/// here; the WebGPU default is 8).
const BROWSER_STORAGE_BUFFERS: u32 = 10;

/// A device of its own with deferred readbacks and a browser's limit on storage buffers
/// (None without an adapter): a pass that binds more fails here as it would in the page.
fn page_device() -> Option<Arc<Gpu>> {
    gpu()?;
    let device = Gpu::with_limits(|l| wgpu::Limits {
        max_storage_buffers_per_shader_stage: BROWSER_STORAGE_BUFFERS,
        ..l
    });
    Some(Arc::new(device.unwrap().deferring()))
}

/// Polls `f` as a page would, once a "frame", until it is ready: (its output, the frames).
fn poll_frames<F: Future>(f: F) -> (F::Output, u32) {
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    let mut frames = 1;
    loop {
        if let Poll::Ready(out) = f.as_mut().poll(&mut cx) {
            return (out, frames);
        }
        frames += 1;
        assert!(frames < 10_000_000, "the future never finished");
    }
}

/// Every page check passed, and there were at least `at_least` of them.
fn assert_passed(results: &[CheckResult], at_least: usize) {
    assert!(results.len() >= at_least, "{} checks", results.len());
    for r in results {
        assert!(r.passed, "{}: {:?}", r.name, r.details);
    }
}

/// A model's page checks, polled as a page's frames would: at least one, every one passed,
/// and they yielded to the page between them (more frames than checks).
fn assert_pass_yielding(checks: impl std::future::Future<Output = Vec<CheckResult>>) {
    let (results, frames) = poll_frames(checks);
    assert_passed(&results, 1);
    assert!(
        frames > results.len() as u32,
        "the checks never yielded to the page"
    );
}

/// Runs `g` as the window does in a page — a little more simulated time, `step`, each frame;
/// a batch lands a frame later — until it finishes, calling `each_frame` after every frame.
/// Returns the frames whose `advance` returned short of its target with a batch on its way
/// (the deferred path taken). Counted from the engine's clock right after `advance`, not
/// from `settle`: whether the device has finished a batch by the time `settle` polls it is a
/// matter of timing (CI's two cores once finished every one), what `advance` returns is not.
fn run_in_frames<E: Engine>(g: &mut E, step: u64, mut each_frame: impl FnMut(&mut E)) -> u32 {
    let (mut target, mut deferred) = (0, 0);
    while !g.finished() {
        target += step;
        g.advance(Budget::Until(target)).unwrap();
        // a device that waits spends the budget inside `advance`: the clock is at the
        // target (or the run is over)
        if !g.finished() && g.now() < target {
            deferred += 1;
        }
        g.settle().unwrap();
        each_frame(g);
    }
    deferred
}

/// `g`'s plot sample when it is back (what a sample needs comes back with the control
/// block), compared with `waited`'s at the same step, `waited` brought there: true when a
/// sample was compared.
fn same_sample_as_waited(g: &dyn LiveEngine, waited: &mut dyn LiveEngine, what: &str) -> bool {
    match g.sample(g.now()) {
        Ok(s) => {
            let behind = g.totals().steps - waited.totals().steps;
            waited.advance(Budget::Steps(behind)).unwrap();
            let step = g.totals().steps;
            assert_eq!(
                s,
                waited.sample(waited.now()).unwrap(),
                "{what}: sample at step {step}"
            );
            true
        }
        Err(SimError::NotYet) => false,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn a_page_device_runs_the_torus_to_the_same_end_as_a_device_that_waits() {
    let Some(page) = page_device() else { return };
    let cfg = config(&[
        "model.rows=20",
        "model.cols=12",
        "model.tokens_per_facility=2",
        "run.end_time=400",
        "run.warmup=50",
    ]);
    let mut waited = GpuTorus::new(gpu().unwrap(), &cfg).unwrap();
    waited.advance(Budget::Finish).unwrap();
    let want = TorusEngine::summary(&mut waited).unwrap();

    // the window's frames: each asks for a little more simulated time; a batch is answered
    // a frame (here: a call) later
    let mut g = GpuTorus::new(page, &cfg).unwrap();
    let (mut samples, mut shown) = (0, 0);
    let deferred = run_in_frames(&mut g, pdes_lab::time::to_ticks(5.0), |g| {
        // what is only shown (the strip, a followed token) comes back while the run goes
        // on, a frame or two old; the exact state would wait for the run to stop
        if g.shown_state().is_ok() {
            shown += 1;
        }
        // a plot sample, when its sums are back, belongs to the step the time is of
        match g.sample(0) {
            Ok(s) => {
                assert!(s.utilization <= 1.0, "{s:?}");
                samples += 1;
            }
            Err(SimError::NotYet) => {}
            Err(e) => panic!("{e}"),
        }
    });
    assert!(
        deferred > 0,
        "no advance returned with a batch on its way: the deferred path was not taken"
    );
    assert!(samples > 0, "no sample ever came back");
    assert!(shown > 0, "the shown state never came back while running");
    assert_eq!(g.step_log(), waited.step_log(), "step log");
    // (whether the summary waits a frame depends on timing: the shown state's copy of the
    // same ranges, taken after the last batch, may already be back, and is exact; PHOLD's
    // test, which reads no shown state, checks that a report waits)
    let (got, _) = poll_frames(when_back(|| TorusEngine::summary(&mut g)));
    assert_eq!(got.unwrap(), want);
}

#[test]
fn the_page_checks_pass_on_a_page_device_and_wait_for_it() {
    let Some(page) = page_device() else { return };
    assert_pass_yielding(pdes_lab::models::twins::twin_page_checks::<
        pdes_lab::models::torus::verify::TorusTwins,
    >(page));
}

#[test]
fn a_page_device_runs_phold_to_the_same_end_as_a_device_that_waits() {
    use pdes_lab::models::phold::gpu::GpuPhold;
    let Some(page) = page_device() else { return };
    let cfg = pdes_lab::preset::config_with(
        "teaching-phold",
        &["model.lps=3000", "model.population=2", "run.end_time=20"],
    )
    .unwrap()
    .get::<pdes_lab::models::phold::config::PholdConfig>()
    .cloned()
    .unwrap();
    let mut waited = GpuPhold::new(gpu().unwrap(), &cfg).unwrap();
    waited.advance(Budget::Finish).unwrap();
    let want = waited.report().unwrap();

    let mut g = GpuPhold::new(page, &cfg).unwrap();
    let deferred = run_in_frames(&mut g, pdes_lab::time::to_ticks(0.5), |_| {});
    assert!(
        deferred > 0,
        "no advance returned with a batch on its way: the deferred path was not taken"
    );
    assert_eq!(g.step_log(), waited.step_log(), "step log");
    let (got, frames) = poll_frames(when_back(|| g.report()));
    assert!(frames > 1, "the report's readback did not wait a frame");
    assert_eq!(got.unwrap(), want);
    assert_eq!(
        poll_frames(when_back(|| g.download_state())).0.unwrap(),
        waited.download_state().unwrap()
    );
}

#[test]
fn phold_page_checks_pass_on_a_page_device() {
    let Some(page) = page_device() else { return };
    assert_pass_yielding(pdes_lab::models::twins::twin_page_checks::<
        pdes_lab::models::phold::verify::PholdTwins,
    >(page));
}

#[test]
fn a_page_device_runs_sir_to_the_same_end_with_its_samples() {
    use pdes_lab::models::devs::gpu::GpuDevs;
    let Some(page) = page_device() else { return };
    let cfg = pdes_lab::preset::config_with(
        "teaching-sir",
        &["model.rows=30", "model.cols=41", "run.end_time=80"],
    )
    .unwrap()
    .get::<pdes_lab::models::devs::config::DevsConfig>()
    .cloned()
    .unwrap();
    let mut waited = GpuDevs::new(gpu().unwrap(), &cfg).unwrap();
    let mut g = GpuDevs::new(page, &cfg).unwrap();
    let mut samples = 0;
    // SIR's compartments come back with the control block
    let deferred = run_in_frames(&mut g, pdes_lab::time::to_ticks(3.0), |g| {
        samples += u32::from(same_sample_as_waited(g, &mut waited, "SIR"));
    });
    assert!(
        deferred > 0,
        "no advance returned with a batch on its way: the deferred path was not taken"
    );
    assert!(samples > 0, "no sample ever came back");
    waited.advance(Budget::Finish).unwrap();
    assert_eq!(g.step_log(), waited.step_log(), "step log");
    let (got, _) = poll_frames(when_back(|| g.report()));
    assert_eq!(got.unwrap(), waited.report().unwrap());
}

#[test]
fn devs_page_checks_pass_on_a_page_device() {
    let Some(page) = page_device() else { return };
    let (results, _) = poll_frames(pdes_lab::models::twins::twin_page_checks::<
        pdes_lab::models::devs::verify::DevsTwins,
    >(page));
    assert_passed(&results, 2); // both rules' quick cases
}

#[test]
fn a_page_device_runs_diffusion_to_the_same_end_with_its_samples() {
    use pdes_lab::models::diffusion::gpu::GpuDiffusion;
    let Some(page) = page_device() else { return };
    for algorithm in ["timestepped", "hybrid"] {
        let cfg = crate::common_cfg::diffusion_config(&[
            "model.rows=45",
            "model.cols=70",
            "run.end_time=3",
            &format!("run.algorithm=\"{algorithm}\""),
        ]);
        let mut waited = GpuDiffusion::new(gpu().unwrap(), &cfg).unwrap();
        let mut g = GpuDiffusion::new(page.clone(), &cfg).unwrap();
        let mut samples = 0;
        // the grid's statistics come back with the time
        let deferred = run_in_frames(&mut g, pdes_lab::time::to_ticks(0.05), |g| {
            samples += u32::from(same_sample_as_waited(g, &mut waited, algorithm));
        });
        assert!(deferred > 0, "{algorithm}: the deferred path was not taken");
        assert!(samples > 0, "{algorithm}: no sample ever came back");
        waited.advance(Budget::Finish).unwrap();
        assert_eq!(g.step_log(), waited.step_log(), "{algorithm}: step log");
        let (got, _) = poll_frames(when_back(|| g.report()));
        assert_eq!(got.unwrap(), waited.report().unwrap(), "{algorithm}");
    }
}

#[test]
fn diffusion_page_checks_pass_on_a_page_device() {
    let Some(page) = page_device() else { return };
    let (results, _) = poll_frames(pdes_lab::models::twins::twin_page_checks::<
        pdes_lab::models::diffusion::verify::DiffusionTwins,
    >(page));
    assert_passed(&results, 1);
}

#[test]
fn a_page_device_runs_the_replications_to_the_same_end_with_their_samples() {
    use pdes_lab::models::mmck::gpu::GpuMmck;
    let Some(page) = page_device() else { return };
    let cfg = pdes_lab::preset::config_with(
        "cheng2014-mmck",
        &["run.replications=300", "run.customers=2000"],
    )
    .unwrap()
    .get::<pdes_lab::models::mmck::config::MmckConfig>()
    .cloned()
    .unwrap();
    let mut waited = GpuMmck::new(gpu().unwrap(), &cfg).unwrap();
    let mut g = GpuMmck::new(page, &cfg).unwrap();
    let step = pdes_lab::time::to_ticks(cfg.expected_length() / 40.0);
    let (mut target, mut samples) = (0, 0);
    let deferred = run_in_frames(&mut g, step, |g| {
        target += step;
        // the records come back with the status: a settled sample is the one a device that
        // waits gives at the same horizon
        if g.settle().unwrap() {
            match g.sample(g.now()) {
                Ok(s) => {
                    waited.advance(Budget::Until(target)).unwrap();
                    assert_eq!(s, waited.sample(waited.now()).unwrap(), "at {target}");
                    samples += 1;
                }
                Err(SimError::NotYet) => {}
                Err(e) => panic!("{e}"),
            }
        }
    });
    assert!(deferred > 0, "the deferred path was not taken");
    assert!(samples > 0, "no sample ever came back");
    waited.advance(Budget::Finish).unwrap();
    let (got, _) = poll_frames(when_back(|| g.report()));
    assert_eq!(got.unwrap(), waited.report().unwrap());
}

#[test]
fn mmck_page_checks_pass_on_a_page_device() {
    let Some(page) = page_device() else { return };
    let (results, _) = poll_frames(pdes_lab::models::mmck::verify::page_checks(page));
    assert_passed(&results, 1);
}

/// Paper 002's open network (tandem lines, tokens created and destroyed) on a page's
/// device: the same samples and end as on a device that waits, its token pool grown.
#[test]
fn a_page_device_runs_the_open_network_to_the_same_end_growing_its_pool() {
    use pdes_lab::gpu::shaders::Reductions;
    use pdes_lab::models::network::gpu::GpuNetwork;
    use pdes_lab::models::network::verify::VERIFY_POOL;
    let Some(page) = page_device() else { return };
    let cfg = crate::common_cfg::network_config(
        "teaching-open",
        &["run.end_time=60", "run.algorithm=\"interval\""],
    );
    let r = Reductions::Portable;
    let mut waited = GpuNetwork::with_options(gpu().unwrap(), &cfg, r, VERIFY_POOL).unwrap();
    let mut g = GpuNetwork::with_options(page, &cfg, r, VERIFY_POOL).unwrap();
    let mut samples = 0;
    let deferred = run_in_frames(&mut g, pdes_lab::time::to_ticks(1.0), |g| {
        samples += u32::from(same_sample_as_waited(g, &mut waited, "open network"));
    });
    assert!(deferred > 0, "the deferred path was not taken");
    assert!(samples > 0, "no sample ever came back");
    assert!(
        g.pool_growths > 0,
        "the pool never grew from {VERIFY_POOL} slots"
    );
    waited.advance(Budget::Finish).unwrap();
    assert_eq!(g.step_log(), waited.step_log(), "step log");
    let (got, _) = poll_frames(when_back(|| g.report()));
    assert_eq!(got.unwrap(), waited.report().unwrap());
}

#[test]
fn network_page_checks_pass_on_a_page_device() {
    let Some(page) = page_device() else { return };
    let (results, _) = poll_frames(pdes_lab::models::twins::twin_page_checks::<
        pdes_lab::models::network::verify::NetworkTwins,
    >(page));
    assert_passed(&results, 1);
}
