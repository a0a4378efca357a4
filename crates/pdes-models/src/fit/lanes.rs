//! The CPU fit in two lanes: the chain that decides a fit's length in rounds of its own,
//! every k's fixed starts searching on their own in the background beside it.
//!
//! In rounds ([`Fits::step`]) every running minimization waits for the slowest of each
//! round: while the fixed starts of larger k run, each of the chain's iterations waits for
//! a round of up to 120 mixtures; after them, a round is one mixture, too little work for
//! every core. Yet only the chain decides the fit's length: k's split start waits for the
//! fit of k − 1, and k + 1's for k's. Here the chain's minimizations run in rounds of their
//! own on the pool (a worker takes a round's task before any other, and a background task
//! pauses for one), and each k's fixed starts are lent to the pool's background lane
//! ([`super::background`]), each start in a slot of its own — the smaller k in the lower
//! slots, whose tasks are taken first: the chain needs its fit first. There they search on
//! their own: the thread that finishes a batch's last task tells them its costs and submits
//! their next batch, so no one waits for them and the caller, free of their books, only
//! runs the chain; they come back when they have all stopped. Each minimization sees the
//! costs it would in rounds, summed in the same order, so every fit is the same bit for
//! bit; only the rounds differ (a round and each batch count one each).

use super::Data;
use super::background::{SLOTS, Slots};
use super::data::PendingLogliks;
use super::search::{Batch, Fits, KSearch};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Runs `fits` to the end in two lanes on the CPU's pool, evaluating with `data`. Returns
/// false, having run nothing, where the pool has no background lane to give (one thread,
/// or another fit holds it): the caller goes on in rounds.
pub fn finish(fits: &mut Fits, data: &Data) -> Result<bool, String> {
    let Some(lane) = super::cores::background_lane() else {
        return Ok(false);
    };
    let mut trace = Trace::new();
    let (min_sd, distinct, n) = fits.scale();
    let data = Arc::new(data.clone());
    // every k's fixed starts but the first k's (its start is the chain's), each start in
    // a slot of its own, the smaller k's first
    let mut lent: Vec<LentK> = Vec::new();
    let mut slot = 0;
    for search in 1..fits.ks() {
        let Some(s) = fits.lend(search) else {
            continue;
        };
        if slot + s.starts() > SLOTS {
            // no slots left: this k and those after it run in the rounds when their turn comes
            fits.give_back(search, s, 0);
            break;
        }
        let mut starts = Vec::new();
        for part in s.split() {
            let books = Books {
                data: Arc::clone(&data),
                slots: lane.slots(),
                slot,
                min_sd,
                distinct,
                n,
            };
            let l = Arc::new(Lent::new(part, search, books));
            l.go_on();
            starts.push(l);
            slot += 1;
        }
        lent.push(LentK { search, starts });
    }
    lane.wake();
    // on an early return the lent searches stop at their next batch (the lane, dropped
    // after this, waits for them)
    let _stop = StopOnDrop(lent.iter().flat_map(|k| k.starts.iter().cloned()).collect());
    loop {
        // the ks whose fixed starts are all back from the background
        let mut i = 0;
        while i < lent.len() {
            if lent[i].done() {
                let k = lent.swap_remove(i);
                let (s, batches) = k.take_back()?;
                fits.give_back(k.search, s, batches);
            } else {
                i += 1;
            }
        }
        fits.between_rounds()?;
        let Some(first) = fits.first_unfinished() else {
            trace.report(fits.rounds());
            return Ok(true);
        };
        let critical = fits.gather(|s, _| s == first);
        if !critical.runs.is_empty() {
            let t0 = trace.now();
            let logliks = data.logliks(&critical.mixes);
            trace.round(t0);
            fits.scatter(critical, &logliks);
        } else if let Some(k) = lent.iter().find(|k| k.search == first) {
            // the chain waits for this k's fixed starts: help them end
            let t0 = trace.now();
            while !k.done() {
                // idle and not done: its books failed (a panic); `take_back` says so
                if k.starts.iter().any(|l| l.failed(&lane)) {
                    return k.take_back().map(|_| false);
                }
                if !lane.help() {
                    std::hint::spin_loop();
                }
            }
            trace.waited(t0);
        } else {
            return Err("the fit's search stalled: no minimization asked for a point".into());
        }
    }
}

