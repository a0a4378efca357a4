//! A broadcast pool for rounds of a few µs: every worker spins on one word between rounds,
//! claims the round's tasks from it, and sleeps only after a quiet spell.
//!
//! The word (`claim`) holds the round's number, its task count and the next task to claim,
//! so that a claim (a fetch-add) says which round's task it took, if any: a task claimed
//! proves its round unfinished, so the job it reads is still alive on the caller's stack.
//!
//! A second lane ([`BackgroundLane`], `super::background`) holds batches of background tasks:
//! a worker takes one of them only where the current round has no task left to claim, and
//! looks for a round again after each, so background work fills the threads a short round
//! leaves idle (a fit's searches of larger k beside the chain of rounds that decides its
//! length, `super::lanes`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};

/// A round's work as the workers see it: a task function on the caller's stack.
type Job = dyn Fn(usize) + Sync;

pub use super::background::{BackgroundJob, Lane as BackgroundLane};

/// The most tasks a round can have; more run in several rounds. The claim word's 16 bits of
/// the next task hold this plus one claim past the end by each of up to [`MOST_THREADS`].
pub const MOST_TASKS: usize = 1 << 15;
/// The most threads a pool runs on.
pub const MOST_THREADS: usize = 1 << 10;

/// What the caller and the workers share.
struct Shared {
    /// round (32 bits) | tasks (16) | next task to claim (16).
    claim: AtomicU64,
    /// The round's job: `*const &Job` on the caller's stack.
    job: AtomicPtr<&'static Job>,
    /// Tasks of the round finished.
    done: AtomicUsize,
    /// A task of the round panicked.
    panicked: AtomicBool,
    /// Workers parked (or about to).
    sleepers: AtomicUsize,
    /// The pool is being dropped.
    exit: AtomicBool,
    /// How long a worker spins for a round before it parks.
    spin: std::time::Duration,
    /// The background lane's batches.
    bg: super::background::Slots,
}

/// A pool of `threads − 1` workers; the caller of [`SpinPool::run`] is the last thread.
pub struct SpinPool {
    shared: Arc<Shared>,
    workers: Vec<std::thread::JoinHandle<()>>,
    /// Rounds run so far (the claim word's round number).
    round: std::sync::Mutex<u32>,
}

/// A claim word's (round, tasks, next task to claim).
fn parts(w: u64) -> (u32, usize, usize) {
    (
        (w >> 32) as u32,
        ((w >> 16) & 0xffff) as usize,
        (w & 0xffff) as usize,
    )
}

