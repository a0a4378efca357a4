//! The spin pool's background lane: [`SLOTS`] batches of tasks in flight at once, each in a
//! slot of its own, taken by the pool's workers whenever no round has a task to claim —
//! the lower slot first — and told apart when finished, so that each slot's owner (one of a
//! fit's searches, `super::lanes`) goes on as soon as its own batch is done.
//!
//! A slot's claim word holds its batch's number, task count and next task to claim, as the
//! pool's round word does (`super::spin_pool`): a claim is one fetch-add whose old value
//! says whether it got a task. A batch's job is owned by its slot until the next batch in
//! that slot replaces it, after every task of it is done. A batch may carry what comes
//! next (`then`): the thread that finishes its last task runs it, and it may submit the
//! slot's next batch there and then — so a search goes on with no one waiting for it.

use super::spin_pool::SpinPool;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// A batch's work: owned, since its caller does not wait for it.
pub type BackgroundJob = dyn Fn(usize) + Send + Sync;

/// Batches in flight at once (a fit's: one for each fixed start of up to 42 ks).
pub const SLOTS: usize = 128;

/// The most tasks of one batch (the claim word's 16 bits hold this plus one claim past the
/// end by each of up to `super::spin_pool::MOST_THREADS` threads).
pub const MOST_TASKS: usize = super::spin_pool::MOST_TASKS;

/// What a batch's last task's thread runs after it (it may submit the slot's next batch).
pub type Then = dyn Fn() + Send + Sync;

/// A batch the pool keeps alive (a thin pointer to it goes in an atomic).
struct Batch {
    f: Box<BackgroundJob>,
    then: Option<Box<Then>>,
}

/// One slot, on a cache line of its own: the workers read every busy slot's word.
#[repr(align(128))]
struct Slot {
    /// batch (32) | tasks (16) | next task to claim (16).
    claim: AtomicU64,
    /// The batch's job, kept alive by `keep`.
    job: AtomicPtr<Batch>,
    /// Tasks of the batch finished (or panicked), and its task count.
    done: AtomicUsize,
    tasks: AtomicUsize,
    /// From a batch's submission until its last task and what comes next have run.
    busy: AtomicBool,
    /// Batches so far in the slot (the claim word's batch number).
    number: AtomicU32,
    /// The batch `job` points to (the lane's holder alone locks it).
    keep: std::sync::Mutex<Option<Arc<Batch>>>,
}

/// The slots, and how many of the first ones the workers look at.
pub struct Slots {
    slots: Box<[Slot]>,
    /// One past the highest slot ever given a batch.
    used: AtomicUsize,
    /// Held by the one [`Lane`].
    held: std::sync::Mutex<()>,
}

/// A claim word's (tasks, next task to claim).
fn parts(w: u64) -> (usize, usize) {
    (((w >> 16) & 0xffff) as usize, (w & 0xffff) as usize)
}

impl Default for Slots {
    fn default() -> Self {
        Self::new()
    }
}

impl Slots {
    /// Empty slots.
    pub fn new() -> Self {
        Self {
            slots: (0..SLOTS)
                .map(|_| Slot {
                    claim: AtomicU64::new(0),
                    job: AtomicPtr::new(std::ptr::null_mut()),
                    done: AtomicUsize::new(0),
                    tasks: AtomicUsize::new(0),
                    busy: AtomicBool::new(false),
                    number: AtomicU32::new(0),
                    keep: std::sync::Mutex::new(None),
                })
                .collect(),
            used: AtomicUsize::new(0),
            held: std::sync::Mutex::new(()),
        }
    }

