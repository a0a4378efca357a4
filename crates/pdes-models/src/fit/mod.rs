//! Normal-mixture fitting by maximum likelihood (Cheng 2014, paper 003 §3): for each number
//! of components k, Nelder–Mead ([`nelder_mead`], ask and tell) on an unconstrained parameterization — softmax
//! weights (k − 1 free logits), means, log standard deviations — from several
//! deterministic starts; BIC = −2 ln L + (3k − 1) ln n picks k. The log-likelihood is the
//! only costly part and has two engines: f64 on the CPU ([`Data::loglik`]) and f32 on the
//! GPU ([`gpu::GpuLoglik`]).
//!
//! The data are kept as distinct values with their counts, summed in sorted order, and the
//! optimizer minimizes the *mean* negative log-likelihood: a sample repeated 2× or 4× then
//! gives exactly the same costs (each term is scaled by a power of two, which is exact), so
//! the same Nelder–Mead path, the same parameters and exactly 2× or 4× the ln L.

pub mod data;
pub mod gpu;
pub mod nelder_mead;

pub use data::Data;

pub use nelder_mead::NelderMead;
use serde::Serialize;

/// ln √(2π).
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// A normal mixture: weights (summing to 1), means, standard deviations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mixture {
    /// Weights.
    pub weights: Vec<f64>,
    /// Means.
    pub means: Vec<f64>,
    /// Standard deviations.
    pub sds: Vec<f64>,
}

impl Mixture {
    /// Components.
    pub fn k(&self) -> usize {
        self.weights.len()
    }

    /// The mixture of unconstrained parameters θ = (logits z_1..z_{k−1}, means, log sds),
    /// z_k = 0.
    pub fn from_theta(theta: &[f64], k: usize) -> Self {
        let mut z: Vec<f64> = theta[..k - 1].to_vec();
        z.push(0.0);
        let zmax = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = z.iter().map(|v| (v - zmax).exp()).collect();
        let s: f64 = e.iter().sum();
        Self {
            weights: e.iter().map(|v| v / s).collect(),
            means: theta[k - 1..2 * k - 1].to_vec(),
            sds: theta[2 * k - 1..3 * k - 1]
                .iter()
                .map(|v| v.exp())
                .collect(),
        }
    }

    /// θ of this mixture (the inverse of [`Mixture::from_theta`]).
    pub fn theta(&self) -> Vec<f64> {
        let k = self.k();
        let last = self.weights[k - 1].ln();
        let mut t: Vec<f64> = self.weights[..k - 1]
            .iter()
            .map(|w| w.ln() - last)
            .collect();
        t.extend(&self.means);
        t.extend(self.sds.iter().map(|s| s.ln()));
        t
    }

    /// Per component: (ln w_j − ln σ_j − ln √(2π), 1/σ_j, μ_j) — what both engines use.
    pub fn terms(&self) -> Vec<(f64, f64, f64)> {
        (0..self.k())
            .map(|j| {
                (
                    self.weights[j].ln() - self.sds[j].ln() - LN_SQRT_2PI,
                    1.0 / self.sds[j],
                    self.means[j],
                )
            })
            .collect()
    }

    /// The density at x.
    pub fn density(&self, x: f64) -> f64 {
        self.terms()
            .iter()
            .map(|(a, inv, mu)| {
                let z = (x - mu) * inv;
                (a - 0.5 * z * z).exp()
            })
            .sum()
    }
}

/// ln Σ_j exp(a_j − ½((x − μ_j)/σ_j)²): one observation's log-density, stable.
pub fn log_density(terms: &[(f64, f64, f64)], x: f64) -> f64 {
    let mut m = f64::NEG_INFINITY;
    for (a, inv, mu) in terms {
        let z = (x - mu) * inv;
        m = m.max(a - 0.5 * z * z);
    }
    let s: f64 = terms
        .iter()
        .map(|(a, inv, mu)| {
            let z = (x - mu) * inv;
            (a - 0.5 * z * z - m).exp()
        })
        .sum();
    m + s.ln()
}

