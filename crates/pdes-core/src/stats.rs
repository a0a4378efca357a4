//! The aggregate of a sweep point over its seeds: for every numeric summary field, the mean
//! and the half-width of a 95% confidence interval (Student t with n − 1 degrees of
//! freedom, from statrs; none for a single seed).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Mean and 95% confidence half-width of one field at one point.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// Mean over the seeds.
    pub mean: f64,
    /// Half-width of the 95% confidence interval (None with one seed).
    pub ci95: Option<f64>,
}

/// The estimate of `xs` (at least one value).
pub fn estimate(xs: &[f64]) -> Estimate {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return Estimate { mean, ci95: None };
    }
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    Estimate {
        mean,
        ci95: Some(half_width95(var, n)),
    }
}

/// The half-width of a 95% interval of the mean of `n` ≥ 2 values of sample variance
/// `var`: Student t's 97.5% point with n − 1 degrees of freedom times √(var / n).
pub fn half_width95(var: f64, n: f64) -> f64 {
    let t = StudentsT::new(0.0, 1.0, n - 1.0)
        .map(|d| d.inverse_cdf(0.975))
        .unwrap_or(f64::NAN);
    t * (var / n).sqrt()
}

/// Estimates of every field that is a number in all of `runs` (summary maps), in the first
/// run's field order.
pub fn estimates(runs: &[&serde_json::Map<String, serde_json::Value>]) -> Vec<(String, Estimate)> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    first
        .keys()
        .filter_map(|k| {
            let xs: Option<Vec<f64>> = runs.iter().map(|r| r.get(k)?.as_f64()).collect();
            xs.map(|xs| (k.clone(), estimate(&xs)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_is_students_t_and_absent_for_one_seed() {
        assert_eq!(estimate(&[3.0]).ci95, None);
        // n = 4, s = 1.2909944, t(0.975, 3) = 3.1824463
        let e = estimate(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(e.mean, 2.5);
        let want = 3.182_446_305_284_263 * (1.666_666_666_666_666_7f64 / 4.0).sqrt();
        assert!((e.ci95.unwrap() - want).abs() < 1e-9, "{e:?}");
    }
}
