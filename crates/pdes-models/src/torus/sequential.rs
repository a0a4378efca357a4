//! `sequential`: the classic future-event-list simulator. Exact by construction, the
//! ground truth for every other engine and the baseline every speedup is quoted against.

use super::state::{Facility, NEVER, NONE, TorusState};
use pdes_core::sim::calendar::CalendarQueue;
use pdes_core::sim::heap::Event;
use pdes_core::sim::{Budget, StepTotals, prefetch};
use pdes_core::time::Ticks;

/// The sequential simulator of a torus network.
#[derive(Clone, Debug)]
pub struct Sequential {
    /// Network state.
    pub state: TorusState,
    queue: CalendarQueue,
    end: Ticks,
    totals: StepTotals,
    /// Last bucket number whose events' tokens and destinations were prefetched (their
    /// facility records were, LOAD_FACILITIES - LOAD_NEIGHBOURS buckets further).
    loaded: u64,
}

/// Buckets ahead of the current one whose events' facility records are prefetched (about
/// one event per bucket: this many events ahead).
pub const LOAD_FACILITIES: u64 = 8;
/// Buckets ahead whose events' tokens and destination facilities are prefetched.
pub const LOAD_NEIGHBOURS: u64 = 4;
/// Buckets beyond LOAD_FACILITIES whose lines are prefetched (their keys are read then).
const LOAD_BUCKETS: u64 = 8;

impl Sequential {
    /// A simulator of `state` that processes every event earlier than `end`.
    pub fn new(state: TorusState, end: Ticks) -> Self {
        Self {
            queue: CalendarQueue::new(&Self::pending(&state)),
            state,
            end,
            totals: StepTotals::default(),
            loaded: 0,
        }
    }

    /// Processes events, one per step, until the budget or the end time is reached.
    pub fn advance(&mut self, budget: Budget) {
        self.advance_logged(budget, &mut NoLog);
    }

    /// [`Self::advance`], telling `log` every event taken from the queue and every event
    /// put into it, in order (the `sequential-parts` suite replays them; `advance` passes
    /// [`NoLog`], which compiles to nothing).
    pub fn advance_logged<L: QueueLog>(&mut self, budget: Budget, log: &mut L) {
        let (limit, mut steps_left) = budget.limits(self.end);
        let mut events = 0u64;
        while let Some(ev) = self.queue.peek() {
            if ev.time >= limit || steps_left == 0 {
                break;
            }
            steps_left -= 1;
            events += 1;
            self.queue.pop();
            log.popped(ev);
            self.prefetch_ahead();
            let f = ev.facility;
            let dep = self.state.depart(f, ev.time);
            let next = self.state.facilities[f as usize].departure;
            if next != NEVER {
                let e = Event {
                    time: next,
                    facility: f,
                };
                self.queue.push(e);
                log.pushed(e);
            }
            let started = self.state.arrive(dep.dest, dep.token, ev.time);
            if started {
                let time = self.state.facilities[dep.dest as usize].departure;
                let e = Event {
                    time,
                    facility: dep.dest,
                };
                self.queue.push(e);
                log.pushed(e);
            }
        }
        self.totals.events += events;
        self.totals.steps += events;
        if events > 0 {
            self.totals.max_events_per_step = 1;
        }
    }

    /// Software pipelining of the cache misses. An event's work is a chain of dependent
    /// loads (its facility, then its token and destination), each a miss at 10^6
    /// facilities, and one event cannot start before the last ends; but the queue knows the
    /// events due in the next buckets. So the facility records of the events
    /// [`LOAD_FACILITIES`] buckets ahead are loaded, and for those [`LOAD_NEIGHBOURS`]
    /// ahead, whose records have arrived by then, the token in service, the queue's head
    /// and the destination facility: the misses of several events overlap. Only hints:
    /// the events processed and their order do not depend on them.
    #[inline(always)]
    fn prefetch_ahead(&mut self) {
        let cur = self.queue.current_bucket();
        // both stages move together, LOAD_FACILITIES - LOAD_NEIGHBOURS buckets apart
        self.loaded = self.loaded.max(cur);
        let s = &self.state;
        while self.loaded < cur + LOAD_NEIGHBOURS {
            self.loaded += 1;
            // the bucket whose keys are read LOAD_BUCKETS rounds from now (a shorter
            // distance missed on the device host; bench/NOTES.md, "CPU baselines")
            self.queue
                .prefetch_bucket_no(self.loaded + LOAD_FACILITIES - LOAD_NEIGHBOURS + LOAD_BUCKETS);
            for k in self
                .queue
                .keys_in_bucket(self.loaded + LOAD_FACILITIES - LOAD_NEIGHBOURS)
            {
                prefetch_record(&s.facilities[k as usize]);
            }
            for k in self.queue.keys_in_bucket(self.loaded) {
                prefetch_dependents(s, k);
            }
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

    /// The events pending at the start of a run of `state`: each busy facility's
    /// departure (what the queue is built from).
    pub fn pending(state: &TorusState) -> Vec<Event> {
        state
            .facilities
            .iter()
            .enumerate()
            .filter(|(_, fac)| fac.departure != NEVER)
            .map(|(f, fac)| Event {
                time: fac.departure,
                facility: f as u32,
            })
            .collect()
    }
}

/// Receives a sequential run's queue operations in order (see
/// [`Sequential::advance_logged`]).
pub trait QueueLog {
    /// `e` was taken from the queue and is processed now.
    fn popped(&mut self, e: Event);
    /// `e` was put into the queue.
    fn pushed(&mut self, e: Event);
}

/// A [`QueueLog`] that keeps nothing.
pub struct NoLog;

impl QueueLog for NoLog {
    #[inline(always)]
    fn popped(&mut self, _: Event) {}
    #[inline(always)]
    fn pushed(&mut self, _: Event) {}
}

/// Starts loading what the departure from `k` will touch once `k`'s record has arrived:
/// the token in service, the queue's head and the destination facility.
#[inline(always)]
pub fn prefetch_dependents(s: &TorusState, k: u32) {
    let fac = &s.facilities[k as usize];
    // a facility with a pending event is serving a token (never NONE)
    prefetch(s.tokens.as_ptr().wrapping_add(fac.serving as usize));
    if fac.head != NONE {
        // (a prefetch of a wild address is harmless but costs a page walk)
        prefetch(&s.tokens[fac.head as usize]);
    }
    prefetch_record(&s.facilities[super::neighbour(s.rows, s.cols, k, fac.route) as usize]);
}

/// Starts loading both cache lines a facility record may span.
#[inline(always)]
pub fn prefetch_record(fac: &Facility) {
    let p = (fac as *const Facility).cast::<u8>();
    prefetch(p);
    prefetch(p.wrapping_add(std::mem::size_of::<Facility>() - 1));
}

crate::queueing::simulator!(Sequential, TorusState);
