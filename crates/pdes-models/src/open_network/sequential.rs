//! `sequential` for the open network: the future-event list over every facility's
//! departure plus the external arrival stream (the "source", ordered after every facility
//! at equal times). Exact by construction: the ground truth the parallel engines will be
//! checked against.

use super::state::{NEVER, Next, OpenState};
use pdes_core::sim::heap::{Event, EventHeap};
use pdes_core::sim::{Budget, StepTotals};
use pdes_core::time::Ticks;

/// The sequential simulator of an open network.
#[derive(Clone, Debug)]
pub struct Sequential {
    /// Network state.
    pub state: OpenState,
    heap: EventHeap,
    end: Ticks,
    totals: StepTotals,
}

impl Sequential {
    /// A simulator of `state` that processes every event earlier than `end`.
    pub fn new(state: OpenState, end: Ticks) -> Self {
        let mut heap = EventHeap::with_capacity(state.facilities.len() + 1);
        heap.push(Event {
            time: state.next_arrival,
            facility: state.facilities.len() as u32,
        });
        Self {
            state,
            heap,
            end,
            totals: StepTotals::default(),
        }
    }

    /// The source's index in the event list (after every facility).
    fn source(&self) -> u32 {
        self.state.facilities.len() as u32
    }

    /// Lower bound on every pending event time.
    pub fn now(&self) -> Ticks {
        self.heap.peek().map_or(self.end, |e| e.time.min(self.end))
    }

    /// Processes events, one per step, until the budget or the end time is reached.
    pub fn advance(&mut self, budget: Budget) {
        let (limit, mut steps_left) = budget.limits(self.end);
        while let Some(ev) = self.heap.peek() {
            if ev.time >= limit || steps_left == 0 {
                break;
            }
            steps_left -= 1;
            self.totals.record(1, 0);
            if ev.facility == self.source() {
                let (f, started) = self.state.external_arrival();
                self.heap.replace_top(Event {
                    time: self.state.next_arrival,
                    facility: ev.facility,
                });
                if started {
                    self.push(f);
                }
                continue;
            }
            let f = ev.facility;
            let next = self.state.depart(f, ev.time);
            let dep = self.state.facilities[f as usize].departure;
            if dep == NEVER {
                self.heap.pop();
            } else {
                self.heap.replace_top(Event {
                    time: dep,
                    facility: f,
                });
            }
            if let Next::Arrive { dest, token } = next
                && self.state.arrive(dest, token, ev.time)
            {
                self.push(dest);
            }
        }
    }

    fn push(&mut self, f: u32) {
        self.heap.push(Event {
            time: self.state.facilities[f as usize].departure,
            facility: f,
        });
    }
}

crate::queueing::simulator!(Sequential, OpenState);
