//! The CPU's log-likelihood of a run of values, a block of values at a time: per block, each
//! value's exponents over the components in base 2, y_j = (a_j − ½((x − μ_j)/σ_j)²)·log₂e
//! (stored, with their largest m), then Σ_j 2^(y_j − m) and one logarithm per value:
//! ln f(x) = m ln 2 + ln Σ. Each loop runs over the block's values so that the compiler
//! keeps 2, 4 or 8 of them in one vector register (SSE2, AVX2, AVX-512, chosen at run time).
//! A component below 2⁻⁶⁴ of every value's largest term over the whole block (bounded from
//! the block's range alone, `NEGLIGIBLE`) is left out of both passes: each of its terms is
//! less than a double's half ulp of the sum.
//!
//! The power of two and the logarithm are polynomials of plain IEEE operations (no libm, no
//! fused multiply-add): the same bits on every machine and every vector width, within two
//! ulps of libm's (the logarithm near 1: within two ulps of 1). The run's sum goes to
//! [`LANES`] partial sums by the value's position modulo [`LANES`], added in one fixed tree
//! at the end — again the same order whatever the vector width. bench/NOTES.md, "The CPU fit
//! in blocks", has the design and the figures (a term cost ~11 ns with libm's scalar `exp`
//! and `ln`; ~1.1 ns so at k = 10).

use super::Mixture;
use std::f64::consts::{LN_2, LOG2_E};

/// Values per block: the two passes over the components read a block's values from L1.
const BLOCK: usize = 64;
/// Partial sums of a run (a multiple of every vector width used; BLOCK is a multiple of it).
pub const LANES: usize = 8;

/// A mixture's components as the block sums read them, in base 2: per component
/// a_j·log₂e (a_j = ln w_j − ln σ_j − ln √(2π)), log₂e/(2σ_j²) and μ_j, each in its own
/// array.
#[derive(Clone, Debug)]
pub struct Components {
    a: Vec<f64>,
    h: Vec<f64>,
    mu: Vec<f64>,
}

impl Components {
    /// The components of `mix` ([`Mixture::terms`]).
    pub fn of(mix: &Mixture) -> Self {
        let terms = mix.terms();
        Self {
            a: terms.iter().map(|t| t.0 * LOG2_E).collect(),
            h: terms.iter().map(|t| 0.5 * t.1 * t.1 * LOG2_E).collect(),
            mu: terms.iter().map(|t| t.2).collect(),
        }
    }

    /// How many components.
    pub fn k(&self) -> usize {
        self.a.len()
    }
}

/// Σ_i count_i · ln f(x_i) over `values` and their `counts` (the shorter length of the two):
/// the same bits on every machine ([`self`]).
pub fn weighted_loglik(c: &Components, values: &[f64], counts: &[u64]) -> f64 {
    weighted_loglik_pausing(c, values, counts, &mut || {})
}

/// Terms between two calls of [`weighted_loglik_pausing`]'s `pause` (~1–2 µs of one core).
pub const PAUSE_TERMS: usize = 1024;

