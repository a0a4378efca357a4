//! Normal-mixture fitting by maximum likelihood (Cheng 2014, paper 003 §3): for each number
//! of components k, Nelder–Mead ([`nelder_mead`], ask and tell) on an unconstrained
//! parameterization — softmax weights (k − 1 free logits), means, log standard deviations —
//! from several deterministic starts, all advancing together ([`search`]); BIC = −2 ln L + (3k − 1) ln n picks k. The log-likelihood is the
//! only costly part and has two engines: f64 on the CPU ([`Data::loglik`]) and f32 on the
//! GPU ([`gpu::GpuLoglik`]).
//!
//! The data are kept as distinct values with their counts, summed in sorted order, and the
//! optimizer minimizes the *mean* negative log-likelihood: a sample repeated 2× or 4× then
//! gives exactly the same costs (each term is scaled by a power of two, which is exact), so
//! the same Nelder–Mead path, the same parameters and exactly 2× or 4× the ln L.

#[cfg(not(target_arch = "wasm32"))]
pub mod background;
pub mod blocks;
pub mod cores;
pub mod data;
pub mod device;
pub mod device_fits;
pub mod gpu;
mod ksearch;
#[cfg(not(target_arch = "wasm32"))]
pub mod lanes;
pub mod nelder_mead;
pub mod search;
#[cfg(not(target_arch = "wasm32"))]
pub mod spin_pool;
pub mod verify;

pub use data::Data;
pub use nelder_mead::NelderMead;
pub use search::{Fits, Search, SearchLoop, fit_all, fit_k, starts};
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

/// Where the log-likelihood is evaluated: many mixtures in one pass over the data (a fit's
/// round, [`Fits`]), each exactly as it would be alone.
pub trait Loglik {
    /// Σ_i ln f(x_i) over the data of every mixture in `mixes`, in their order.
    fn logliks(&self, mixes: &[Mixture]) -> Result<Vec<f64>, String>;

    /// Whether a fit's round should also ask for points it may not need (an iteration's
    /// expansion and contraction with its reflection): worth it where a round's fixed cost
    /// (a GPU's submit and readback, ~75 µs) dwarfs a point's, not where every point costs
    /// the same cores' time (the CPU).
    fn speculate(&self) -> bool;

    /// Σ_i ln f(x_i) of `mix` over the data.
    fn loglik(&self, mix: &Mixture) -> Result<f64, String> {
        self.logliks(std::slice::from_ref(mix))?
            .pop()
            .ok_or_else(|| "the log-likelihood gave no value".to_string())
    }
}

impl Loglik for Data {
    fn logliks(&self, mixes: &[Mixture]) -> Result<Vec<f64>, String> {
        Ok(Data::logliks(self, mixes))
    }

    fn speculate(&self) -> bool {
        false
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
    /// Where Nelder–Mead's iterations ran: "host" (in rounds, each evaluating every point
    /// the searches of all k asked for) or "device" (each minimization a workgroup that
    /// runs to its end: [`device`]).
    pub iterated_on: &'static str,
    /// Round trips to the evaluator: on the host, rounds (passes over the data, on the GPU
    /// one dispatch and one readback each); on the device, dispatches (one, then one per k
    /// after the first).
    pub rounds: u64,
    /// Wall-clock seconds for all fits.
    pub wall_seconds: f64,
}

/// The fits of every k in `ks` to `data` (in standard units) by the host's search in rounds,
/// each round evaluated by `engine`; and the rounds it took.
fn search_in_rounds(
    data: &Data,
    engine: &dyn Loglik,
    ks: std::ops::RangeInclusive<usize>,
    search: Search,
) -> Result<(u64, Vec<Fit>), String> {
    let mut fits = Fits::new(data, ks, search, engine);
    while fits.step(engine, u64::MAX)? {}
    Ok((fits.rounds(), fits.into_fits()?))
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
    let on_device = gpu
        .as_ref()
        .is_some_and(|g| device::chosen_for(g, standard.data.values.len(), search.iterate_on));
    let (rounds, fits, on_gpu) = match gpu {
        Some(g) if on_device => {
            let mut search = device_fits::DeviceFits::new(g, &standard.data, ks, search)?;
            while search.step()? {}
            (search.rounds(), search.into_fits()?, true)
        }
        Some(g) => {
            let device = gpu::GpuLoglik::new(g, &standard.data)?;
            let (rounds, fits) = search_in_rounds(&standard.data, &device, ks, search)?;
            (rounds, fits, true)
        }
        None => {
            // the chain's rounds and the other searches' batches on every core ([`lanes`]),
            // this thread among them; in rounds where the pool has no lane to give
            let data = &standard.data;
            let mut fits = Fits::new(data, ks, search, data);
            #[cfg(not(target_arch = "wasm32"))]
            let done = lanes::finish(&mut fits, data)?;
            #[cfg(target_arch = "wasm32")]
            let done = false;
            while !done && fits.step(data, u64::MAX)? {}
            (fits.rounds(), fits.into_fits()?, false)
        }
    };
    let fits = fits
        .into_iter()
        .map(|f| standard.original(f))
        .collect::<Vec<_>>();
    Ok(Report {
        n: data.n(),
        distinct: data.values.len(),
        engine: if on_gpu { "gpu" } else { "cpu" },
        iterated_on: if on_device { "device" } else { "host" },
        chosen_components: chosen(&fits).unwrap_or(0),
        fits,
        rounds,
        wall_seconds: t0.elapsed().as_secs_f64(),
    })
}
