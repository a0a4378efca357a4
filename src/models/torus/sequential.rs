//! `sequential`: the classic future-event-list simulator. Exact by construction, the
//! ground truth for every other engine and the baseline every speedup is quoted against.

use super::state::TorusState;
use crate::sim::calendar::CalendarQueue;
use crate::sim::heap::Event;
use crate::sim::{Budget, StepTotals};
use crate::time::Ticks;

/// The sequential simulator of a torus network.
#[derive(Clone, Debug)]
pub struct Sequential {
    /// Network state.
    pub state: TorusState,
    queue: CalendarQueue,
    end: Ticks,
    totals: StepTotals,
}

impl Sequential {
    /// A simulator of `state` that processes every event earlier than `end`.
    pub fn new(state: TorusState, end: Ticks) -> Self {
        let pending: Vec<Event> = state
            .facilities
            .iter()
            .enumerate()
            .filter(|(_, fac)| fac.departure != super::state::NEVER)
            .map(|(f, fac)| Event {
                time: fac.departure,
                facility: f as u32,
            })
            .collect();
        Self {
            queue: CalendarQueue::new(state.facilities.len(), &pending),
            state,
            end,
            totals: StepTotals::default(),
        }
    }

    /// Processes events, one per step, until the budget or the end time is reached.
    pub fn advance(&mut self, budget: Budget) {
        let (limit, mut steps_left) = budget.limits(self.end);
        let mut events = 0u64;
        while let Some(ev) = self.queue.peek() {
            if ev.time >= limit || steps_left == 0 {
                break;
            }
            steps_left -= 1;
            events += 1;
            self.queue.pop();
            let f = ev.facility;
            let dep = self.state.depart(f, ev.time);
            let next = self.state.facilities[f as usize].departure;
            if next != super::state::NEVER {
                self.queue.push(Event {
                    time: next,
                    facility: f,
                });
            }
            // The next event's facility is known now (unless the arrival below starts an
            // earlier one); start loading it while the arrival is processed (facilities are
            // visited in random order: a cache miss).
            if let Some(n) = self.queue.peek() {
                prefetch(&self.state.facilities[n.facility as usize]);
            }
            if self.state.arrive(dep.dest, dep.token, ev.time) {
                let time = self.state.facilities[dep.dest as usize].departure;
                self.queue.push(Event {
                    time,
                    facility: dep.dest,
                });
            }
        }
        self.totals.events += events;
        self.totals.steps += events;
        if events > 0 {
            self.totals.max_events_per_step = 1;
        }
    }

    /// Time of the next pending event (every event before it has been processed).
    pub fn now(&self) -> Ticks {
        self.queue.min_time()
    }

    /// True when every event before the end time has been processed.
    pub fn finished(&self) -> bool {
        self.now() >= self.end
    }

    /// Counters so far.
    pub fn totals(&self) -> &StepTotals {
        &self.totals
    }
}

/// Hints the CPU to bring `*p` into cache (no effect on other architectures).
#[inline(always)]
fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing observable; `p` is a valid reference.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            (p as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