    /// Claims and runs one task of the lowest slot with one left to claim. Returns whether
    /// it ran one.
    pub fn work(&self) -> bool {
        let used = self.used.load(Ordering::Acquire);
        for slot in &self.slots[..used] {
            let (tasks, next) = parts(slot.claim.load(Ordering::Acquire));
            if next >= tasks {
                continue;
            }
            let (tasks, next) = parts(slot.claim.fetch_add(1, Ordering::Acquire));
            if next >= tasks {
                continue;
            }
            let batch = slot.job.load(Ordering::Acquire);
            // SAFETY: set before the claim word of the batch claimed from, and kept alive by
            // `keep` until every task of that batch is done — task `next` is ours and not yet
            let f = unsafe { &(*batch).f };
            // a panicked task's result is missing: its caller finds that out (no abort here)
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(next)));
            if slot.done.fetch_add(1, Ordering::AcqRel) + 1 == tasks {
                self.after_last_task(slot);
            }
            return true;
        }
        false
    }

    /// The batch's `then`, where it has one, on this thread (it may submit the next
    /// batch); the slot idle after it where it did not.
    fn after_last_task(&self, slot: &Slot) {
        let number = slot.number.load(Ordering::Acquire);
        // a batch of our own: the one `then` may replace in `keep`
        let batch = slot.keep.lock().ok().and_then(|k| k.clone());
        if let Some(then) = batch.as_ref().and_then(|b| b.then.as_ref()) {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(then));
        }
        if slot.number.load(Ordering::Acquire) == number {
            slot.busy.store(false, Ordering::Release);
        }
    }

    /// Starts `job(i)` for every i in 0..tasks (at most [`MOST_TASKS`]) in slot `slot`,
    /// then `then` on the thread that finishes the last (a batch of no tasks runs `then`
    /// here). The slot must be idle, or this called from its batch's `then`.
    pub fn submit(
        &self,
        slot: usize,
        tasks: usize,
        job: Box<BackgroundJob>,
        then: Option<Box<Then>>,
    ) {
        assert!(
            tasks <= MOST_TASKS,
            "a background batch holds at most {MOST_TASKS} tasks"
        );
        let s = &self.slots[slot];
        let batch = Arc::new(Batch { f: job, then });
        let ptr = Arc::as_ptr(&batch) as *mut Batch;
        match s.keep.lock() {
            // the batch before is finished: no worker reads it any more
            Ok(mut keep) => *keep = Some(Arc::clone(&batch)),
            // a poisoned lock holds no batch to replace: run this one here instead
            Err(_) => {
                (0..tasks).for_each(|i| (batch.f)(i));
                if let Some(then) = &batch.then {
                    then();
                }
                return;
            }
        }
        s.busy.store(true, Ordering::Release);
        let number = s.number.fetch_add(1, Ordering::AcqRel).wrapping_add(1);
        s.done.store(0, Ordering::Relaxed);
        s.tasks.store(tasks, Ordering::Relaxed);
        s.job.store(ptr, Ordering::Release);
        if tasks == 0 {
            // nothing to claim: what comes next comes now
            self.after_last_task(s);
            return;
        }
        s.claim.store(
            ((number as u64) << 32) | ((tasks as u64) << 16),
            Ordering::SeqCst,
        );
        self.used.fetch_max(slot + 1, Ordering::SeqCst);
    }

    /// Whether slot `slot` is idle: its last batch's tasks and what came after them done.
    pub fn idle(&self, slot: usize) -> bool {
        !self.slots[slot].busy.load(Ordering::Acquire)
    }

    /// Whether any slot has a task left to claim.
    pub fn waiting(&self) -> bool {
        let used = self.used.load(Ordering::SeqCst);
        self.slots[..used].iter().any(|s| {
            let (tasks, next) = parts(s.claim.load(Ordering::SeqCst));
            next < tasks
        })
    }

    /// The lane, where no other caller holds it; `pool` is woken for each batch.
    pub fn lane<'a>(&'a self, pool: &'a SpinPool) -> Option<Lane<'a>> {
        let held = match self.held.try_lock() {
            Ok(h) => h,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        Some(Lane {
            slots: self,
            _held: held,
            pool,
        })
    }
}

/// The background lane, held by one caller at a time: a batch of tasks per slot, run by
/// the pool's workers whenever the rounds leave them idle and by the caller through
/// [`Lane::help`]. Dropped, it waits (helping) until every slot is idle.
pub struct Lane<'a> {
    slots: &'a Slots,
    _held: std::sync::MutexGuard<'a, ()>,
    /// The pool whose parked workers a new batch wakes.
    pool: &'a SpinPool,
}

impl<'a> Lane<'a> {
    /// Starts `job(i)` for every i in 0..tasks (at most [`MOST_TASKS`]) in slot `slot` (below
    /// [`SLOTS`]; a lower slot's tasks are taken first), after that slot's batch before has
    /// finished (the caller helps it to its end first). A task's panic is caught: what the
    /// task was to leave is missing.
    pub fn submit(&mut self, slot: usize, tasks: usize, job: Box<BackgroundJob>) {
        while !self.finished(slot) {
            if !self.help() {
                std::hint::spin_loop();
            }
        }
        self.slots.submit(slot, tasks, job, None);
        self.pool.wake();
    }

