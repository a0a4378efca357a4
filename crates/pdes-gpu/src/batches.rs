//! The budget loop of the engines whose GPU stops by itself — a time limit and a step limit
//! in their parameters — and that read a control block back after each batch of steps
//! (PHOLD, DEVS; the stepped engines have [`crate::stepped`]'s). On a device that waits a
//! call spends its whole budget; on a page's device (deferred readbacks) a batch's control
//! block comes back a frame later and [`settle`] goes on from the batch in flight.

use pdes_core::sim::SimError;

/// What [`settle`] asks of an engine.
pub trait Batched {
    /// Its time limit's type.
    type Limit: Copy + PartialOrd;
    /// The loop's state.
    fn batches(&mut self) -> &mut BatchLoop<Self::Limit>;
    /// Steps due under `limit`, at most `left`: 0 once the run has reached the limit or
    /// its end.
    fn due(&self, limit: Self::Limit, left: u64) -> u32;
    /// Writes `limit` and the step limit for `steps` more steps, submits them, and reads
    /// the control block back ([`Batched::read`]; [`SimError::NotYet`] on a page's device
    /// once they are submitted).
    fn run(&mut self, steps: u32, limit: Self::Limit) -> Result<u32, SimError>;
    /// Reads the control block back: the steps taken since the last read.
    fn read(&mut self) -> Result<u32, SimError>;
}

/// Where [`settle`] stands between calls.
#[derive(Clone, Copy, Debug, Default)]
pub struct BatchLoop<L> {
    /// The budget still to spend: (time limit, steps left).
    goal: Option<(L, u64)>,
    /// A batch whose control block has not come back yet: (its steps, its limit).
    in_flight: Option<(u32, L)>,
}

impl<L> BatchLoop<L> {
    /// The budget of a new advance (replacing what was left of the last one).
    pub fn aim(&mut self, limit: L, steps: u64) {
        self.goal = Some((limit, steps));
    }

    /// Steps the budget still allows (0 without one).
    pub fn left(&self) -> u64 {
        self.goal.as_ref().map_or(0, |(_, left)| *left)
    }
}

/// Goes on with the budget [`BatchLoop::aim`] set: true once it is spent (or the run
/// reached its limit or end), false while a batch's control block is on its way.
pub fn settle<E: Batched + ?Sized>(engine: &mut E) -> Result<bool, SimError> {
    loop {
        if let Some((steps, batch_limit)) = engine.batches().in_flight {
            let taken = match engine.read() {
                Err(SimError::NotYet) => return Ok(false),
                r => r?,
            };
            let state = engine.batches();
            state.in_flight = None;
            let Some((limit, left)) = state.goal.as_mut() else {
                return Ok(true);
            };
            *left = left.saturating_sub(u64::from(taken));
            // it stopped short under a limit that a later advance has not raised
            if taken < steps && *limit <= batch_limit {
                return Ok(true);
            }
        }
        let Some((limit, left)) = engine.batches().goal else {
            return Ok(true);
        };
        let steps = engine.due(limit, left);
        if steps == 0 {
            return Ok(true);
        }
        let taken = match engine.run(steps, limit) {
            Err(SimError::NotYet) => {
                engine.batches().in_flight = Some((steps, limit));
                return Ok(false);
            }
            r => r?,
        };
        if let Some((_, left)) = engine.batches().goal.as_mut() {
            *left = left.saturating_sub(u64::from(taken));
        }
        if taken < steps {
            return Ok(true);
        }
    }
}
