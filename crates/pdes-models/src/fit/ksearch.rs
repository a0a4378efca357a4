//! One k's search ([`KSearch`]: its starts' minimizations, their evaluations and best
//! costs) and a batch of points gathered from searches for one evaluation ([`Batch`]):
//! the pieces [`super::search::Fits`] advances in rounds and `super::lanes` lends to the
//! background.

use super::search::{UNUSABLE, mean_cost};
use super::{Fit, Mixture, NelderMead};

/// One k's search: its minimizations in start order (the fixed starts, then the split one).
pub(super) struct KSearch {
    /// Components.
    pub k: usize,
    /// The starts' minimizations.
    pub runs: Vec<NelderMead>,
    /// The split start waits for the fit of k − 1.
    pub split_pending: bool,
    /// Its fixed starts run elsewhere for now (`super::lanes`): not done before they are back.
    pub away: bool,
    /// Points evaluated for its starts.
    pub evaluations: u64,
    /// The best mean negative log-likelihood after each round (the live plot).
    pub best_costs: Vec<f64>,
    /// The fit, once every start has stopped.
    pub fit: Option<Fit>,
}

impl KSearch {
    /// A search of no starts (what a lent search leaves behind).
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn empty() -> Self {
        Self {
            k: 0,
            runs: Vec::new(),
            split_pending: false,
            away: false,
            evaluations: 0,
            best_costs: Vec::new(),
            fit: None,
        }
    }

    /// Adds the points start `ri` asks for (if any) to `batch` as search `si`'s: mixtures
    /// whose sds are at least `min_sd` and weights positive, the others unusable.
    pub(super) fn add_points(
        &self,
        batch: &mut Batch,
        si: usize,
        ri: usize,
        min_sd: f64,
        distinct: u64,
    ) {
        let asked = self.runs[ri].ask();
        if asked.is_empty() {
            return;
        }
        for theta in asked {
            let mix = Mixture::from_theta(theta, self.k);
            // NaN fails both tests, so it is refused too
            let sds_ok = mix.sds.iter().all(|&sd| sd >= min_sd && sd.is_finite());
            if sds_ok && mix.weights.iter().all(|&w| w > 1e-300) {
                batch.at.push(batch.points);
                batch.terms = batch
                    .terms
                    .saturating_add((self.k as u64).saturating_mul(distinct));
                batch.mixes.push(mix);
            }
            batch.points += 1;
        }
        batch.runs.push((si, ri, asked.len()));
    }

    /// Tells each start (by index) its points' costs, and notes the best so far.
    pub(super) fn tell_runs(&mut self, told: impl Iterator<Item = (usize, Vec<f64>)>) {
        let mut best = self.best_costs.last().copied().unwrap_or(f64::INFINITY);
        for (ri, costs) in told {
            best = costs.iter().copied().fold(best, f64::min);
            self.evaluations += costs.len() as u64;
            self.runs[ri].tell(&costs);
        }
        self.best_costs.push(best);
    }

    /// One search a start, in order, to search apart ([`KSearch::merge`] joins them).
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn split(self) -> Vec<KSearch> {
        let k = self.k;
        let mut parts: Vec<KSearch> = self
            .runs
            .into_iter()
            .map(|run| KSearch {
                k,
                runs: vec![run],
                ..KSearch::empty()
            })
            .collect();
        if let Some(first) = parts.first_mut() {
            first.evaluations = self.evaluations;
            first.best_costs = self.best_costs;
        }
        parts
    }

    /// The searches of [`KSearch::split`] as one: the starts in order, the evaluations
    /// added, the best costs one after the other.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn merge(parts: Vec<KSearch>) -> KSearch {
        let mut whole = KSearch::empty();
        for mut p in parts {
            whole.k = p.k;
            whole.runs.append(&mut p.runs);
            whole.evaluations += p.evaluations;
            whole.best_costs.append(&mut p.best_costs);
        }
        whole
    }

    /// How many starts.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn starts(&self) -> usize {
        self.runs.len()
    }
}

impl Batch {
    /// Each minimization's (search, start, costs of its points) from the batch's mixtures'
    /// log-likelihoods over `n` observations, in the batch's order: [`UNUSABLE`] for a point
    /// that could not be evaluated.
    pub(super) fn told(
        self,
        logliks: &[f64],
        n: f64,
    ) -> impl Iterator<Item = (usize, usize, Vec<f64>)> {
        let mut costs = vec![UNUSABLE; self.points];
        for (&i, &ll) in self.at.iter().zip(logliks) {
            costs[i] = mean_cost(ll, n);
        }
        let mut next = costs.into_iter();
        self.runs
            .into_iter()
            .map(move |(si, ri, points)| (si, ri, next.by_ref().take(points).collect()))
    }
}

/// The points of some minimizations, gathered for one evaluation ([`Fits::gather`]).
#[derive(Default)]
pub(super) struct Batch {
    /// (search, start, points asked) of each minimization in it, in the searches' order.
    pub runs: Vec<(usize, usize, usize)>,
    /// The usable points as mixtures, and each one's index among the points.
    pub mixes: Vec<Mixture>,
    at: Vec<usize>,
    /// Points asked, usable or not.
    points: usize,
    /// Terms ln f(x_i) its evaluation takes.
    pub terms: u64,
}
