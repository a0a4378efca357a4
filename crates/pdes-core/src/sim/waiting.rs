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
