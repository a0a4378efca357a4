//! The spin pool's background lane: [`SLOTS`] batches of tasks in flight at once, each in a
//! slot of its own, taken by the pool's workers whenever no round has a task to claim —
//! the lower slot first — and told apart when finished, so that each slot's owner (one of a
//! fit's searches, `super::lanes`) goes on as soon as its own batch is done.
//!
//! A slot's claim word holds its batch's number, task count and next task to claim, as the
//! pool's round word does (`super::spin_pool`): a claim is one fetch-add whose old value
//! says whether it got a task. A batch's job is owned by its slot until the next batch in
//! that slot replaces it, after every task of it is done.

use super::spin_pool::SpinPool;
use std::sync::Arc;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};

/// A batch's work: owned, since its caller does not wait for it.
pub type BackgroundJob = dyn Fn(usize) + Send + Sync;

/// Batches in flight at once (a fit's: one for each k of up to 64).
pub const SLOTS: usize = 64;

/// The most tasks of one batch (the claim word's 16 bits hold this plus one claim past the
/// end by each of up to `super::spin_pool::MOST_THREADS` threads).
pub const MOST_TASKS: usize = super::spin_pool::MOST_TASKS;

/// A batch the pool keeps alive (a thin pointer to it goes in an atomic).
struct Batch {
    f: Box<BackgroundJob>,
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
    /// The batch `job` points to (the lane's holder alone locks it).
    keep: std::sync::Mutex<Option<Arc<Batch>>>,
}

/// The slots, and how many of the first ones the workers look at.
pub struct Slots {
    slots: Box<[Slot]>,
    /// One past the highest slot ever given a batch.
    used: AtomicUsize,
    /// Batches so far in each slot; held by the one [`Lane`].
    numbers: std::sync::Mutex<Vec<u32>>,
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
                    keep: std::sync::Mutex::new(None),
                })
                .collect(),
            used: AtomicUsize::new(0),
            numbers: std::sync::Mutex::new(vec![0; SLOTS]),
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
            slot.done.fetch_add(1, Ordering::Release);
            return true;
        }
        false
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
        let numbers = match self.numbers.try_lock() {
            Ok(n) => n,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        Some(Lane {
            slots: self,
            numbers,
            pool,
        })
    }
}

/// The background lane, held by one caller at a time: a batch of tasks per slot, run by
/// the pool's workers whenever the rounds leave them idle and by the caller through
/// [`Lane::help`].
pub struct Lane<'a> {
    slots: &'a Slots,
    numbers: std::sync::MutexGuard<'a, Vec<u32>>,
    /// The pool whose parked workers a new batch wakes.
    pool: &'a SpinPool,
}

impl Lane<'_> {
    /// Starts `job(i)` for every i in 0..tasks (at most [`MOST_TASKS`]) in slot `slot` (below
    /// [`SLOTS`]; a lower slot's tasks are taken first), after that slot's batch before has
    /// finished (the caller helps it to its end first). A task's panic is caught: what the
    /// task was to leave is missing.
    pub fn submit(&mut self, slot: usize, tasks: usize, job: Box<BackgroundJob>) {
        assert!(
            tasks <= MOST_TASKS,
            "a background batch holds at most {MOST_TASKS} tasks"
        );
        while !self.finished(slot) {
            if !self.help() {
                std::hint::spin_loop();
            }
        }
        let s = &self.slots.slots[slot];
        let batch = Arc::new(Batch { f: job });
        let ptr = Arc::as_ptr(&batch) as *mut Batch;
        if let Ok(mut keep) = s.keep.lock() {
            // the batch before is finished: no worker reads it any more
            *keep = Some(batch);
        } else {
            // a poisoned lock holds no batch to replace: run this one here instead
            (0..tasks).for_each(|i| (batch.f)(i));
            return;
        }
        self.numbers[slot] = self.numbers[slot].wrapping_add(1);
        s.done.store(0, Ordering::Relaxed);
        s.tasks.store(tasks, Ordering::Relaxed);
        s.job.store(ptr, Ordering::Release);
        s.claim.store(
            ((self.numbers[slot] as u64) << 32) | ((tasks as u64) << 16),
            Ordering::SeqCst,
        );
        self.slots.used.fetch_max(slot + 1, Ordering::SeqCst);
        self.pool.wake();
    }

    /// Whether every task of slot `slot`'s last batch is done (true before its first).
    pub fn finished(&self, slot: usize) -> bool {
        let s = &self.slots.slots[slot];
        s.done.load(Ordering::Acquire) >= s.tasks.load(Ordering::Relaxed)
    }

    /// Runs one task of the lowest slot with one left to claim on the caller; returns
    /// whether it did.
    pub fn help(&self) -> bool {
        self.slots.work()
    }
}
