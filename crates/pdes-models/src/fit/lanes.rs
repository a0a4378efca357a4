//! The CPU fit in two lanes: the chain that decides a fit's length in rounds of its own,
//! every other search in the background beside it, each going on as soon as its own
//! points are evaluated.
//!
//! In rounds ([`Fits::step`]) every running minimization waits for the slowest of each
//! round: while the fixed starts of larger k run, each of the chain's iterations waits for
//! a round of up to 120 mixtures; after them, a round is one mixture, too little work for
//! every core. Yet only the lowest k not yet done is on the chain that decides the fit's
//! length (its split start waits for k − 1, and k + 1's for it). Here that k's
//! minimizations run in rounds of their own on the pool (a worker takes a round's task
//! before any other, and a background task pauses for one), and the points of every other
//! k go to a slot of their own in the pool's background lane ([`super::background`]; the
//! smaller k in the lower slots, whose tasks are taken first: the chain needs its fit
//! first), told as soon as that slot's batch is finished. Each minimization sees the costs
//! it would in rounds, summed in the same order, so every fit is the same bit for bit; only
//! the rounds differ (a round and each batch count one each).

use super::Data;
use super::background::SLOTS;
use super::data::PendingLogliks;
use super::search::{Batch, Fits};
use std::sync::Arc;

/// Runs `fits` to the end in two lanes on the CPU's pool, evaluating with `data`. Returns
/// false, having run nothing, where the pool has no background lane to give (one thread,
/// or another fit holds it): the caller goes on in rounds.
pub fn finish(fits: &mut Fits, data: &Data) -> Result<bool, String> {
    let Some(mut lane) = super::cores::background_lane() else {
        return Ok(false);
    };
    let data = Arc::new(data.clone());
    let mut trace = Trace::new();
    // the slot of search s (k's starts together): the smallest k's first (its fit is
    // needed first: the chain waits for it), the larger ones taking the threads it leaves;
    // a k past the last slot waits for its turn in the rounds
    let slot_of = |s: usize| (s < SLOTS).then_some(s);
    // each slot's batch in flight: its minimization, and its sums to come
    let mut flying: Vec<Option<(Batch, PendingLogliks)>> = (0..SLOTS).map(|_| None).collect();
    fits.between_rounds()?;
    loop {
        let Some(first) = fits.first_unfinished() else {
            trace.report();
            return Ok(true);
        };
        let t_submit = trace.now();
        let idle = |s: usize| slot_of(s).is_some_and(|i| flying[i].is_none());
        for batch in fits.gather_each(|s, _| s > first && idle(s)) {
            let (s, _, _) = batch.runs[0];
            if let Some(slot) = slot_of(s) {
                trace.batch_submitted(slot, batch.mixes.len());
                let sums = data.begin_logliks(&mut lane, slot, &batch.mixes);
                flying[slot] = Some((batch, sums));
            }
        }
        trace.spent(0, t_submit);
        let in_flight = |s: usize| slot_of(s).is_some_and(|i| flying[i].is_some());
        let critical = fits.gather(|s, _| s == first && !in_flight(s));
        if !critical.runs.is_empty() {
            let t0 = trace.now();
            let logliks = data.logliks(&critical.mixes);
            trace.round(t0, critical.mixes.len());
            fits.scatter(critical, &logliks);
        } else if flying.iter().any(Option::is_some) {
            // the critical k waits for a batch (a start of it is there): help one end
            let t0 = trace.now();
            let finished = |i: usize| flying[i].is_some() && lane.finished(i);
            while !(0..SLOTS).any(finished) {
                if !lane.help() {
                    std::hint::spin_loop();
                }
            }
            trace.waited(t0);
        } else {
            return Err("the fit's search stalled: no minimization asked for a point".into());
        }
        let t_tell = trace.now();
        for (slot, batch) in flying.iter_mut().enumerate() {
            if batch.is_some()
                && lane.finished(slot)
                && let Some((batch, sums)) = batch.take()
            {
                trace.batch_told(slot);
                fits.scatter(batch, &sums.take()?);
            }
        }
        trace.spent(1, t_tell);
        let t_between = trace.now();
        fits.between_rounds()?;
        trace.spent(2, t_between);
    }
}

/// Where a two-lane fit's time went, written to standard error at its end where
/// `PDES_FIT_TRACE` is set (bench/NOTES.md, "The CPU fit in two lanes").
struct Trace {
    on: bool,
    start: std::time::Instant,
    /// The chain's rounds: count, mixtures, seconds in them.
    rounds: (u64, u64, f64),
    /// Batches: count, mixtures, seconds from submit to told; the last told (s from start)
    /// and the rounds by then.
    batches: (u64, u64, f64),
    submitted: Vec<Option<std::time::Instant>>,
    last_told: (f64, u64),
    /// Waits of the chain for a batch: count, seconds.
    waits: (u64, f64),
    /// Seconds of the caller's own: gathering and submitting batches, telling them, and
    /// between rounds.
    spent: [f64; 3],
}

impl Trace {
    fn new() -> Self {
        Self {
            on: std::env::var_os("PDES_FIT_TRACE").is_some(),
            start: std::time::Instant::now(),
            rounds: (0, 0, 0.0),
            batches: (0, 0, 0.0),
            submitted: vec![None; SLOTS],
            last_told: (0.0, 0),
            waits: (0, 0.0),
            spent: [0.0; 3],
        }
    }
    /// The time, where tracing (a clock read costs on some hosts).
    fn now(&self) -> Option<std::time::Instant> {
        self.on.then(std::time::Instant::now)
    }
    fn round(&mut self, t0: Option<std::time::Instant>, mixtures: usize) {
        self.rounds.0 += 1;
        self.rounds.1 += mixtures as u64;
        self.rounds.2 += t0.map_or(0.0, |t| t.elapsed().as_secs_f64());
    }
    fn batch_submitted(&mut self, slot: usize, mixtures: usize) {
        self.batches.0 += 1;
        self.batches.1 += mixtures as u64;
        self.submitted[slot] = self.now();
    }
    fn batch_told(&mut self, slot: usize) {
        if let Some(t0) = self.submitted[slot].take() {
            self.batches.2 += t0.elapsed().as_secs_f64();
        }
        if self.on {
            self.last_told = (self.start.elapsed().as_secs_f64(), self.rounds.0);
        }
    }
    fn spent(&mut self, part: usize, t0: Option<std::time::Instant>) {
        self.spent[part] += t0.map_or(0.0, |t| t.elapsed().as_secs_f64());
    }
    fn waited(&mut self, t0: Option<std::time::Instant>) {
        self.waits.0 += 1;
        self.waits.1 += t0.map_or(0.0, |t| t.elapsed().as_secs_f64());
    }
    fn report(&self) {
        if !self.on {
            return;
        }
        let us = |s: f64, n: u64| s * 1e6 / n.max(1) as f64;
        eprintln!(
            "two lanes: {:.3} s; chain {} rounds ({} mixtures) {:.3} s, {:.1} µs each; {} batches ({} mixtures) {:.1} µs each submit to told, the last told at {:.3} s after {} rounds; {} waits {:.3} s; the caller's own: submitting {:.3} s, telling {:.3} s, between rounds {:.3} s",
            self.start.elapsed().as_secs_f64(),
            self.rounds.0,
            self.rounds.1,
            self.rounds.2,
            us(self.rounds.2, self.rounds.0),
            self.batches.0,
            self.batches.1,
            us(self.batches.2, self.batches.0),
            self.last_told.0,
            self.last_told.1,
            self.waits.0,
            self.waits.1,
            self.spent[0],
            self.spent[1],
            self.spent[2],
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
