//! The search for each k's maximum likelihood: Nelder–Mead ([`NelderMead`]) from several
//! starts per k, every start of every k advancing together in rounds ([`Fits`]). A round
//! gathers the points every running minimization asks for and evaluates them in one pass
//! over the data ([`Loglik::logliks`]: one GPU dispatch, or one parallel sweep of the CPU's
//! cores), so the number of round trips is that of the longest chain of minimizations, not
//! their sum (bench/NOTES.md, "Fits in rounds").
//!
//! The chain: k > 1 also starts from the best fit of k − 1 with its heaviest component
//! split in two ([`Mixture::split`]), so that ln L never falls as k grows; that start
//! begins in the round after k − 1 is done. The fixed starts of every k begin at once.

pub(super) use super::ksearch::{Batch, KSearch};
use super::{AGREEING_LOGLIK, Data, Fit, Loglik, Mixture, NelderMead};

/// The objective's value for a mixture it cannot use (a zero weight, a degenerate sd, a
/// likelihood that is not finite): larger than any real mean negative log-likelihood, so
/// Nelder–Mead moves away from it, and refused if it is all a fit reaches.
pub(crate) const UNUSABLE: f64 = 1e300;

/// The objective of a log-likelihood `loglik` over `n` observations: the mean negative
/// log-likelihood, [`UNUSABLE`] where it is not finite.
pub(crate) fn mean_cost(loglik: f64, n: f64) -> f64 {
    let c = -loglik / n;
    if c.is_finite() { c } else { UNUSABLE }
}

/// How a fit is searched.
#[derive(Clone, Copy, Debug)]
pub struct Search {
    /// Nelder–Mead iterations per start, per free parameter.
    pub iterations_per_parameter: u64,
    /// Where a GPU fit runs Nelder–Mead's iterations (a CPU fit's are the host's).
    pub iterate_on: SearchLoop,
}

impl Default for Search {
    fn default() -> Self {
        Self {
            iterations_per_parameter: 300,
            iterate_on: SearchLoop::Auto,
        }
    }
}

/// Where a GPU fit runs Nelder–Mead's iterations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchLoop {
    /// On the device up to [`super::device::AUTO_MOST_DISTINCT`] distinct values on a
    /// hardware GPU, else on the host: below it a round trip costs more than an
    /// evaluation, above it an evaluation needs the whole GPU (and one device search went
    /// astray); and a software adapter (lavapipe, SwiftShader) has cheap round trips, and
    /// llvmpipe cuts long shader loops short.
    #[default]
    Auto,
    /// On the host, in rounds ([`Fits`]): each round trip evaluates every point asked for.
    Host,
    /// On the device: each minimization a workgroup ([`super::device`]).
    Device,
}

impl SearchLoop {
    /// Whether a fit of `distinct` values on an adapter that is (`software`) or is not a
    /// CPU runs its iterations on the device.
    pub fn on_device(self, distinct: usize, software: bool) -> bool {
        match self {
            Self::Auto => !software && distinct <= super::device::AUTO_MOST_DISTINCT,
            Self::Host => false,
            Self::Device => true,
        }
    }
}

/// The deterministic starts for k components: (1) means at the quantiles (j − ½)/k, each
/// sd the overall sd / k, equal weights; (2) means evenly spaced over [min, max], sd the
/// range / 2k; (3) means at the quantiles j/(k + 1), each sd the overall sd. One start
/// for k = 1 (the moments).
pub fn starts(data: &Data, k: usize) -> Vec<Mixture> {
    let (mean, sd) = data.moments();
    let w = vec![1.0 / k as f64; k];
    if k == 1 {
        return vec![Mixture {
            weights: w,
            means: vec![mean],
            sds: vec![sd],
        }];
    }
    let (lo, hi) = (data.quantile(0.0), data.quantile(1.0));
    let range = (hi - lo).max(sd * 1e-3);
    vec![
        Mixture {
            weights: w.clone(),
            means: (0..k)
                .map(|j| data.quantile((j as f64 + 0.5) / k as f64))
                .collect(),
            sds: vec![sd / k as f64; k],
        },
        Mixture {
            weights: w.clone(),
            means: (0..k)
                .map(|j| lo + range * (j as f64 + 0.5) / k as f64)
                .collect(),
            sds: vec![range / (2.0 * k as f64); k],
        },
        Mixture {
            weights: w,
            means: (0..k)
                .map(|j| data.quantile((j as f64 + 1.0) / (k as f64 + 1.0)))
                .collect(),
            sds: vec![sd; k],
        },
    ]
}

