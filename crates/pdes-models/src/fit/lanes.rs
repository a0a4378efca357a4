//! The CPU fit in two lanes: the chain that decides a fit's length in rounds of its own,
//! the other searches in the background beside it.
//!
//! In rounds ([`Fits::step`]) every running minimization waits for the slowest of each
//! round: while the fixed starts of larger k run, each of the chain's iterations waits for
//! a round of up to 120 mixtures; after them, a round is one mixture, too little work for
//! every core. Yet only the lowest k not yet done is on the fit's critical path (its split
//! start waits for k − 1, and k + 1's for it). Here that k's minimizations run in rounds
//! of their own on the pool (a worker takes a round's task before any other), and every
//! other running minimization's points go to the pool's background lane
//! ([`super::spin_pool::BackgroundLane`]) as one batch, told when it is finished. Each
//! minimization sees the costs it would in rounds, summed in the same order, so every fit
//! is the same bit for bit; only the rounds differ (a batch and a round count one each).

use super::Data;
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
    // the background batch in flight: its minimizations, and its sums to come
    let mut pending: Option<(Batch, PendingLogliks)> = None;
    loop {
        fits.between_rounds()?;
        let Some(first) = fits.first_unfinished() else {
            return Ok(true);
        };
        if pending.is_none() {
            let batch = fits.gather(|search, _| search > first);
            if !batch.runs.is_empty() {
                let sums = data.begin_logliks(&mut lane, &batch.mixes);
                pending = Some((batch, sums));
            }
        }
        let flying = |search: usize, run: usize| {
            pending
                .as_ref()
                .is_some_and(|(b, _)| b.runs.iter().any(|&(s, r, _)| (s, r) == (search, run)))
        };
        let critical = fits.gather(|search, run| search == first && !flying(search, run));
        if !critical.runs.is_empty() {
            let logliks = data.logliks(&critical.mixes);
            fits.scatter(critical, &logliks);
        } else if pending.is_some() {
            // the critical k waits for the batch (a start of it is there): help it end
            while !lane.finished() {
                if !lane.help() {
                    std::hint::spin_loop();
                }
            }
        } else {
            return Err("the fit's search stalled: no minimization asked for a point".into());
        }
        if lane.finished()
            && let Some((batch, sums)) = pending.take()
        {
            fits.scatter(batch, &sums.take()?);
        }
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