/// [`weighted_loglik`], calling `pause` after each block once [`PAUSE_TERMS`] terms have
/// passed since the last call: a background task lets its thread run a round's tasks
/// there (`super::lanes`), in the middle of its sum, which it then takes up unchanged.
pub fn weighted_loglik_pausing(
    c: &Components,
    values: &[f64],
    counts: &[u64],
    pause: &mut dyn FnMut(),
) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has just been found to have AVX-512F
            return unsafe { sum_avx512(c, values, counts, pause) };
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has just been found to have AVX2
            return unsafe { sum_avx2(c, values, counts, pause) };
        }
    }
    sum_blocks(c, values, counts, pause)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn sum_avx512(c: &Components, values: &[f64], counts: &[u64], pause: &mut dyn FnMut()) -> f64 {
    sum_blocks(c, values, counts, pause)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sum_avx2(c: &Components, values: &[f64], counts: &[u64], pause: &mut dyn FnMut()) -> f64 {
    sum_blocks(c, values, counts, pause)
}

/// [`weighted_loglik_pausing`] for whatever vector width the caller was compiled for.
#[inline(always)]
fn sum_blocks(c: &Components, values: &[f64], counts: &[u64], pause: &mut dyn FnMut()) -> f64 {
    let k = c.k();
    let mut since_pause = 0usize;
    let mut partial = [0.0f64; LANES];
    let mut most = [0.0f64; BLOCK];
    let mut sum = [0.0f64; BLOCK];
    // the block's exponents, component after component (those it keeps: `active`)
    let mut exponents = vec![0.0f64; k * BLOCK];
    let mut active: Vec<usize> = Vec::with_capacity(k);
    for (xs, ns) in values.chunks(BLOCK).zip(counts.chunks(BLOCK)) {
        let len = xs.len().min(ns.len());
        let (xs, ns) = (&xs[..len], &ns[..len]);
        let (most, sum) = (&mut most[..len], &mut sum[..len]);
        active_components(c, xs, &mut active);
        let rows = exponents.chunks_exact_mut(BLOCK).take(active.len());
        most.fill(f64::NEG_INFINITY);
        for (&j, ys) in active.iter().zip(rows) {
            let (a, h, mu) = (c.a[j], c.h[j], c.mu[j]);
            for ((y, m), x) in ys.iter_mut().zip(most.iter_mut()).zip(xs) {
                let d = x - mu;
                *y = a - d * d * h;
                *m = m.max(*y);
            }
        }
        sum.fill(0.0);
        for ys in exponents.chunks_exact(BLOCK).take(active.len()) {
            for ((s, m), y) in sum.iter_mut().zip(most.iter()).zip(ys) {
                *s += exp2_at_most_zero(y - m);
            }
        }
        // the block starts at a multiple of LANES, so lane l holds positions ≡ l (mod LANES)
        let whole = len - len % LANES;
        for ((n, m), s) in ns[..whole]
            .chunks_exact(LANES)
            .zip(most[..whole].chunks_exact(LANES))
            .zip(sum[..whole].chunks_exact(LANES))
        {
            for l in 0..LANES {
                partial[l] += weighted_ln_f(n[l], m[l], s[l]);
            }
        }
        for (l, i) in (whole..len).enumerate() {
            partial[l] += weighted_ln_f(ns[i], most[i], sum[i]);
        }
        since_pause += len * active.len().max(1);
        if since_pause >= PAUSE_TERMS {
            since_pause = 0;
            pause();
        }
    }
    ((partial[0] + partial[1]) + (partial[2] + partial[3]))
        + ((partial[4] + partial[5]) + (partial[6] + partial[7]))
}

/// count · ln f(x) of a value whose largest exponent (base 2) is `most` and whose terms
/// relative to it sum to `sum`: ln f = most · ln 2 + ln sum.
#[inline(always)]
fn weighted_ln_f(count: u64, most: f64, sum: f64) -> f64 {
    count as f64 * (most * LN_2 + ln_at_least_one(sum))
}

/// A component whose every term in a block is below 2^this of each value's largest term is
/// left out of the block: k such terms add < k · 2⁻⁶⁴ to a sum ≥ 1, below a double's half
/// ulp (2⁻⁵³) for any k up to 2¹⁰ (the shipped sample's fit came out the same field for
/// field with and without).
const NEGLIGIBLE: f64 = -64.0;

/// The components that matter somewhere in the block `xs` ([`NEGLIGIBLE`]), into `active`.
/// Over the block's range [lo, hi] a component's exponent a − h(x − μ)² is at most its
/// value at the nearest point to μ and at least its value at the farthest; every value's
/// largest term is at least the greatest of those least values (`floor`), so a component
/// whose greatest falls 64 below `floor` is below 2⁻⁶⁴ of every value's largest.
#[inline(always)]
fn active_components(c: &Components, xs: &[f64], active: &mut Vec<usize>) {
    let (lo, hi) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    let near = |mu: f64| (lo - mu).max(mu - hi).max(0.0);
    let far = |mu: f64| (mu - lo).abs().max((hi - mu).abs());
    let floor = (0..c.k())
        .map(|j| c.a[j] - far(c.mu[j]).powi(2) * c.h[j])
        .fold(f64::NEG_INFINITY, f64::max);
    active.clear();
    active.extend(
        (0..c.k()).filter(|&j| c.a[j] - near(c.mu[j]).powi(2) * c.h[j] >= floor + NEGLIGIBLE),
    );
}

/// 1.5 · 2⁵²: added to a number of magnitude below 2⁵¹, rounds it to a whole number
/// (to nearest, ties to even) held in the low bits of the sum's mantissa.
const ROUNDER: f64 = 6_755_399_441_055_744.0;
/// ln 2 in two parts (fdlibm's): the first with 32 trailing zero bits, so that k · LN2_HI is
/// exact for any |k| < 2²⁰.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
/// ln 2 − LN2_HI.
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);