/// The fits of every k of a range in progress, all starts advancing together in rounds
/// ([`Fits::step`]); a caller may stop between any two rounds (the window's frame).
pub struct Fits {
    n: f64,
    /// Distinct values: one evaluation of k components is k · this many terms.
    distinct: u64,
    how: How,
    searches: Vec<KSearch>,
    rounds: u64,
}

/// How every minimization of a fit is set up.
#[derive(Clone, Copy)]
struct How {
    /// The data's standard deviation (the initial simplex's step in the means).
    sd: f64,
    search: Search,
    /// Ask for an iteration's three candidates in one round ([`NelderMead::new`]).
    speculate: bool,
}

impl Fits {
    /// The fits of every k in `ks` to `data` (in standard units), not yet begun, for
    /// evaluations by `engine` (whether it pays to speculate: [`Loglik::speculate`]).
    pub fn new(
        data: &Data,
        ks: std::ops::RangeInclusive<usize>,
        search: Search,
        engine: &dyn Loglik,
    ) -> Self {
        let first = *ks.start();
        let mut fits = Self {
            n: data.n() as f64,
            distinct: data.values.len() as u64,
            how: How {
                sd: data.moments().1,
                search,
                speculate: engine.speculate(),
            },
            searches: Vec::new(),
            rounds: 0,
        };
        for k in ks {
            let runs = starts(data, k)
                .iter()
                .map(|s| minimization(fits.how, k, s))
                .collect();
            fits.searches.push(KSearch {
                k,
                runs,
                split_pending: k > first,
                away: false,
                evaluations: 0,
                best_costs: Vec::new(),
                fit: None,
            });
        }
        fits
    }

    /// Runs rounds until about `terms` terms ln f(x_i) have been evaluated (at least one
    /// round) or every fit is done. Returns whether rounds remain.
    pub fn step(&mut self, engine: &dyn Loglik, terms: u64) -> Result<bool, String> {
        let mut spent = 0u64;
        loop {
            self.between_rounds()?;
            if self.searches.iter().all(|s| s.fit.is_some()) {
                return Ok(false);
            }
            if spent >= terms {
                return Ok(true);
            }
            spent = spent.saturating_add(self.round(engine)?.max(1));
        }
    }

    /// The fits done so far, in increasing k (each k waits for k − 1, so these are the
    /// first ks of the range), in standard units.
    pub fn done(&self) -> Vec<&Fit> {
        self.searches.iter().map_while(|s| s.fit.as_ref()).collect()
    }

    /// Rounds so far (round trips to the evaluator).
    pub fn rounds(&self) -> u64 {
        self.rounds
    }

    /// Per k begun: the best mean negative log-likelihood after each of its rounds.
    pub fn progress(&self) -> Vec<(usize, &[f64])> {
        self.searches
            .iter()
            .filter(|s| !s.best_costs.is_empty())
            .map(|s| (s.k, s.best_costs.as_slice()))
            .collect()
    }

    /// Every fit, once [`Fits::step`] has returned false.
    pub fn into_fits(self) -> Result<Vec<Fit>, String> {
        self.searches
            .into_iter()
            .map(|s| {
                s.fit
                    .ok_or_else(|| format!("k = {}: the search did not finish", s.k))
            })
            .collect()
    }

    /// One round: every running minimization's points, evaluated in one batch. Returns
    /// the terms evaluated.
    fn round(&mut self, engine: &dyn Loglik) -> Result<u64, String> {
        let batch = self.gather(|_, _| true);
        let terms = batch.terms;
        let logliks = engine.logliks(&batch.mixes)?;
        self.scatter(batch, &logliks);
        Ok(terms)
    }

    /// The points asked for by the minimizations `pick(search, run)` chooses (indices into
    /// the searches in k order and into each one's starts), as mixtures to evaluate.
    pub(super) fn gather(&self, pick: impl Fn(usize, usize) -> bool) -> Batch {
        let mut batch = Batch::default();
        for (si, s) in self.searches.iter().enumerate() {
            for ri in 0..s.runs.len() {
                if pick(si, ri) {
                    self.add_run(&mut batch, si, ri);
                }
            }
        }
        batch
    }

    /// Adds the points start `ri` of search `si` asks for (if any) to `batch`.
    fn add_run(&self, batch: &mut Batch, si: usize, ri: usize) {
        let min_sd = self.how.sd * 1e-4;
        self.searches[si].add_points(batch, si, ri, min_sd, self.distinct);
    }