impl Shared {
    /// Claims and runs tasks of round `round` while any remain. A claim is one fetch-add
    /// on the claim word — never retried, so 16 threads claiming at once do not bounce the
    /// word's line through failed compare-and-swaps — and its old value names the round it
    /// claimed in: a task of a later round, where the caller has moved on, is run as well
    /// (it is unfinished, so that round's job is alive), an index past the round's count
    /// claims nothing.
    fn work(&self, round: u32) {
        loop {
            // look before claiming: past the last task a claim only moves the word
            let (r, tasks, next) = parts(self.claim.load(Ordering::Acquire));
            if r != round || next >= tasks {
                return;
            }
            let (r, tasks, next) = parts(self.claim.fetch_add(1, Ordering::Acquire));
            if next >= tasks {
                return;
            }
            let job = self.job.load(Ordering::Acquire);
            // SAFETY: set by `run` before the claim word of round r, and valid until every
            // task of round r is done — task `next` is ours and not yet
            let f: &Job = unsafe { *job };
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(next))).is_err() {
                self.panicked.store(true, Ordering::Relaxed);
            }
            self.done.fetch_add(1, Ordering::Release);
            if r != round {
                return;
            }
        }
    }

    /// A worker's life: spin for the next round or a background task (parking after
    /// [`Shared::spin`] without either), take the round's tasks or one background task,
    /// again; until the pool is dropped.
    fn worker(&self) {
        // round 0 is the pool's start (no tasks): a worker that starts late still takes
        // part in the first round
        let mut seen = 0u32;
        loop {
            let mut spins = 0u64;
            let mut since = std::time::Instant::now();
            let round = loop {
                let r = (self.claim.load(Ordering::Acquire) >> 32) as u32;
                if r != seen {
                    break r;
                }
                // a round first: its caller waits for it; background work fills the rest
                if self.bg.work() {
                    spins = 0;
                    since = std::time::Instant::now();
                    continue;
                }
                if self.exit.load(Ordering::Relaxed) {
                    return;
                }
                spins += 1;
                // the clock read once every 1,024 spins
                if spins.is_multiple_of(1024) && since.elapsed() >= self.spin {
                    self.sleepers.fetch_add(1, Ordering::SeqCst);
                    if (self.claim.load(Ordering::SeqCst) >> 32) as u32 == seen
                        && !self.bg.waiting()
                        && !self.exit.load(Ordering::SeqCst)
                    {
                        std::thread::park();
                    }
                    self.sleepers.fetch_sub(1, Ordering::SeqCst);
                    since = std::time::Instant::now();
                } else {
                    std::hint::spin_loop();
                }
            };
            seen = round;
            self.work(round);
        }
    }

    /// Wakes every parked worker (after a round's or a batch's claim word is stored).
    fn wake(&self, workers: &[std::thread::JoinHandle<()>]) {
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            for w in workers {
                w.thread().unpark();
            }
        }
    }
}

impl SpinPool {
    /// A pool for `threads` threads (the caller one of them) whose workers spin for `spin`
    /// after each round before they park.
    pub fn new(threads: usize, spin: std::time::Duration) -> Self {
        let shared = Arc::new(Shared {
            claim: AtomicU64::new(0),
            job: AtomicPtr::new(std::ptr::null_mut()),
            done: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            exit: AtomicBool::new(false),
            spin,
            bg: super::background::Slots::new(),
        });
        let workers = (1..threads.min(MOST_THREADS))
            .filter_map(|_| {
                let s = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name("pdes-fit".into())
                    .spawn(move || s.worker())
                    .ok()
            })
            .collect();
        Self {
            shared,
            workers,
            round: std::sync::Mutex::new(0),
        }
    }

    /// Runs the current round's tasks still to claim on the calling thread (none: one
    /// load of the claim word).
    pub fn take_round_tasks(&self) {
        let round = (self.shared.claim.load(Ordering::Acquire) >> 32) as u32;
        self.shared.work(round);
    }

    /// Threads a round runs on.
    pub fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// The background lane, where no other caller holds it.
    pub fn background(&self) -> Option<BackgroundLane<'_>> {
        self.shared.bg.lane(self)
    }

    /// Wakes every parked worker (after a round's or a batch's claim word is stored).
    pub(super) fn wake(&self) {
        self.shared.wake(&self.workers);
    }

    /// `f(i)` for every i in 0..tasks on every thread; returns when all are done. A panic
    /// of a task is raised here after the round. While another round runs, on this thread
    /// alone.
    pub fn run(&self, tasks: usize, f: &(dyn Fn(usize) + Sync)) {
        // one round at a time: a second caller — another thread's fit, or a task that
        // asks for a round itself — runs its tasks alone rather than wait (or deadlock)
        let mut round = match self.round.try_lock() {
            Ok(r) => r,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => {
                (0..tasks).for_each(f);
                return;
            }
        };
        for first in (0..tasks).step_by(MOST_TASKS) {
            let n = (tasks - first).min(MOST_TASKS);
            let shifted = move |i: usize| f(first + i);
            let job: &(dyn Fn(usize) + Sync + '_) = &shifted;
            // SAFETY (lifetime): the workers dereference it only while a task of this
            // round is unfinished, and this function waits for every task below
            let job: &'static Job =
                unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync + '_), &'static Job>(job) };
            let slot: *const &'static Job = &job;
            *round = round.wrapping_add(1);
            self.shared.done.store(0, Ordering::Relaxed);
            self.shared.job.store(slot as *mut _, Ordering::Release);
            self.shared.claim.store(
                ((*round as u64) << 32) | ((n as u64) << 16),
                Ordering::SeqCst,
            );
            self.shared.wake(&self.workers);
            self.shared.work(*round);
            while self.shared.done.load(Ordering::Acquire) < n {
                std::hint::spin_loop();
            }
        }
        if self.shared.panicked.swap(false, Ordering::Relaxed) {
            drop(round);
            std::panic::resume_unwind(Box::new("a task of the fit's round panicked"));
        }
    }
}