/// 2^t for t ≤ 0 (and −∞); below −1021 (where 2^t < 4.5·10⁻³⁰⁸, nothing against the
/// block's largest term, 1) it gives 2^−1021. t = k + f with k whole and |f| ≤ ½ (exact),
/// 2^f = e^(f ln 2) by its Taylor series to the 13th power (the rest below 5·10⁻¹⁸), 2^k
/// written into the exponent's bits.
#[inline(always)]
pub fn exp2_at_most_zero(t: f64) -> f64 {
    let t = t.max(-1021.0);
    let shifted = t + ROUNDER;
    let k = shifted - ROUNDER;
    let f = t - k;
    // Σ (f ln 2)^i / i!, i ≤ 13, by Estrin's scheme: a chain of 5 dependent steps, not 13
    let c = |i: usize| POWERS_OF_LN2[i] / FACTORIALS[i];
    let (f2, q0, q1) = (f * f, 1.0 + c(1) * f, c(2) + c(3) * f);
    let (f4, q2, q3) = (f2 * f2, c(4) + c(5) * f, c(6) + c(7) * f);
    let (q4, q5, q6) = (c(8) + c(9) * f, c(10) + c(11) * f, c(12) + c(13) * f);
    let (s0, s1, s2) = (q0 + q1 * f2, q2 + q3 * f2, q4 + q5 * f2);
    let p = (s0 + s1 * f4) + (s2 + q6 * f4) * (f4 * f4);
    // k's low 12 bits, two's complement, shifted into the exponent field with its bias
    let two_to_k = f64::from_bits((shifted.to_bits() << 52).wrapping_add(1023u64 << 52));
    p * two_to_k
}

/// (ln 2)^i for i = 0..=13.
const POWERS_OF_LN2: [f64; 14] = {
    let mut p = [1.0; 14];
    let mut i = 1;
    while i < 14 {
        p[i] = p[i - 1] * LN_2;
        i += 1;
    }
    p
};

/// 0!, 1!, …, 13!.
const FACTORIALS: [f64; 14] = [
    1.0,
    1.0,
    2.0,
    6.0,
    24.0,
    120.0,
    720.0,
    5_040.0,
    40_320.0,
    362_880.0,
    3_628_800.0,
    39_916_800.0,
    479_001_600.0,
    6_227_020_800.0,
];

/// √2.
const SQRT_2: f64 = std::f64::consts::SQRT_2;

