//! The page runs a CPU engine in slices that yield to the browser between them
//! (`sim::waiting::advance_in_slices`, issue 56 §2): the slices must end where one call
//! would have, for every model, and they must actually yield.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a test's helpers may panic: that is the test failing

use pdes_lab::models::MODELS;
use pdes_lab::models::verify::compare_reports;
use pdes_lab::preset::config_with;
use pdes_lab::sim::Budget;
use pdes_lab::sim::waiting::advance_in_slices;
use std::task::{Context, Poll, Waker};

/// Polls `work` to its end, counting the times it yielded.
fn run_counting_yields<T>(work: impl std::future::Future<Output = T>) -> (T, usize) {
    let mut work = std::pin::pin!(work);
    let mut cx = Context::from_waker(Waker::noop());
    let mut yields = 0;
    loop {
        match work.as_mut().poll(&mut cx) {
            Poll::Ready(out) => return (out, yields),
            Poll::Pending => yields += 1,
        }
    }
}

#[test]
fn slices_end_where_one_advance_would_and_yield_between() {
    for m in MODELS {
        let (preset, _) = m.presets[0];
        let cfg = config_with(preset, &[]).unwrap();
        let end = cfg.end_ticks();
        let mut whole = (m.build)(&cfg, None).unwrap();
        let mut sliced = (m.build)(&cfg, None).unwrap();
        // each kind of budget, short of the end (some presets run for minutes)
        for budget in [Budget::Steps(3), Budget::Steps(40), Budget::Until(end / 50)] {
            whole.advance(budget).unwrap();
            let (done, yields) =
                run_counting_yields(advance_in_slices(sliced.as_mut(), budget, end));
            done.unwrap();
            assert_eq!(whole.now(), sliced.now(), "{preset} after {budget:?}");
            assert_eq!(whole.totals(), sliced.totals(), "{preset} after {budget:?}");
            assert_eq!(
                whole.step_log(),
                sliced.step_log(),
                "{preset} after {budget:?}"
            );
            if budget == Budget::Steps(40) {
                // 40 steps in slices of 1, 2, 4, … (or fewer when slow): several yields
                assert!(yields >= 3, "{preset}: {yields} yields for 40 steps");
            }
        }
        // every statistic (the timings aside)
        let differ = compare_reports(&whole.report().unwrap(), &sliced.report().unwrap());
        assert!(differ.is_empty(), "{preset}: {differ:?}");
    }
}
