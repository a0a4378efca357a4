//! Waiting for an engine whose results come back later — a GPU engine on a browser tab's
//! device, whose readbacks answer [`SimError::NotYet`] until the page has returned to the
//! browser — from straight-line async code. Each helper yields to whoever polls the future
//! (the page polls it once a frame; the desktop's `block_on` polls again at once, and there
//! nothing ever has to wait), so a check written once runs in both places.

use super::{Budget, Engine, SimError};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A future that is pending once (asking to be polled again) and then ready: gives the
/// page its frame back.
#[derive(Debug, Default)]
pub struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// Asks `ask` until it answers something other than [`SimError::NotYet`], yielding between
/// tries (a readback is retried: asking again changes nothing but the answer).
pub async fn when_back<T>(mut ask: impl FnMut() -> Result<T, SimError>) -> Result<T, SimError> {
    loop {
        match ask() {
            Err(SimError::NotYet) => YieldOnce::default().await,
            answer => return answer,
        }
    }
}

/// [`Engine::advance`] within `budget`, then [`Engine::settle`] until the budget is spent,
/// yielding while the engine waits for its device.
pub async fn advance_settled(engine: &mut dyn Engine, budget: Budget) -> Result<(), SimError> {
    engine.advance(budget)?;
    while !engine.settle()? {
        YieldOnce::default().await;
    }
    Ok(())
}

/// How long one slice of [`advance_in_slices`] aims to hold the page's one thread: a frame
/// at 60 Hz, so that the window keeps drawing while a CPU twin runs beside it.
pub const SLICE: std::time::Duration = std::time::Duration::from_millis(16);

/// [`Engine::advance`] within `budget` (the run's end time `end`), in slices of steps that
/// each take about [`SLICE`], yielding between them: a CPU engine run where the page's one
/// thread also draws the window (its start-up check ran the CPU twins in one piece and froze
/// the page for up to 6 s, issue 56 §2). The slice's step count doubles while a slice takes
/// less than half of [`SLICE`] and halves when it takes more.
///
/// The engine ends where one `advance(budget)` would have left it: every slice is a
/// [`Budget::StepsUntil`] with the budget's own time limit, and the slices stop when the
/// budget's steps are spent, when a slice did nothing, or when it took fewer steps than
/// allowed with the clock at the limit (or the run finished). The clock test matters where
/// a step is a round of many independent runs (M/M/c/k's replications: the one ahead
/// reaching the limit does not stop the others). A time budget ends with itself, which
/// then takes no step.
pub async fn advance_in_slices(
    engine: &mut dyn Engine,
    budget: Budget,
    end: super::Ticks,
) -> Result<(), SimError> {
    let (limit, mut steps_left) = budget.limits(end);
    let timed = steps_left == u64::MAX;
    let mut slice = 1u64;
    while steps_left > 0 {
        let allowed = slice.min(steps_left);
        let before = engine.totals();
        let started = web_time::Instant::now();
        engine.advance(Budget::StepsUntil(allowed, limit))?;
        let took = started.elapsed();
        let after = engine.totals();
        let ran = after.steps - before.steps;
        let idle = ran == 0 && after.events == before.events;
        let at_limit = engine.finished() || engine.now() >= limit;
        if idle || (ran < allowed && at_limit) {
            // nothing is left before the limit: the whole budget once more takes no step,
            // but sets what an engine sets at the end of a time budget (M/M/c/k's clock
            // stands at the limit, not at its replications' last events)
            if timed {
                engine.advance(budget)?;
            }
            return Ok(());
        }
        steps_left = steps_left.saturating_sub(ran);
        if took < SLICE / 2 {
            slice = slice.saturating_mul(2);
        } else if took > SLICE {
            slice = (slice / 2).max(1);
        }
        YieldOnce::default().await;
    }
    Ok(())
}
