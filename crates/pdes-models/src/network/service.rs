//! A station's service-time distribution, as a file writes it and in integer ticks, drawn
//! from a visit's Philox words the same way on every engine.

use pdes_core::rng::{neg_ln_q27, philox4x32_10, scale_q27};
use pdes_core::time::{TICKS_PER_UNIT, Ticks};
use serde::{Deserialize, Serialize};

/// The largest mean or value of a service time, in time units: an exponential part's mean
/// is held as a 32-bit count of ticks (2^32 ticks of 2^-20).
pub const MAX_SERVICE: f64 = 4095.0;

/// The most phases of an Erlang service.
pub const MAX_ERLANG_PHASES: u32 = 64;

/// A service-time distribution (`service = { kind = "…", … }`).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Service {
    /// Exponential with this mean.
    Exponential {
        /// Mean.
        mean: f64,
    },
    /// `shift` + Exponential(mean − shift): never shorter than `shift`.
    Shifted {
        /// The guaranteed minimum.
        shift: f64,
        /// Mean (above the shift).
        mean: f64,
    },
    /// Always `value`.
    Deterministic {
        /// The service time.
        value: f64,
    },
    /// Uniform on [low, high].
    Uniform {
        /// Least.
        low: f64,
        /// Greatest.
        high: f64,
    },
    /// The sum of `k` exponential phases, of mean `mean` in all.
    Erlang {
        /// Phases.
        k: u32,
        /// Mean of the sum.
        mean: f64,
    },
}

impl Service {
    /// The mean service time.
    pub fn mean(&self) -> f64 {
        match *self {
            Self::Exponential { mean } | Self::Shifted { mean, .. } | Self::Erlang { mean, .. } => {
                mean
            }
            Self::Deterministic { value } => value,
            Self::Uniform { low, high } => 0.5 * (low + high),
        }
    }

    /// The shortest service the distribution can give (what the window needs ≥ d).
    pub fn minimum(&self) -> f64 {
        match *self {
            Self::Exponential { .. } | Self::Erlang { .. } => 0.0,
            Self::Shifted { shift, .. } => shift,
            Self::Deterministic { value } => value,
            Self::Uniform { low, .. } => low,
        }
    }

    /// True for exponential service (where Jackson's and MVA's values are exact).
    pub fn is_exponential(&self) -> bool {
        matches!(self, Self::Exponential { .. }) || matches!(self, Self::Erlang { k: 1, .. })
    }

    /// Its name in output.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Exponential { .. } => "exponential",
            Self::Shifted { .. } => "shifted",
            Self::Deterministic { .. } => "deterministic",
            Self::Uniform { .. } => "uniform",
            Self::Erlang { .. } => "erlang",
        }
    }

    /// Why its parameters are out of range, in words ("mean must be …"), if they are.
    pub fn refusal(&self) -> Option<String> {
        let ok = |v: f64| v.is_finite() && v > 0.0 && v <= MAX_SERVICE;
        // written only for a refusal (a million stations are checked)
        let range = || format!("a number above 0 and at most {MAX_SERVICE}");
        match *self {
            Self::Exponential { mean } if !ok(mean) => {
                Some(format!("mean must be {}; got {mean}", range()))
            }
            Self::Shifted { shift, mean } => {
                if !(shift.is_finite() && shift > 0.0) {
                    Some(format!("shift must be a number above 0; got {shift}"))
                } else if !ok(mean) || mean <= shift {
                    Some(format!(
                        "mean must be above the shift ({shift}) and at most {MAX_SERVICE}; got {mean}"
                    ))
                } else {
                    None
                }
            }
            Self::Deterministic { value } if !ok(value) => {
                Some(format!("value must be {}; got {value}", range()))
            }
            Self::Uniform { low, high } => {
                if !(low.is_finite() && low >= 0.0) {
                    Some(format!("low must be a number of at least 0; got {low}"))
                } else if !ok(high) || high <= low {
                    Some(format!(
                        "high must be above low ({low}) and at most {MAX_SERVICE}; got {high}"
                    ))
                } else {
                    None
                }
            }
            Self::Erlang { k, mean } => {
                if !(1..=MAX_ERLANG_PHASES).contains(&k) {
                    Some(format!(
                        "k must be a whole number from 1 to {MAX_ERLANG_PHASES}; got {k}"
                    ))
                } else if !ok(mean) {
                    Some(format!("mean must be {}; got {mean}", range()))
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// The law in ticks.
    pub fn ticks(&self) -> ServiceTicks {
        let t = |v: f64| (v * TICKS_PER_UNIT).round();
        match *self {
            Self::Exponential { mean } => ServiceTicks {
                kind: ServiceTicks::EXPONENTIAL,
                base: 0,
                scale: t(mean) as u32,
                phases: 1,
            },
            Self::Shifted { shift, mean } => ServiceTicks {
                kind: ServiceTicks::EXPONENTIAL,
                base: t(shift) as Ticks,
                scale: t(mean - shift) as u32,
                phases: 1,
            },
            Self::Deterministic { value } => ServiceTicks {
                kind: ServiceTicks::DETERMINISTIC,
                base: t(value) as Ticks,
                scale: 0,
                phases: 0,
            },
            Self::Uniform { low, high } => ServiceTicks {
                kind: ServiceTicks::UNIFORM,
                base: t(low) as Ticks,
                scale: t(high - low) as u32,
                phases: 0,
            },
            Self::Erlang { k, mean } => ServiceTicks {
                kind: ServiceTicks::EXPONENTIAL,
                base: 0,
                scale: t(mean / f64::from(k)) as u32,
                phases: k,
            },
        }
    }
}

/// A service law in ticks: `base` + (an exponential part of mean `scale` summed over
/// `phases`, or a uniform part of width `scale`, or nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceTicks {
    /// [`ServiceTicks::EXPONENTIAL`], [`ServiceTicks::DETERMINISTIC`] or
    /// [`ServiceTicks::UNIFORM`].
    pub kind: u32,
    /// The constant part (shift, value, low), in ticks.
    pub base: Ticks,
    /// Mean of one exponential phase, or the uniform part's width, in ticks.
    pub scale: u32,
    /// Exponential phases (1 for exponential and shifted, k for Erlang).
    pub phases: u32,
}

impl ServiceTicks {
    /// base + Σ phases of Exp(scale).
    pub const EXPONENTIAL: u32 = 0;
    /// base.
    pub const DETERMINISTIC: u32 = 1;
    /// base + uniform on [0, scale].
    pub const UNIFORM: u32 = 2;

    /// The service time of a visit whose words are `words` (words 2 and 3 are the
    /// service's; an Erlang of more than two phases takes four more words per Philox call
    /// of the same counter with its last word 1, 2, …).
    pub fn sample(&self, words: &[u32; 4], counter: [u32; 4], key: [u32; 2]) -> Ticks {
        match self.kind {
            Self::DETERMINISTIC => self.base,
            Self::UNIFORM => {
                self.base + ((u64::from(words[2]) * (u64::from(self.scale) + 1)) >> 32)
            }
            _ => {
                let mut total = self.base;
                for phase in 0..self.phases {
                    let w = if phase < 2 {
                        words[2 + phase as usize]
                    } else {
                        let more = philox4x32_10(
                            [counter[0], counter[1], counter[2], 1 + (phase - 2) / 4],
                            key,
                        );
                        more[((phase - 2) % 4) as usize]
                    };
                    total += scale_q27(neg_ln_q27(w), self.scale);
                }
                total
            }
        }
    }
}