/// Where the log-likelihood is evaluated.
pub trait Loglik {
    /// Σ_i ln f(x_i) of `mix` over the data.
    fn loglik(&self, mix: &Mixture) -> Result<f64, String>;
}

impl Loglik for Data {
    fn loglik(&self, mix: &Mixture) -> Result<f64, String> {
        Ok(Data::loglik(self, mix))
    }
}

/// One fit: k, its maximum ln L, BIC, the parameters, Nelder–Mead's iterations.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit {
    /// Components.
    pub components: usize,
    /// Maximum log-likelihood found.
    pub loglik: f64,
    /// −2 ln L + (3k − 1) ln n.
    pub bic: f64,
    /// Weights.
    pub weights: Vec<f64>,
    /// Means.
    pub means: Vec<f64>,
    /// Standard deviations.
    pub sds: Vec<f64>,
    /// Nelder–Mead iterations of the best start.
    pub iterations: u64,
    /// Log-likelihood evaluations over all starts.
    pub evaluations: u64,
    /// Starts searched: the three fixed ones, and for k > 1 the best fit of k − 1 with its
    /// heaviest component split in two (so that ln L never falls as k grows).
    pub starts: usize,
    /// Starts whose optimum is within [`AGREEING_LOGLIK`] of the best ln L: how sure the
    /// search is that it found the maximum (all agreeing: likely; one alone: a lucky start).
    pub starts_agreeing: usize,
}

/// Two starts agree when their maxima of ln L differ by less than this.
pub const AGREEING_LOGLIK: f64 = 0.01;

impl Mixture {
    /// This mixture with component j split into two equal halves (half its weight each,
    /// its mean and sd): the same density, so a fit of k + 1 started here begins at the
    /// likelihood of this k-component fit and can only rise from it.
    pub fn split(&self, j: usize) -> Self {
        let mut m = self.clone();
        m.weights[j] /= 2.0;
        m.weights.push(m.weights[j]);
        m.means.push(m.means[j]);
        m.sds.push(m.sds[j]);
        m
    }
}

/// The objective's value for a mixture it cannot use (a zero weight, a degenerate sd, a
/// likelihood that is not finite): larger than any real mean negative log-likelihood, so
/// Nelder–Mead moves away from it, and refused if it is all a fit reaches.
const UNUSABLE: f64 = 1e300;

/// Evaluations between two progress reports.
const PROGRESS_EVERY: usize = 64;

/// The optimizer's objective: the mean negative log-likelihood of θ, or [`UNUSABLE`] for a
/// component narrower than `min_sd`, a zero weight or a likelihood that is not finite.
fn cost(engine: &dyn Loglik, theta: &[f64], k: usize, n: f64, min_sd: f64) -> Result<f64, String> {
    let mix = Mixture::from_theta(theta, k);
    // NaN fails both tests, so it is refused too
    let usable_sd = |s: f64| s >= min_sd && s.is_finite();
    let usable_weight = |w: f64| w > 1e-300;
    if !mix.sds.iter().all(|&s| usable_sd(s)) || !mix.weights.iter().all(|&w| usable_weight(w)) {
        return Ok(UNUSABLE);
    }
    let c = -engine.loglik(&mix)? / n;
    Ok(if c.is_finite() { c } else { UNUSABLE })
}

/// One k's fit in progress: Nelder–Mead from each start in turn, a given number of
/// evaluations at a time ([`KFit::step`]), so that a caller can stop between any two (the
/// window's frame) — [`fit_k`] runs it to the end.
pub struct KFit {
    k: usize,
    n: f64,
    sd: f64,
    search: Search,
    starts: std::vec::IntoIter<Mixture>,
    running: Option<NelderMead>,
    /// Best cost after each evaluation of the start in progress (the live plot).
    best_costs: Vec<f64>,
    /// The best over finished starts: (cost, θ, iterations).
    best: Option<(f64, Vec<f64>, u64)>,
    /// Each finished start's best cost.
    start_costs: Vec<f64>,
    evaluations: u64,
}

impl KFit {
    /// The fit of k components to `data` (in standard units) from the fixed starts, not
    /// yet begun.
    pub fn new(data: &Data, k: usize, search: Search) -> Self {
        Self::after(data, k, search, None)
    }