/// A k's fixed starts lent to the background, each searching by itself.
struct LentK {
    /// The k's index among the fit's searches.
    search: usize,
    starts: Vec<Arc<Lent>>,
}

impl LentK {
    /// Whether every start has stopped.
    fn done(&self) -> bool {
        self.starts.iter().all(|l| l.done.load(Ordering::Acquire))
    }

    /// The k's search, its starts back in order, once done, and their batches.
    fn take_back(&self) -> Result<(KSearch, u64), String> {
        let mut parts = Vec::with_capacity(self.starts.len());
        let mut batches = 0;
        for l in &self.starts {
            let (part, b) = l.take_back()?;
            parts.push(part);
            batches += b;
        }
        Ok((KSearch::merge(parts), batches))
    }
}

/// What a lent search needs to go on by itself: the data, its slot, and how its points
/// become mixtures and costs.
struct Books {
    data: Arc<Data>,
    slots: &'static Slots,
    slot: usize,
    min_sd: f64,
    distinct: u64,
    n: f64,
}

/// One of a k's fixed starts lent to the background ([`Fits::lend`], [`KSearch::split`]).
struct Lent {
    state: Mutex<LentState>,
    books: Books,
    /// Every start stopped (or the search failed, or was stopped): it may be taken back.
    done: AtomicBool,
    /// Stop at the next batch (the fit ended early).
    stop: AtomicBool,
    /// Batches evaluated.
    batches: AtomicU64,
}

struct LentState {
    search: KSearch,
    /// Its index among the fit's searches.
    index: usize,
    /// The batch in flight, and its sums to come.
    pending: Option<(Batch, PendingLogliks)>,
    failed: Option<String>,
}

impl Lent {
    fn new(search: KSearch, index: usize, books: Books) -> Self {
        Self {
            state: Mutex::new(LentState {
                search,
                index,
                pending: None,
                failed: None,
            }),
            books,
            done: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            batches: AtomicU64::new(0),
        }
    }

    /// Tells the starts the batch just finished (if any) and submits their next points,
    /// with this again after its last task; done where every start has stopped. Runs on
    /// the thread that ended the batch (or the caller, to begin).
    fn go_on(self: &Arc<Self>) {
        let Ok(mut st) = self.state.lock() else {
            // a panic while telling: idle and not done, which the fit reports
            return;
        };
        let b = &self.books;
        if let Some((batch, sums)) = st.pending.take() {
            match sums.take() {
                Ok(logliks) => {
                    let told = batch.told(&logliks, b.n).map(|(_, ri, costs)| (ri, costs));
                    st.search.tell_runs(told);
                }
                Err(e) => {
                    st.failed = Some(e);
                    self.done.store(true, Ordering::Release);
                    return;
                }
            }
        }
        loop {
            if self.stop.load(Ordering::Relaxed) {
                self.done.store(true, Ordering::Release);
                return;
            }
            let mut batch = Batch::default();
            for ri in 0..st.search.starts() {
                st.search
                    .add_points(&mut batch, st.index, ri, b.min_sd, b.distinct);
            }
            if batch.runs.is_empty() {
                self.done.store(true, Ordering::Release);
                return;
            }
            self.batches.fetch_add(1, Ordering::Relaxed);
            if batch.mixes.is_empty() {
                // every point unusable: told at once (a batch of no tasks would run this
                // again here, inside the lock)
                let told = batch.told(&[], b.n).map(|(_, ri, costs)| (ri, costs));
                st.search.tell_runs(told);
                continue;
            }
            let me = Arc::clone(self);
            let sums =
                b.data
                    .begin_logliks(b.slots, b.slot, &batch.mixes, Box::new(move || me.go_on()));
            // set before the lock is let go: the batch's end waits for the lock
            st.pending = Some((batch, sums));
            return;
        }
    }