    /// Whether slot `slot` is idle: every task of its last batch and what came after done
    /// (true before its first).
    pub fn finished(&self, slot: usize) -> bool {
        self.slots.idle(slot)
    }

    /// Runs one task of the lowest slot with one left to claim on the caller; returns
    /// whether it did.
    pub fn help(&self) -> bool {
        self.slots.work()
    }

    /// The slots, for batches whose `then` submits the next ([`Slots::submit`]).
    pub fn slots(&self) -> &'a Slots {
        self.slots
    }

    /// Wakes the pool's parked workers (after batches submitted through [`Lane::slots`]).
    pub fn wake(&self) {
        self.pool.wake();
    }
}

impl Drop for Lane<'_> {
    fn drop(&mut self) {
        // no batch of this lane's outlives it: the next holder starts from idle slots
        while (0..SLOTS).any(|i| !self.slots.idle(i)) {
            if !self.help() {
                std::hint::spin_loop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::spin_pool::tests::threads_of;
    use super::*;
    use std::time::Duration;

    /// A job whose every task sleeps `sleep` (none where zero), then counts into `count`.
    fn counting(sleep: Duration, count: &Arc<AtomicUsize>) -> Box<BackgroundJob> {
        let count = Arc::clone(count);
        Box::new(move |_| {
            if !sleep.is_zero() {
                std::thread::sleep(sleep);
            }
            count.fetch_add(1, Ordering::Relaxed);
        })
    }

    /// Waits for the lane's batch in slot 0, helping it.
    fn finish(lane: &Lane<'_>) {
        while !lane.finished(0) {
            if !lane.help() {
                std::thread::yield_now();
            }
        }
    }

    #[test]
    fn a_background_batch_runs_each_task_once_on_the_workers_too() {
        let pool = SpinPool::new(4, Duration::from_millis(1));
        let mut lane = pool.background().expect("the lane is free");
        let caller = std::thread::current().id();
        for batch in 0..3 {
            let runs: Arc<Vec<std::sync::atomic::AtomicU8>> =
                Arc::new((0..60).map(|_| Default::default()).collect());
            let by_workers = Arc::new(AtomicUsize::new(0));
            let (r, w) = (Arc::clone(&runs), Arc::clone(&by_workers));
            lane.submit(
                0,
                60,
                Box::new(move |i| {
                    std::thread::sleep(Duration::from_micros(500));
                    r[i].fetch_add(1, Ordering::Relaxed);
                    if std::thread::current().id() != caller {
                        w.fetch_add(1, Ordering::Relaxed);
                    }
                }),
            );
            finish(&lane);
            assert!(
                runs.iter().all(|r| r.load(Ordering::Relaxed) == 1),
                "batch {batch}: a task did not run once"
            );
            assert!(
                by_workers.load(Ordering::Relaxed) > 0,
                "batch {batch}: only the caller worked"
            );
            // long enough for every worker to have parked: the next batch wakes them
            std::thread::sleep(Duration::from_millis(30));
        }
        // one lane at a time
        assert!(pool.background().is_none());
    }

    #[test]
    fn workers_leave_a_batch_for_a_round_and_finish_the_batch_after() {
        let pool = SpinPool::new(3, Duration::from_millis(1));
        let mut lane = pool.background().expect("the lane is free");
        let left = Arc::new(AtomicUsize::new(0));
        // far more background work than the round below
        lane.submit(0, 200, counting(Duration::from_millis(2), &left));
        // the workers well into the batch
        std::thread::sleep(Duration::from_millis(10));
        // the caller alone would take 30 ms; the workers take the round's tasks between
        // two of the batch's (2 ms), not after the batch (200 ms)
        let ran = threads_of(&pool, 6, Duration::from_millis(5));
        assert!(ran.iter().all(Option::is_some));
        let mut distinct: Vec<_> = ran.into_iter().flatten().collect();
        distinct.sort_by_key(|t| format!("{t:?}"));
        distinct.dedup();
        assert!(distinct.len() > 1, "no worker left the batch for the round");
        assert!(
            left.load(Ordering::Relaxed) < 200,
            "the round waited for the whole batch"
        );
        finish(&lane);
        assert_eq!(left.load(Ordering::Relaxed), 200);
    }

    #[test]
    fn a_background_task_s_panic_is_caught_and_the_lane_goes_on() {
        let pool = SpinPool::new(3, Duration::from_millis(1));
        let mut lane = pool.background().expect("the lane is free");
        let ran = Arc::new(AtomicUsize::new(0));
        let r = Arc::clone(&ran);
        lane.submit(
            0,
            10,
            Box::new(move |i| {
                if i == 3 {
                    panic!("task 3");
                }
                r.fetch_add(1, Ordering::Relaxed);
            }),
        );
        finish(&lane);
        assert_eq!(ran.load(Ordering::Relaxed), 9);
        lane.submit(0, 5, counting(Duration::ZERO, &ran));
        finish(&lane);
        assert_eq!(ran.load(Ordering::Relaxed), 14);
    }

    #[test]
    fn a_background_task_that_pauses_takes_a_round_s_tasks() {
        let pool = Arc::new(SpinPool::new(2, Duration::from_millis(1)));
        let mut lane = pool.background().expect("the lane is free");
        let p = Arc::clone(&pool);
        let stop = Arc::new(AtomicBool::new(false));
        let s = Arc::clone(&stop);
        // one long task: the one worker is inside it when the round comes
        lane.submit(
            0,
            1,
            Box::new(move |_| {
                while !s.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_micros(200));
                    p.take_round_tasks();
                }
            }),
        );
        std::thread::sleep(Duration::from_millis(10));
        let ran = threads_of(&pool, 8, Duration::from_millis(3));
        stop.store(true, Ordering::Relaxed);
        let mut distinct: Vec<_> = ran.into_iter().flatten().collect();
        distinct.sort_by_key(|t| format!("{t:?}"));
        distinct.dedup();
        assert_eq!(
            distinct.len(),
            2,
            "the worker's task never paused for the round"
        );
        finish(&lane);
        drop(lane);
    }

    #[test]
    fn a_lower_slot_s_batch_is_taken_first_and_finishes_apart() {
        let pool = SpinPool::new(3, Duration::from_millis(1));
        let mut lane = pool.background().expect("the lane is free");
        let (long, short) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        lane.submit(1, 100, counting(Duration::from_millis(2), &long));
        std::thread::sleep(Duration::from_millis(5));
        lane.submit(0, 10, counting(Duration::from_millis(1), &short));
        while !lane.finished(0) {
            std::thread::yield_now();
        }
        assert_eq!(short.load(Ordering::Relaxed), 10);
        // two workers, 2 ms a task of slot 1: after ~10 ms, far from its 100 tasks
        assert!(!lane.finished(1), "slot 0 waited for slot 1's batch");
        assert!(long.load(Ordering::Relaxed) < 60);
        while !lane.finished(1) {
            lane.help();
        }
        assert_eq!(long.load(Ordering::Relaxed), 100);
    }

    /// A batch of `tasks` tasks in slot 0 counting into `ran`, whose `then` submits the
    /// next until `left` reaches zero.
    fn chained(slots: &'static Slots, ran: Arc<AtomicUsize>, thens: Arc<AtomicUsize>, left: usize) {
        slots.submit(
            0,
            7,
            counting(Duration::ZERO, &ran),
            Some(Box::new(move || {
                thens.fetch_add(1, Ordering::Relaxed);
                if left > 1 {
                    chained(slots, Arc::clone(&ran), Arc::clone(&thens), left - 1);
                }
            })),
        );
    }

    #[test]
    fn a_batch_s_then_runs_once_after_its_last_task_and_may_submit_the_next() {
        let pool: &'static SpinPool =
            Box::leak(Box::new(SpinPool::new(3, Duration::from_millis(1))));
        let lane = pool.background().expect("the lane is free");
        let (ran, thens) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        chained(lane.slots(), Arc::clone(&ran), Arc::clone(&thens), 50);
        lane.wake();
        while !lane.finished(0) {
            lane.help();
        }
        // the slot is idle only after the last batch's `then`
        assert_eq!(thens.load(Ordering::Relaxed), 50);
        assert_eq!(ran.load(Ordering::Relaxed), 50 * 7);
    }
}