    /// As [`KFit::new`], and when `previous` is the fit of k − 1 components to the same
    /// data, also from it with its heaviest component split ([`Mixture::split`]): ln L of
    /// k is then at least that of k − 1.
    pub fn after(data: &Data, k: usize, search: Search, previous: Option<&Fit>) -> Self {
        let mut from = starts(data, k);
        if let Some(p) = previous.filter(|p| p.components + 1 == k && k > 1) {
            let heaviest = (0..p.weights.len())
                .max_by(|&a, &b| p.weights[a].total_cmp(&p.weights[b]))
                .unwrap_or(0);
            let mixture = Mixture {
                weights: p.weights.clone(),
                means: p.means.clone(),
                sds: p.sds.clone(),
            };
            from.push(mixture.split(heaviest));
        }
        Self {
            k,
            n: data.n() as f64,
            sd: data.moments().1,
            search,
            starts: from.into_iter(),
            running: None,
            best_costs: Vec::new(),
            best: None,
            start_costs: Vec::new(),
            evaluations: 0,
        }
    }

    /// Components.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Runs up to `evaluations` log-likelihood evaluations with `engine`; `progress`
    /// receives, every few evaluations, the best mean negative log-likelihood after each
    /// evaluation of the start in progress. Returns whether evaluations remain.
    pub fn step(
        &mut self,
        engine: &dyn Loglik,
        evaluations: u64,
        progress: &mut dyn FnMut(&[f64]),
    ) -> Result<bool, String> {
        let min_sd = self.sd * 1e-4;
        for _ in 0..evaluations {
            if self.running.as_ref().is_none_or(|nm| nm.ask().is_none()) {
                self.finish_start();
                let Some(start) = self.starts.next() else {
                    return Ok(false);
                };
                self.running = Some(self.minimization(&start));
                self.best_costs.clear();
            }
            let Some(nm) = self.running.as_mut() else {
                return Ok(false);
            };
            let Some(theta) = nm.ask() else { continue };
            let c = cost(engine, theta, self.k, self.n, min_sd)
                .map_err(|e| format!("k = {}: {e}", self.k))?;
            nm.tell(c);
            self.evaluations += 1;
            let last = self.best_costs.last().copied().unwrap_or(f64::INFINITY);
            self.best_costs.push(last.min(c));
            if self.best_costs.len().is_multiple_of(PROGRESS_EVERY) {
                progress(&self.best_costs);
            }
        }
        Ok(true)
    }

    /// Nelder–Mead from `start`: the initial simplex steps 0.5 in every logit and log sd
    /// and 0.1·sd in every mean.
    fn minimization(&self, start: &Mixture) -> NelderMead {
        let k = self.k;
        let t0 = start.theta();
        let dims = t0.len();
        let mut simplex = vec![t0.clone()];
        for i in 0..dims {
            let mut v = t0.clone();
            v[i] += if (k - 1..2 * k - 1).contains(&i) {
                0.1 * self.sd
            } else {
                0.5
            };
            simplex.push(v);
        }
        NelderMead::new(
            simplex,
            self.search.iterations_per_parameter * dims as u64,
            1e-12,
        )
    }

    /// Keeps the finished start's result if it is the best so far.
    fn finish_start(&mut self) {
        if let Some(nm) = self.running.take() {
            let (theta, c) = nm.best();
            self.start_costs.push(c);
            if self.best.as_ref().is_none_or(|b| c < b.0) {
                self.best = Some((c, theta.to_vec(), nm.iterations()));
            }
        }
    }

    /// The fit, once [`KFit::step`] has returned false.
    pub fn finish(mut self) -> Result<Fit, String> {
        self.finish_start();
        let k = self.k;
        let Some((cost, theta, iterations)) = self.best else {
            return Err(format!("k = {k}: no start to fit from"));
        };
        // the objective's stand-in for an unusable mixture is never a result
        if cost >= UNUSABLE {
            return Err(format!(
                "k = {k}: no start reached a finite likelihood (values this far apart or this close, relative to their spread, are beyond the fit's floating point: rescale the data)"
            ));
        }
        let mix = Mixture::from_theta(&theta, k);
        let loglik = -cost * self.n;
        let agreeing = self
            .start_costs
            .iter()
            .filter(|&&c| (c - cost) * self.n < AGREEING_LOGLIK)
            .count();
        Ok(Fit {
            components: k,
            loglik,
            bic: -2.0 * loglik + (3 * k - 1) as f64 * self.n.ln(),
            weights: mix.weights,
            means: mix.means,
            sds: mix.sds,
            iterations,
            evaluations: self.evaluations,
            starts: self.start_costs.len(),
            starts_agreeing: agreeing,
        })
    }
}