impl Drop for SpinPool {
    fn drop(&mut self) {
        self.shared.exit.store(true, Ordering::SeqCst);
        for w in &self.workers {
            w.thread().unpark();
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::time::Duration;

    /// Runs `tasks` tasks of `pool`, each recording its thread; returns every task's
    /// thread, in task order (None where a task did not run).
    pub(in crate::fit) fn threads_of(
        pool: &SpinPool,
        tasks: usize,
        each: Duration,
    ) -> Vec<Option<std::thread::ThreadId>> {
        let seen: Vec<std::sync::Mutex<Option<std::thread::ThreadId>>> =
            (0..tasks).map(|_| Default::default()).collect();
        pool.run(tasks, &|i| {
            std::thread::sleep(each);
            if let Ok(mut s) = seen[i].lock() {
                assert!(s.is_none(), "task {i} ran twice");
                *s = Some(std::thread::current().id());
            }
        });
        seen.into_iter()
            .map(|s| s.into_inner().ok().flatten())
            .collect()
    }

    #[test]
    fn workers_take_tasks_and_wake_from_sleep_for_the_next_round() {
        let pool = SpinPool::new(4, Duration::from_millis(1));
        for round in 0..3 {
            let ran = threads_of(&pool, 40, Duration::from_millis(1));
            assert!(
                ran.iter().all(Option::is_some),
                "round {round}: a task did not run"
            );
            let mut distinct: Vec<_> = ran.into_iter().flatten().collect();
            distinct.sort_by_key(|t| format!("{t:?}"));
            distinct.dedup();
            // 40 tasks of 1 ms: the caller alone would take them all
            assert!(distinct.len() > 1, "round {round}: only the caller worked");
            // long enough for every worker to have parked
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    #[test]
    fn more_tasks_than_a_round_holds_run_once_each() {
        let pool = SpinPool::new(3, Duration::from_millis(1));
        let tasks = MOST_TASKS + 3;
        let runs: Vec<std::sync::atomic::AtomicU8> =
            (0..tasks).map(|_| Default::default()).collect();
        pool.run(tasks, &|i| {
            runs[i].fetch_add(1, Ordering::Relaxed);
        });
        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
    }

    #[test]
    fn a_round_asked_for_inside_a_task_runs_on_that_thread() {
        let pool = SpinPool::new(3, Duration::from_millis(1));
        let inner_done = std::sync::atomic::AtomicUsize::new(0);
        pool.run(4, &|_| {
            let me = std::thread::current().id();
            pool.run(5, &|_| {
                assert_eq!(std::thread::current().id(), me);
                inner_done.fetch_add(1, Ordering::Relaxed);
            });
        });
        assert_eq!(inner_done.load(Ordering::Relaxed), 20);
    }

    #[test]
    fn a_task_s_panic_reaches_the_caller_and_the_pool_goes_on() {
        let pool = SpinPool::new(3, Duration::from_millis(1));
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.run(8, &|i| {
                if i == 5 {
                    panic!("task 5");
                }
            })
        }));
        assert!(caught.is_err());
        let ran = threads_of(&pool, 8, Duration::ZERO);
        assert!(ran.iter().all(Option::is_some));
    }
}