    /// Tells the minimizations of `batch` their points' costs from `logliks` (one per
    /// mixture of the batch, in order): one round.
    pub(super) fn scatter(&mut self, batch: Batch, logliks: &[f64]) {
        let mut told = batch.told(logliks, self.n).peekable();
        while let Some(&(si, _, _)) = told.peek() {
            let of_search = std::iter::from_fn(|| told.next_if(|t| t.0 == si));
            self.searches[si].tell_runs(of_search.map(|(_, ri, costs)| (ri, costs)));
        }
        self.rounds += 1;
    }

    /// Search `search`'s fixed starts, to run elsewhere until [`Fits::give_back`]: the
    /// search itself (the starts, their evaluations, its best costs), leaving its split
    /// start's place; none where its k is the range's first (its start is the chain's), its
    /// split start has begun or it is away already.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn lend(&mut self, search: usize) -> Option<KSearch> {
        let s = self.searches.get_mut(search).filter(|_| search > 0)?;
        if s.away || !s.split_pending {
            return None;
        }
        let lent = KSearch {
            k: s.k,
            runs: std::mem::take(&mut s.runs),
            split_pending: false,
            away: false,
            evaluations: std::mem::take(&mut s.evaluations),
            best_costs: std::mem::take(&mut s.best_costs),
            fit: None,
        };
        s.away = true;
        Some(lent)
    }

    /// Takes back a search lent by [`Fits::lend`]: its starts before the split start (the
    /// order a fit's tie between starts goes by), their evaluations added, and the
    /// `batches` they were evaluated in counted as rounds.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn give_back(&mut self, search: usize, mut lent: KSearch, batches: u64) {
        self.rounds += batches;
        let s = &mut self.searches[search];
        lent.runs.append(&mut s.runs);
        s.runs = lent.runs;
        s.evaluations += lent.evaluations;
        lent.best_costs.append(&mut s.best_costs);
        s.best_costs = lent.best_costs;
        s.away = false;
    }

    /// The standard deviation below which a component is unusable, the distinct values and
    /// the observations: what a lent search needs to ask and be told on its own.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn scale(&self) -> (f64, u64, f64) {
        (self.how.sd * 1e-4, self.distinct, self.n)
    }

    /// How many ks the fits are for.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn ks(&self) -> usize {
        self.searches.len()
    }

    /// The searches in k order, for `super::lanes`: the first not yet done.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) fn first_unfinished(&self) -> Option<usize> {
        self.searches.iter().position(|s| s.fit.is_none())
    }

    /// Makes what can be made between two rounds: the split starts due, the fits done, and
    /// the split start a fit just made lets begin — so that the first k not done always
    /// has a start to run (`super::lanes` relies on it: a round of nothing is a stall there).
    pub(super) fn between_rounds(&mut self) -> Result<(), String> {
        self.begin_split_starts();
        self.finish_searches()?;
        self.begin_split_starts();
        Ok(())
    }

    /// Adds the split start of every k whose k − 1 is done.
    fn begin_split_starts(&mut self) {
        let how = self.how;
        for i in 1..self.searches.len() {
            let (before, after) = self.searches.split_at_mut(i);
            let (Some(previous), s) = (&before[i - 1].fit, &mut after[0]) else {
                continue;
            };
            if !s.split_pending {
                continue;
            }
            let run = minimization(how, s.k, &split_start(previous));
            s.runs.push(run);
            s.split_pending = false;
        }
    }

    /// Makes the fit of every k whose minimizations have all stopped: the best start's
    /// optimum (the earlier start on a tie), and how many starts reached it.
    fn finish_searches(&mut self) -> Result<(), String> {
        for s in &mut self.searches {
            if s.fit.is_some()
                || s.split_pending
                || s.away
                || !s.runs.iter().all(NelderMead::finished)
            {
                continue;
            }
            let ends: Vec<End> = s
                .runs
                .iter()
                .map(|nm| {
                    let (theta, cost) = nm.best();
                    End {
                        theta: theta.to_vec(),
                        cost,
                        iterations: nm.iterations(),
                    }
                })
                .collect();
            s.fit = Some(best_of(s.k, self.n, &ends, s.evaluations)?);
        }
        Ok(())
    }
}

/// Nelder–Mead for k components from `start` ([`initial_simplex`]).
fn minimization(how: How, k: usize, start: &Mixture) -> NelderMead {
    let simplex = initial_simplex(how.sd, k, start);
    let limit = how.search.iterations_per_parameter * (simplex.len() as u64 - 1);
    NelderMead::new(simplex, limit, 1e-12, how.speculate)
}

