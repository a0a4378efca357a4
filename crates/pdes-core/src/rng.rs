//! Counter-based random numbers: Philox4x32-10 (Salmon et al., "Parallel random numbers:
//! as easy as 1, 2, 3", SC'11) and the explicit integer transforms the engines use.
//!
//! Every random quantity of the torus model is a pure function of `(seed, token, visit)`:
//! the key is `(token, seed_lo)` and the counter `(visit, 0, seed_hi, 0)`. One Philox call
//! yields four words; word 0 draws the service time, word 1 the routing direction
//! (the "purpose" is the word index). `shaders/philox.wgsl` computes the same words bit for
//! bit, and the transforms below use only integer arithmetic so the GPU cannot round them
//! differently (floating-point `ln` and fused multiply-adds differ between devices).

const PHILOX_M0: u32 = 0xD251_1F53;
const PHILOX_M1: u32 = 0xCD9E_8D57;
const PHILOX_W0: u32 = 0x9E37_79B9;
const PHILOX_W1: u32 = 0xBB67_AE85;

/// The Philox4x32 bijection with 10 rounds.
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let mut c = counter;
    let mut k = key;
    for round in 0..10 {
        if round > 0 {
            k[0] = k[0].wrapping_add(PHILOX_W0);
            k[1] = k[1].wrapping_add(PHILOX_W1);
        }
        let p0 = u64::from(PHILOX_M0) * u64::from(c[0]);
        let p1 = u64::from(PHILOX_M1) * u64::from(c[2]);
        let (hi0, lo0) = ((p0 >> 32) as u32, p0 as u32);
        let (hi1, lo1) = ((p1 >> 32) as u32, p1 as u32);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
    }
    c
}

/// The four random words of one visit of one token.
#[inline]
pub fn token_words(seed: u64, token: u32, visit: u32) -> [u32; 4] {
    philox4x32_10([visit, 0, (seed >> 32) as u32, 0], [token, seed as u32])
}

/// Index of the word that draws the service time.
pub const WORD_SERVICE: usize = 0;
/// Index of the word that draws the routing direction.
pub const WORD_ROUTE: usize = 1;

/// Fractional bits of the fixed-point value returned by [`neg_ln_q27`].
pub const NEG_LN_FRAC_BITS: u32 = 27;
/// ln 2 in Q5.27.
pub const LN2_Q27: u32 = 93_032_640;
/// Segments of the piecewise-linear ln(m) table over the mantissa m in [1, 2).
pub const LN_TABLE_SEGMENTS: usize = 1024;

/// `LN_TABLE[i] = round(ln(1 + i/1024) * 2^27)`, i = 0..=1024. Built once with f64
/// arithmetic on the CPU; the WGSL twin receives exactly these integers.
pub static LN_TABLE: std::sync::LazyLock<[u32; LN_TABLE_SEGMENTS + 1]> =
    std::sync::LazyLock::new(|| {
        let mut t = [0u32; LN_TABLE_SEGMENTS + 1];
        for (i, v) in t.iter_mut().enumerate() {
            let m = 1.0 + i as f64 / LN_TABLE_SEGMENTS as f64;
            *v = (m.ln() * f64::from(1u32 << NEG_LN_FRAC_BITS)).round() as u32;
        }
        t
    });

/// `-ln(u)` in Q5.27 for `u = (2^32 - r) / 2^32`, a uniform on (0, 1]: the inverse CDF of
/// the unit exponential, computed with integers only. Absolute error below 2e-7
/// (piecewise-linear ln with 1024 segments); the result is at most 22.19 * 2^27 < 2^32.
#[inline]
pub fn neg_ln_q27(r: u32) -> u32 {
    if r == 0 {
        return 0; // u = 1
    }
    let v = r.wrapping_neg(); // 2^32 - r, in [1, 2^32 - 1]
    let e = 31 - v.leading_zeros(); // v = 2^e * m, m in [1, 2)
    let frac = (v << (31 - e)) & 0x7FFF_FFFF; // the 31 bits of m below its leading one
    let idx = (frac >> 21) as usize;
    let rem = (frac >> 6) & 0x7FFF; // 15 bits of position inside the segment
    let t = &*LN_TABLE;
    let ln_m = t[idx] + (((t[idx + 1] - t[idx]) * rem) >> 15);
    (32 - e) * LN2_Q27 - ln_m
}

/// Scales a Q5.27 unit-exponential draw by `scale_ticks`: `floor(x * scale / 2^27)`.
#[inline]
pub fn scale_q27(x_q27: u32, scale_ticks: u32) -> u64 {
    (u64::from(x_q27) * u64::from(scale_ticks)) >> NEG_LN_FRAC_BITS
}

/// A `rand_core` generator over the Philox stream of one key, for CPU-only uses (tests,
/// tools) that want `rand`'s distributions. The engines never use it: they call
/// [`token_words`] and the explicit transforms so that the GPU can match them.
#[derive(Clone, Debug)]
pub struct PhiloxRng {
    key: [u32; 2],
    counter: u64,
    buf: [u32; 4],
    used: usize,
}

impl PhiloxRng {
    /// A stream keyed by `key`, starting at counter 0.
    pub fn new(key: [u32; 2]) -> Self {
        Self {
            key,
            counter: 0,
            buf: [0; 4],
            used: 4,
        }
    }
}

impl rand_core::TryRng for PhiloxRng {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        if self.used == 4 {
            let c = self.counter;
            self.buf = philox4x32_10([c as u32, (c >> 32) as u32, 0, 0], self.key);
            self.counter += 1;
            self.used = 0;
        }
        self.used += 1;
        Ok(self.buf[self.used - 1])
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let lo = u64::from(self.try_next_u32()?);
        Ok(lo | (u64::from(self.try_next_u32()?) << 32))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(4) {
            let w = self.try_next_u32()?.to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known-answer vectors from Random123's kat_vectors (philox4x32, 10 rounds).
    #[test]
    fn philox_matches_random123_known_answers() {
        assert_eq!(
            philox4x32_10([0, 0, 0, 0], [0, 0]),
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
        );
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
        );
        assert_eq!(
            philox4x32_10(
                [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
                [0xa4093822, 0x299f31d0]
            ),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }

    #[test]
    fn neg_ln_is_close_to_f64_ln_everywhere() {
        let mut worst = 0.0f64;
        let mut r: u32 = 1;
        for i in 0..200_000u32 {
            // a spread of inputs including tiny and huge r
            r = r.wrapping_mul(1_664_525).wrapping_add(1_013_904_223) ^ i;
            let u = (4_294_967_296.0 - f64::from(r)) / 4_294_967_296.0;
            let exact = -u.ln();
            let got = f64::from(neg_ln_q27(r)) / f64::from(1u32 << 27);
            worst = worst.max((got - exact).abs());
        }
        assert!(worst < 2e-7, "worst absolute error {worst}");
        assert_eq!(neg_ln_q27(0), 0);
        // u = 2^-32, the largest draw
        let max = f64::from(neg_ln_q27(u32::MAX)) / f64::from(1u32 << 27);
        assert!((max - 32.0 * std::f64::consts::LN_2).abs() < 1e-6);
    }

    #[test]
    fn unit_exponential_has_mean_one() {
        let mut rng = PhiloxRng::new([7, 11]);
        let n = 400_000;
        let sum: f64 = (0..n)
            .map(|_| f64::from(neg_ln_q27(rand_core::Rng::next_u32(&mut rng))) / 134_217_728.0)
            .sum();
        let mean = sum / f64::from(n);
        assert!((mean - 1.0).abs() < 0.01, "mean {mean}");
    }
}
