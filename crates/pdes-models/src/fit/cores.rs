//! Every core for a CPU fit's round, at a round's latency: a pool whose workers spin for a
//! while after each round instead of sleeping, and whose caller takes tasks too.
//!
//! A fit's rounds are mostly one mixture each (the chain of split starts, bench/NOTES.md,
//! "The CPU fit in blocks": 46,672 of 57,277 rounds of the shipped sample), ~100 µs of one
//! core's work cut into a task a core. On rayon's pool such a round took 22–34 µs on 16
//! cores against ~6 µs of work: its workers sleep on a futex between rounds, and each
//! round wakes them one by one. Here the workers spin between rounds (a fit's next round
//! comes a few µs after the last), the caller works on the round as a worker, and a pool
//! left idle sleeps again after its spin. The sums do not depend on which thread takes a
//! task ([`super::Data::logliks`] adds them in a fixed order).

/// PAUSE-loop iterations a worker spins for work before it sleeps (micropool's unit): at
/// ~10–140 cycles an iteration, 0.1–1.5 ms — longer than the host's step between two
/// rounds (a Nelder–Mead iteration's bookkeeping, µs), short enough that a pool left idle
/// stops taking cores at once to a person's eye.
#[cfg(not(target_arch = "wasm32"))]
const IDLE_SPIN: usize = 30_000;

/// The threads a round's tasks run on: rayon's (so `RAYON_NUM_THREADS` sets both), the
/// caller one of them.
pub fn threads() -> usize {
    #[cfg(not(target_arch = "wasm32"))]
    {
        pool().map_or(1, |p| p.num_threads() + 1)
    }
    #[cfg(target_arch = "wasm32")]
    {
        1
    }
}

/// The pool, made on first use; none where one thread is all there is.
#[cfg(not(target_arch = "wasm32"))]
fn pool() -> Option<&'static micropool::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<micropool::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let threads = rayon::current_num_threads();
        (threads > 1).then(|| {
            micropool::ThreadPoolBuilder::default()
                .num_threads(threads - 1)
                .idle_spin_cycles(IDLE_SPIN)
                .build()
        })
    })
    .as_ref()
}

/// `task(i)` for every i in 0..tasks, each on some thread of the pool (the caller's
/// included), in no fixed order; returns their results in order of i. `task` must not
/// panic (micropool aborts the process where a task panics).
pub fn map_tasks<T: Send + Sync>(tasks: usize, task: impl Fn(usize) -> T + Sync) -> Vec<T> {
    #[cfg(not(target_arch = "wasm32"))]
    if let (Some(pool), true) = (pool(), tasks > 1) {
        use micropool::iter::{
            ExactParallelSourceExt, IntoExactParallelSource, ParallelIteratorExt,
        };
        let slots: Vec<std::sync::OnceLock<T>> = (0..tasks).map(|_| Default::default()).collect();
        (0..tasks)
            .into_par_iter()
            .with_thread_pool(pool.split_per_item())
            .for_each(|i| {
                // each slot is set once, by the task of its index
                let _ = slots[i].set(task(i));
            });
        return slots.into_iter().filter_map(|s| s.into_inner()).collect();
    }
    (0..tasks).map(task).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_runs_once_and_results_come_in_order() {
        let runs: Vec<std::sync::atomic::AtomicU32> = (0..97).map(|_| Default::default()).collect();
        let out = map_tasks(97, |i| {
            runs[i].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            i * i
        });
        assert_eq!(out, (0..97).map(|i| i * i).collect::<Vec<_>>());
        assert!(
            runs.iter()
                .all(|r| r.load(std::sync::atomic::Ordering::Relaxed) == 1)
        );
    }
}