/// ln s for 1 ≤ s < 2¹⁰²³ (a sum of exponentials whose largest is 1): s = 2^e · f with
/// √½ ≤ f < √2, ln f = 2 atanh u, u = (f − 1)/(f + 1) (|u| ≤ 0.172), by its series to u²³.
#[inline(always)]
pub fn ln_at_least_one(s: f64) -> f64 {
    let bits = s.to_bits();
    // the biased exponent as a double, without an integer conversion: 2⁵² + field − 2⁵²
    let field = f64::from_bits((bits >> 52) | (0x4330u64 << 48)) - 4_503_599_627_370_496.0;
    let f = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    let above = f > SQRT_2;
    let f = if above { 0.5 * f } else { f };
    let e = field - 1023.0 + if above { 1.0 } else { 0.0 };
    let u = (f - 1.0) / (f + 1.0);
    let u2 = u * u;
    // Σ u^2i / (2i + 1), i ≤ 11, by Estrin's scheme (5 dependent steps)
    let (u4, c) = (u2 * u2, |i: u32| 1.0 / f64::from(2 * i + 1));
    let (u8, q0, q1) = (u4 * u4, 1.0 + c(1) * u2, c(2) + c(3) * u2);
    let (q2, q3, q4) = (c(4) + c(5) * u2, c(6) + c(7) * u2, c(8) + c(9) * u2);
    let q5 = c(10) + c(11) * u2;
    let (s0, s1, s2) = (q0 + q1 * u4, q2 + q3 * u4, q4 + q5 * u4);
    let p = (s0 + s1 * u8) + s2 * (u8 * u8);
    e * LN2_HI + (e * LN2_LO + 2.0 * u * p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::{Data, log_density};

    #[test]
    fn the_power_of_two_is_within_two_ulps_of_libms_down_to_minus_1021() {
        let mut t = 0.0f64;
        while t > -1021.0 {
            let (ours, libm) = (exp2_at_most_zero(t), t.exp2());
            assert!(
                (ours - libm).abs() <= 2.0 * f64::EPSILON * libm,
                "2^{t}: {ours} against {libm}"
            );
            t -= 0.000_731_3;
        }
        assert_eq!(exp2_at_most_zero(0.0), 1.0);
        assert_eq!(exp2_at_most_zero(-3.0), 0.125);
        assert_eq!(exp2_at_most_zero(f64::NEG_INFINITY), (-1021.0f64).exp2());
    }

    #[test]
    fn the_logarithm_is_within_two_ulps_of_libms_or_of_one_from_one_to_a_million() {
        let mut s = 1.0f64;
        while s < 1e6 {
            let (ours, libm) = (ln_at_least_one(s), s.ln());
            assert!(
                (ours - libm).abs() <= 2.0 * f64::EPSILON * libm.max(1.0),
                "ln {s}: {ours} against {libm}"
            );
            s *= 1.000_113;
        }
        assert_eq!(ln_at_least_one(1.0), 0.0);
    }

    fn five_components() -> Mixture {
        Mixture {
            weights: vec![0.3, 0.2, 0.2, 0.15, 0.15],
            means: vec![0.05, 0.25, 0.5, 0.75, 0.95],
            sds: vec![0.03, 0.06, 0.08, 0.06, 0.03],
        }
    }

    #[test]
    fn a_run_sums_what_libm_sums_to_within_rounding() {
        let data = Data::synthetic_lgd(1_001);
        let mix = five_components();
        let terms = mix.terms();
        let libm: f64 = data
            .values
            .iter()
            .zip(&data.counts)
            .map(|(x, n)| *n as f64 * log_density(&terms, *x))
            .sum();
        let ours = weighted_loglik(&Components::of(&mix), &data.values, &data.counts);
        assert!(
            (ours - libm).abs() < 1e-11 * libm.abs(),
            "{ours} against {libm}"
        );
    }

    #[test]
    fn a_component_far_from_a_whole_block_is_left_out_and_one_near_any_value_is_kept() {
        let c = Components::of(&Mixture {
            weights: vec![0.5, 0.5],
            means: vec![0.0, 5.0],
            sds: vec![0.01, 0.01],
        });
        let mut active = Vec::new();
        active_components(&c, &[0.0, 0.01, 0.05], &mut active);
        assert_eq!(active, [0]);
        active_components(&c, &[4.98, 5.02], &mut active);
        assert_eq!(active, [1]);
        // one value near each: both matter somewhere in the block
        active_components(&c, &[0.01, 4.99], &mut active);
        assert_eq!(active, [0, 1]);
        // half way, both terms are the same size
        active_components(&c, &[2.5], &mut active);
        assert_eq!(active, [0, 1]);
    }

    #[test]
    fn every_vector_width_gives_the_same_bits() {
        let data = Data::synthetic_lgd(3_333); // blocks and lanes with a remainder
        let c = Components::of(&five_components());
        let portable = sum_blocks(&c, &data.values, &data.counts, &mut || {});
        assert_eq!(
            weighted_loglik(&c, &data.values, &data.counts).to_bits(),
            portable.to_bits()
        );
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2
            let avx2 = unsafe { sum_avx2(&c, &data.values, &data.counts, &mut || {}) };
            assert_eq!(avx2.to_bits(), portable.to_bits());
        }
    }

    #[test]
    fn a_sum_that_pauses_is_the_same_sum_and_pauses_every_so_many_terms() {
        let data = Data::synthetic_lgd(2000);
        let mix = Mixture {
            weights: vec![0.3, 0.3, 0.4],
            means: vec![0.1, 0.5, 0.9],
            sds: vec![0.05, 0.1, 0.05],
        };
        let c = Components::of(&mix);
        let mut pauses = 0usize;
        let paused = weighted_loglik_pausing(&c, &data.values, &data.counts, &mut || pauses += 1);
        assert_eq!(
            paused.to_bits(),
            weighted_loglik(&c, &data.values, &data.counts).to_bits()
        );
        // at most 3 · 2,000 terms (fewer where a component is left out of a block)
        let most = 3 * data.values.len() / PAUSE_TERMS;
        assert!(pauses >= 1 && pauses <= most, "{pauses} pauses");
    }
}
