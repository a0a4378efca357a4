//! A fit of k = a..b with every minimization on the device ([`super::device`]): the same
//! starts as [`super::Fits`] — three fixed ones per k (one for k = 1) and, for k after the
//! first, the best fit of k − 1 with its heaviest component split — in one dispatch.
//!
//! What it reports is exact for what it reports: each run's first point and its best
//! point are evaluated again in f64 on the host and the better kept, so the ln L printed is
//! the f64 log-likelihood of the parameters printed. The device picks k − 1's best run in
//! f32 when it builds k's split start; the host also weighs k − 1's reported fit split in
//! two (the same density, so the same ln L), so that ln L never falls as k grows.

use super::device::{DeviceSearch, Outcome, Start};
use super::search::{End, best_of, initial_simplex, split_start, starts};
use super::{Data, Fit, Mixture, Search};
use pdes_gpu::Gpu;
use std::sync::Arc;

/// The fits of every k of a range on the device.
pub struct DeviceFits {
    search: DeviceSearch,
    ks: std::ops::RangeInclusive<usize>,
    limit_per_parameter: u64,
    fits: Vec<Fit>,
    progress: Vec<(usize, Vec<f64>)>,
    rounds: u64,
}

impl DeviceFits {
    /// The fits of `ks` to `data` (in standard units) on `gpu`, not yet begun.
    pub fn new(
        gpu: Arc<Gpu>,
        data: &Data,
        ks: std::ops::RangeInclusive<usize>,
        search: Search,
    ) -> Result<Self, String> {
        Ok(Self {
            search: DeviceSearch::new(gpu, data)?,
            ks,
            limit_per_parameter: search.iterations_per_parameter,
            fits: Vec::new(),
            progress: Vec::new(),
            rounds: 0,
        })
    }

    /// Runs every minimization of every k in one dispatch and makes the fits. Returns
    /// whether anything remains (never, once it has run; the shape of [`super::Fits::step`]).
    pub fn step(&mut self) -> Result<bool, String> {
        if self.rounds > 0 {
            return Ok(false);
        }
        let data = self.search.data();
        let sd = data.moments().1;
        let fixed: Vec<Start> = self
            .ks
            .clone()
            .flat_map(|k| starts(data, k).into_iter().map(move |m| (k, m)))
            .map(|(k, m)| {
                let simplex = initial_simplex(sd, k, &m);
                Start {
                    k,
                    max_iterations: self.limit_per_parameter * (simplex.len() as u64 - 1),
                    simplex,
                }
            })
            .collect();
        let fixed_count = fixed.len();
        let outcomes = self.search.run(&fixed, Some(self.limit_per_parameter))?;
        self.rounds += 1;
        let (fixed_outcomes, split_outcomes) = outcomes.split_at(fixed_count.min(outcomes.len()));
        for k in self.ks.clone() {
            let runs: Vec<&Outcome> = fixed_outcomes
                .iter()
                .chain(split_outcomes)
                .filter(|o| o.k == k)
                .collect();
            self.finish(k, &runs)?;
        }
        Ok(false)
    }

    /// Makes the fit of k from its runs (fixed starts, then the split one).
    fn finish(&mut self, k: usize, runs: &[&Outcome]) -> Result<(), String> {
        let ends: Vec<End> = self.search.ends_of(runs);
        let evaluations = runs.iter().map(|o| o.evaluations).sum();
        let n = self.search.data().n() as f64;
        let mut fit = best_of(k, n, &ends, evaluations)?;
        if let Some(previous) = self.fits.last() {
            // k − 1's fit split in two: the same density, so ln L never falls
            let split = split_start(previous);
            let theta = split.theta();
            let cost = self.search.cost(&theta, k);
            if -cost * n > fit.loglik {
                let mix = Mixture::from_theta(&theta, k);
                fit.loglik = -cost * n;
                fit.bic = -2.0 * fit.loglik + (3 * k - 1) as f64 * n.ln();
                (fit.weights, fit.means, fit.sds) = (mix.weights, mix.means, mix.sds);
            }
        }
        self.fits.push(fit);
        // best cost after each iteration over the k's runs (a run that stopped keeps its last)
        let longest = runs.iter().map(|o| o.trace.len()).max().unwrap_or(0);
        let curve = (0..longest)
            .map(|i| {
                runs.iter()
                    .filter_map(|o| o.trace.get(i).or(o.trace.last()))
                    .fold(f64::INFINITY, |a, &b| a.min(b))
            })
            .collect();
        self.progress.push((k, curve));
        Ok(())
    }

    /// The fits done so far, in increasing k (standard units).
    pub fn done(&self) -> &[Fit] {
        &self.fits
    }

    /// Per k done: the best mean negative log-likelihood after each iteration (f32).
    pub fn progress(&self) -> &[(usize, Vec<f64>)] {
        &self.progress
    }

    /// Dispatches so far, each with its readback.
    pub fn rounds(&self) -> u64 {
        self.rounds
    }

    /// Every fit, once [`DeviceFits::step`] has run.
    pub fn into_fits(self) -> Result<Vec<Fit>, String> {
        if self.fits.len() != self.ks.clone().count() {
            return Err("the device fit did not finish".into());
        }
        Ok(self.fits)
    }
}