/// The initial simplex of a search for k components from `start`, for data of standard
/// deviation `sd`: θ of the start, and one vertex per parameter stepped 0.5 in a logit or a
/// log sd, 0.1·sd in a mean.
pub fn initial_simplex(sd: f64, k: usize, start: &Mixture) -> Vec<Vec<f64>> {
    let t0 = start.theta();
    let dims = t0.len();
    let mut simplex = vec![t0.clone()];
    for i in 0..dims {
        let mut v = t0.clone();
        v[i] += if (k - 1..2 * k - 1).contains(&i) {
            0.1 * sd
        } else {
            0.5
        };
        simplex.push(v);
    }
    simplex
}

/// The start of k + 1 made from the fit of k: its heaviest component split in two halves
/// ([`Mixture::split`]), the same density.
pub fn split_start(previous: &Fit) -> Mixture {
    let heaviest = (0..previous.weights.len())
        .max_by(|&a, &b| previous.weights[a].total_cmp(&previous.weights[b]))
        .unwrap_or(0);
    Mixture {
        weights: previous.weights.clone(),
        means: previous.means.clone(),
        sds: previous.sds.clone(),
    }
    .split(heaviest)
}

/// Where one start's minimization ended: its best θ, that point's mean negative
/// log-likelihood, its iterations.
#[derive(Clone, Debug)]
pub struct End {
    /// The best point's parameters.
    pub theta: Vec<f64>,
    /// Its mean negative log-likelihood.
    pub cost: f64,
    /// Nelder–Mead iterations.
    pub iterations: u64,
}

/// The fit of k from its starts' ends (in start order) over `n` observations: the best
/// start's optimum (the earlier start on a tie), and how many starts reached it.
/// `evaluations`: of all its starts.
pub fn best_of(k: usize, n: f64, ends: &[End], evaluations: u64) -> Result<Fit, String> {
    let Some(best) =
        (0..ends.len()).min_by(|&a, &b| ends[a].cost.total_cmp(&ends[b].cost).then(a.cmp(&b)))
    else {
        return Err(format!("k = {k}: no start to fit from"));
    };
    let End {
        theta,
        cost,
        iterations,
    } = &ends[best];
    // the objective's stand-in for an unusable mixture is never a result
    if *cost >= UNUSABLE || !cost.is_finite() {
        return Err(format!(
            "k = {k}: no start reached a finite likelihood (values this far apart or this close, relative to their spread, are beyond the fit's floating point: rescale the data)"
        ));
    }
    let mix = Mixture::from_theta(theta, k);
    let loglik = -cost * n;
    let agreeing = ends
        .iter()
        .filter(|e| (e.cost - cost) * n < AGREEING_LOGLIK)
        .count();
    Ok(Fit {
        components: k,
        loglik,
        bic: -2.0 * loglik + (3 * k - 1) as f64 * n.ln(),
        weights: mix.weights,
        means: mix.means,
        sds: mix.sds,
        iterations: *iterations,
        evaluations,
        starts: ends.len(),
        starts_agreeing: agreeing,
    })
}

/// Fits every k in `ks` with `engine`'s log-likelihood ([`Fits`] run to the end); the BIC
/// choice is the fit with the smallest BIC ([`super::chosen`]).
pub fn fit_all(
    data: &Data,
    engine: &dyn Loglik,
    ks: std::ops::RangeInclusive<usize>,
    search: Search,
) -> Result<Vec<Fit>, String> {
    let mut fits = Fits::new(data, ks, search, engine);
    while fits.step(engine, u64::MAX)? {}
    fits.into_fits()
}

/// Fits k components alone (its fixed starts only).
pub fn fit_k(data: &Data, engine: &dyn Loglik, k: usize, search: Search) -> Result<Fit, String> {
    fit_all(data, engine, k..=k, search)?
        .pop()
        .ok_or_else(|| format!("k = {k}: no fit"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fit_made_between_rounds_begins_the_next_split_start_at_once() {
        let data = Data::synthetic_lgd(600);
        let search = Search {
            iterations_per_parameter: 20,
            ..Search::default()
        };
        let mut fits = Fits::new(&data, 1..=3, search, &data);
        let mut more = true;
        while more {
            more = fits.step(&data, 1).expect("a round");
            // after a step's last `between_rounds`, every k after a done one has its split
            // start: the first k not done has a start to run
            for i in 1..fits.searches.len() {
                if fits.searches[i - 1].fit.is_some() {
                    assert!(
                        !fits.searches[i].split_pending,
                        "k = {}: done, and k + 1 waits for a round of nothing",
                        fits.searches[i - 1].k
                    );
                }
            }
        }
        assert_eq!(fits.done().len(), 3);
    }
}