/// How a fit is searched.
#[derive(Clone, Copy, Debug)]
pub struct Search {
    /// Nelder–Mead iterations per start, per free parameter.
    pub iterations_per_parameter: u64,
}

impl Default for Search {
    fn default() -> Self {
        Self {
            iterations_per_parameter: 300,
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

/// Fits k components with `engine`'s log-likelihood: Nelder–Mead from every start
/// ([`KFit`]), keeping the best. `progress` receives, every few evaluations, the best mean
/// negative log-likelihood after each evaluation of the start in progress (the app's live
/// plot).
pub fn fit_k(
    data: &Data,
    engine: &dyn Loglik,
    k: usize,
    search: Search,
    progress: &mut dyn FnMut(&[f64]),
) -> Result<Fit, String> {
    fit_k_after(data, engine, k, search, None, progress)
}

/// [`fit_k`], also from the fit of k − 1 components with a component split ([`KFit::after`]).
pub fn fit_k_after(
    data: &Data,
    engine: &dyn Loglik,
    k: usize,
    search: Search,
    previous: Option<&Fit>,
    progress: &mut dyn FnMut(&[f64]),
) -> Result<Fit, String> {
    let mut fit = KFit::after(data, k, search, previous);
    while fit.step(engine, u64::MAX, progress)? {}
    fit.finish()
}

/// Fits every k in `ks`; the BIC choice is the fit with the smallest BIC.
pub fn fit_all(
    data: &Data,
    engine: &dyn Loglik,
    ks: std::ops::RangeInclusive<usize>,
    search: Search,
) -> Result<Vec<Fit>, String> {
    let mut fits: Vec<Fit> = Vec::new();
    for k in ks {
        let f = fit_k_after(data, engine, k, search, fits.last(), &mut |_| {})?;
        fits.push(f);
    }
    Ok(fits)
}

/// The k that BIC chooses among `fits` (the smallest BIC; the fewer components on a tie).
pub fn chosen(fits: &[Fit]) -> Option<usize> {
    fits.iter()
        .min_by(|a, b| {
            a.bic
                .total_cmp(&b.bic)
                .then(a.components.cmp(&b.components))
        })
        .map(|f| f.components)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theta_round_trips_and_the_density_integrates_to_one() {
        let m = Mixture {
            weights: vec![0.2, 0.5, 0.3],
            means: vec![-1.0, 0.5, 3.0],
            sds: vec![0.5, 1.0, 0.25],
        };
        let back = Mixture::from_theta(&m.theta(), 3);
        for (a, b) in m.weights.iter().zip(&back.weights) {
            assert!((a - b).abs() < 1e-15);
        }
        assert_eq!(back.means, m.means);
        // Riemann sum over ±10 sd
        let h = 1e-3;
        let total: f64 = (0..20_000)
            .map(|i| m.density(-8.0 + i as f64 * h) * h)
            .sum();
        assert!((total - 1.0).abs() < 1e-6, "{total}");
        // the stable log-density is the log of the density
        for x in [-3.0, 0.0, 0.7, 3.1] {
            assert!((log_density(&m.terms(), x) - m.density(x).ln()).abs() < 1e-12);
        }
    }
}

/// A sample moved to mean 0 and standard deviation 1 before it is fitted, and the way
/// back: values of 1e300 or 1e-300 (or a spread tiny beside the values) are beyond the
/// likelihood's floating point as they are, and the GPU's f32 loses digits well before
/// that. The fit is equivariant, so only rounding changes for ordinary data.
#[derive(Clone, Debug, PartialEq)]
pub struct Standardized {
    /// The sample in standard units.
    pub data: Data,
    /// The original mean.
    pub center: f64,
    /// ln of the original standard deviation (kept as a logarithm: it may be 1e-300).
    pub ln_scale: f64,
}

impl Standardized {
    /// `data` in standard units. The moments are taken after dividing by the largest
    /// magnitude, so that squares of 1e300 never overflow.
    pub fn of(data: &Data) -> Self {
        let largest = data.values.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let unit = if largest > 0.0 { largest } else { 1.0 };
        let shrunk = Data {
            values: data.values.iter().map(|x| x / unit).collect(),
            counts: data.counts.clone(),
        };
        let (mean, sd) = shrunk.moments();
        let sd = if sd > 0.0 { sd } else { 1.0 };
        Self {
            data: Data {
                values: shrunk.values.iter().map(|y| (y - mean) / sd).collect(),
                counts: data.counts.clone(),
            },
            center: mean * unit,
            ln_scale: sd.ln() + unit.ln(),
        }
    }

    /// A log-likelihood of the standard units as one of the original data (the
    /// Jacobian: n · ln σ).
    pub fn loglik(&self, standard: f64) -> f64 {
        standard - self.data.n() as f64 * self.ln_scale
    }

    /// `fit` (of the standard units) in the original units: means and sds moved back, the
    /// log-likelihood and BIC of the original data.
    pub fn original(&self, fit: Fit) -> Fit {
        let scale = self.ln_scale.exp();
        let n = self.data.n() as f64;
        let loglik = self.loglik(fit.loglik);
        let dims = 3 * fit.components - 1;
        Fit {
            loglik,
            bic: -2.0 * loglik + dims as f64 * n.ln(),
            means: fit.means.iter().map(|m| self.center + m * scale).collect(),
            sds: fit.sds.iter().map(|s| s * scale).collect(),
            ..fit
        }
    }
}

/// The shipped data set's name (`pdes-lab fit cheng2014-lgd`): [`Data::synthetic_lgd`] of
/// paper 003's size.
pub const BUILTIN_LGD: &str = "cheng2014-lgd";

/// A fit of k = 1..=K as the command line and the app report it.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Observations.
    pub n: u64,
    /// Distinct values.
    pub distinct: usize,
    /// "cpu" or "gpu": where the log-likelihood was evaluated.
    pub engine: &'static str,
    /// The k with the smallest BIC.
    pub chosen_components: usize,
    /// One fit per k.
    pub fits: Vec<Fit>,
    /// Wall-clock seconds for all fits.
    pub wall_seconds: f64,
}

/// Fits k in `ks` to `data`, evaluating the log-likelihood on `gpu` when given (f32) or on
/// the CPU (f64).
pub fn report(
    data: &Data,
    ks: std::ops::RangeInclusive<usize>,
    gpu: Option<std::sync::Arc<pdes_gpu::Gpu>>,
    search: Search,
) -> Result<Report, String> {
    // a mixture of more components than distinct values only stacks spikes on them
    let distinct = data.values.len();
    if *ks.start() > distinct {
        return Err(format!(
            "--components: the data have {distinct} distinct values, fewer than the {} components asked for",
            ks.start()
        ));
    }
    let ks = *ks.start()..=(*ks.end()).min(distinct);
    let t0 = web_time::Instant::now();
    let standard = Standardized::of(data);
    let device;
    let engine: &dyn Loglik = match gpu {
        Some(g) => {
            device = gpu::GpuLoglik::new(g, &standard.data)?;
            &device
        }
        None => &standard.data,
    };
    let on_gpu = !std::ptr::addr_eq(engine, &standard.data as &dyn Loglik);
    let fits = fit_all(&standard.data, engine, ks, search)?
        .into_iter()
        .map(|f| standard.original(f))
        .collect::<Vec<_>>();
    Ok(Report {
        n: data.n(),
        distinct: data.values.len(),
        engine: if on_gpu { "gpu" } else { "cpu" },
        chosen_components: chosen(&fits).unwrap_or(0),
        fits,
        wall_seconds: t0.elapsed().as_secs_f64(),
    })
}