    /// Whether its slot is idle with the search not done: its books failed (a panic).
    fn failed(&self, lane: &super::background::Lane<'_>) -> bool {
        lane.finished(self.books.slot) && !self.done.load(Ordering::Acquire)
    }

    /// The search, once done, and its batches; an error where its books failed.
    fn take_back(&self) -> Result<(KSearch, u64), String> {
        let mut st = self
            .state
            .lock()
            .map_err(|_| "a search of the fit's background failed".to_string())?;
        if let Some(e) = st.failed.take() {
            return Err(e);
        }
        let search = std::mem::replace(&mut st.search, KSearch::empty());
        Ok((search, self.batches.load(Ordering::Relaxed)))
    }
}

/// Stops the lent searches at their next batch when dropped (an early return).
struct StopOnDrop(Vec<Arc<Lent>>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        for l in &self.0 {
            l.stop.store(true, Ordering::Relaxed);
        }
    }
}

/// Where a two-lane fit's time went, written to standard error at its end where
/// `PDES_FIT_TRACE` is set (bench/NOTES.md, "The CPU fit in two lanes").
struct Trace {
    on: bool,
    start: std::time::Instant,
    /// The chain's rounds: count, seconds in them.
    rounds: (u64, f64),
    /// Waits of the chain for a k's fixed starts: count, seconds.
    waits: (u64, f64),
}

impl Trace {
    fn new() -> Self {
        Self {
            on: std::env::var_os("PDES_FIT_TRACE").is_some(),
            start: std::time::Instant::now(),
            rounds: (0, 0.0),
            waits: (0, 0.0),
        }
    }
    /// The time, where tracing (a clock read costs on some hosts).
    fn now(&self) -> Option<std::time::Instant> {
        self.on.then(std::time::Instant::now)
    }
    fn round(&mut self, t0: Option<std::time::Instant>) {
        self.rounds.0 += 1;
        self.rounds.1 += t0.map_or(0.0, |t| t.elapsed().as_secs_f64());
    }
    fn waited(&mut self, t0: Option<std::time::Instant>) {
        self.waits.0 += 1;
        self.waits.1 += t0.map_or(0.0, |t| t.elapsed().as_secs_f64());
    }
    fn report(&self, rounds: u64) {
        if !self.on {
            return;
        }
        eprintln!(
            "two lanes: {:.3} s; the chain's {} rounds {:.3} s ({:.1} µs each); {} waits for a k's fixed starts {:.3} s; {} rounds and batches in all",
            self.start.elapsed().as_secs_f64(),
            self.rounds.0,
            self.rounds.1,
            self.rounds.1 * 1e6 / self.rounds.0.max(1) as f64,
            self.waits.0,
            self.waits.1,
            rounds,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::{Search, fit_all};

    #[test]
    fn two_lanes_fit_what_rounds_fit_bit_for_bit() {
        let data = Data::synthetic_lgd(1500);
        let search = Search {
            iterations_per_parameter: 40,
            ..Search::default()
        };
        let in_rounds = fit_all(&data, &data, 1..=4, search).expect("the fits in rounds");
        let mut fits = Fits::new(&data, 1..=4, search, &data);
        if super::super::cores::threads() == 1 {
            // no pool, no lane: the caller goes on in rounds
            assert!(!finish(&mut fits, &data).expect("nothing runs"));
            return;
        }
        // another test's fit may hold the lane for a while
        let mut tries = 0;
        while !finish(&mut fits, &data).expect("the fits in two lanes") {
            tries += 1;
            assert!(tries < 2_000, "the background lane was never free");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(fits.into_fits().expect("every k done"), in_rounds);
    }
}
