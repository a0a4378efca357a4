//! Every core for a CPU fit's round, at a round's latency ([`SpinPool`]).
//!
//! A fit's rounds are mostly one mixture each (the chain of split starts, bench/NOTES.md,
//! "The CPU fit in blocks": 46,672 of 57,277 rounds of the shipped sample), ~100 µs of one
//! core's work cut into a task a core. On rayon's pool such a round took 22–34 µs on 16
//! cores against ~7 µs of a task's work: its workers sleep on a futex between rounds, and
//! each round wakes them (7–8 s of the fit's 3.5–4.9 s × 16 cores were system time). Here
//! the workers spin between rounds — a fit's next round comes a few µs after the last —
//! the caller takes tasks too, and a pool left idle for a millisecond sleeps. The sums do
//! not depend on which thread takes a task ([`super::Data::logliks`] adds them in a fixed
//! order).

#[cfg(not(target_arch = "wasm32"))]
use super::spin_pool::SpinPool;

/// How long a worker spins after a round before it sleeps: longer than the host's step
/// between two rounds (a Nelder–Mead iteration's bookkeeping, µs), short enough that an
/// idle pool gives its cores back at once to a person's eye.
#[cfg(not(target_arch = "wasm32"))]
const IDLE_SPIN: std::time::Duration = std::time::Duration::from_millis(1);

/// The threads a round's tasks run on: rayon's count (so `RAYON_NUM_THREADS` sets both),
/// the caller one of them; one in a browser tab.
pub fn threads() -> usize {
    #[cfg(not(target_arch = "wasm32"))]
    {
        pool().map_or(1, SpinPool::threads)
    }
    #[cfg(target_arch = "wasm32")]
    {
        1
    }
}

/// The pool, made on first use; none where one thread is all there is.
#[cfg(not(target_arch = "wasm32"))]
fn pool() -> Option<&'static SpinPool> {
    static POOL: std::sync::OnceLock<Option<SpinPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let threads = rayon::current_num_threads();
        (threads > 1).then(|| SpinPool::new(threads, IDLE_SPIN))
    })
    .as_ref()
}

/// The pool's background lane ([`SpinPool::background`]): none in a browser tab, on one
/// thread, or while another fit holds it.
#[cfg(not(target_arch = "wasm32"))]
pub fn background_lane() -> Option<super::spin_pool::BackgroundLane<'static>> {
    pool().and_then(SpinPool::background)
}

/// Runs, on the calling thread, the tasks of the round in progress still to claim, if any
/// (a background task's pause: the round's caller waits for them, the batch does not).
#[cfg(not(target_arch = "wasm32"))]
pub fn take_round_tasks() {
    if let Some(pool) = pool() {
        pool.take_round_tasks();
    }
}

/// `task(i)` for every i in 0..tasks, each on some thread of the pool (the caller's
/// included), in no fixed order; returns their results in order of i.
pub fn map_tasks<T: Send + Sync>(tasks: usize, task: impl Fn(usize) -> T + Sync) -> Vec<T> {
    #[cfg(not(target_arch = "wasm32"))]
    if let (Some(pool), true) = (pool(), tasks > 1) {
        let slots: Vec<std::sync::OnceLock<T>> = (0..tasks).map(|_| Default::default()).collect();
        // each slot is set once, by the task of its index
        pool.run(tasks, &|i| {
            let _ = slots[i].set(task(i));
        });
        return slots.into_iter().filter_map(|s| s.into_inner()).collect();
    }
    (0..tasks).map(task).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn every_task_runs_once_and_results_come_in_order() {
        for tasks in [0, 1, 2, 97] {
            let runs: Vec<AtomicU32> = (0..tasks).map(|_| Default::default()).collect();
            let out = map_tasks(tasks, |i| {
                runs[i].fetch_add(1, Ordering::Relaxed);
                i * i
            });
            assert_eq!(out, (0..tasks).map(|i| i * i).collect::<Vec<_>>());
            assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
        }
    }
}
