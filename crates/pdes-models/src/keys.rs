//! Every preset key's valid values, written once: the models' validations check against
//! these, a refusal says them in words ("model.rows must be a whole number from 1 to
//! 16,384; got -1"), and `pdes-lab presets`, the window's hints and the guide's key list
//! read them, so none of them can disagree with another.

use crate::error::{Given, PresetError, echo};
use pdes_core::time::TICKS_PER_UNIT;

/// One end of a number's range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// The value itself is allowed.
    Closed(f64),
    /// Values up to it are allowed, not the value itself.
    Open(f64),
    /// One tick of simulated time, 2^-20, the smallest positive time (closed).
    OneTick,
    /// No bound on this side.
    None,
}

/// What a key takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Valid {
    /// A whole number from `min` to `max`.
    Whole {
        /// The least value.
        min: u64,
        /// The greatest value.
        max: u64,
    },
    /// A number between two bounds.
    Number {
        /// The lower bound.
        low: Bound,
        /// The upper bound.
        high: Bound,
    },
    /// One of these words.
    Choice(&'static [&'static str]),
    /// true or false.
    Flag,
    /// What the words say (a value whose range depends on other keys, or a list).
    Words(&'static str),
}

/// A preset key and what it takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Key {
    /// The dotted name, `section.name`.
    pub name: &'static str,
    /// The values it takes.
    pub valid: Valid,
    /// What else limits it, through other keys ("below run.end_time"); "" when nothing.
    pub note: &'static str,
}

pub use crate::error::grouped;

/// A bound's number as a reader writes it: whole numbers grouped, others as they are.
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        let s = grouped(v.abs() as u64);
        if v < 0.0 { format!("-{s}") } else { s }
    } else {
        format!("{v}")
    }
}

impl Valid {
    /// The valid values in words: "a whole number from 1 to 16,384", "a number above 0 and
    /// at most 1", "\"exponential\" or \"shifted\"".
    pub fn words(&self) -> String {
        match *self {
            Self::Whole { min, max } => {
                format!("a whole number from {} to {}", grouped(min), grouped(max))
            }
            Self::Number { low, high } => number_words(low, high),
            Self::Choice(options) => {
                let quoted: Vec<String> = options.iter().map(|o| format!("\"{o}\"")).collect();
                match quoted.as_slice() {
                    [one] => one.clone(),
                    [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
                    [] => "nothing".into(),
                }
            }
            Self::Flag => "true or false".into(),
            Self::Words(w) => w.into(),
        }
    }
}

/// "a number from 1 to 2", "a number above 0 and below 1", "a number of at least 0", …
fn number_words(low: Bound, high: Bound) -> String {
    // (included, the bound in words), or None for no bound
    let words = |b: Bound| match b {
        Bound::Closed(v) => Some((true, number(v))),
        Bound::OneTick => Some((true, "one tick (2^-20 ≈ 0.00000095)".to_string())),
        Bound::Open(v) => Some((false, number(v))),
        Bound::None => None,
    };
    let (low_words, high_words) = (words(low), words(high));
    match (low_words, high_words) {
        (Some((true, a)), Some((true, b))) => format!("a number from {a} to {b}"),
        (Some((true, a)), Some((false, b))) => format!("a number from {a} to below {b}"),
        (Some((false, a)), Some((true, b))) => format!("a number above {a} and at most {b}"),
        (Some((false, a)), Some((false, b))) => format!("a number above {a} and below {b}"),
        (Some((true, a)), None) => format!("a number of at least {a}"),
        (Some((false, a)), None) => format!("a number above {a}"),
        (None, Some((true, b))) => format!("a number of at most {b}"),
        (None, Some((false, b))) => format!("a number below {b}"),
        (None, None) => "a number".into(),
    }
}

/// Whether `v` lies inside the bounds (a finite number only).
fn inside(v: f64, low: Bound, high: Bound) -> bool {
    let above = match low {
        Bound::Closed(b) => v >= b,
        Bound::Open(b) => v > b,
        Bound::OneTick => v * TICKS_PER_UNIT >= 1.0,
        Bound::None => true,
    };
    let below = match high {
        Bound::Closed(b) => v <= b,
        Bound::Open(b) => v < b,
        Bound::OneTick => v * TICKS_PER_UNIT <= 1.0,
        Bound::None => true,
    };
    v.is_finite() && above && below
}

impl Key {
    /// Key `name` taking `valid`.
    pub const fn taking(name: &'static str, valid: Valid) -> Self {
        Self {
            name,
            valid,
            note: "",
        }
    }

    /// Key `name` taking a whole number from `min` to `max`.
    pub const fn whole_number(name: &'static str, min: u64, max: u64) -> Self {
        Self::taking(name, Valid::Whole { min, max })
    }

    /// Key `name` taking a number between `low` and `high`.
    pub const fn number_between(name: &'static str, low: Bound, high: Bound) -> Self {
        Self::taking(name, Valid::Number { low, high })
    }

    /// Key `name` taking one of `options`.
    pub const fn one_of(name: &'static str, options: &'static [&'static str]) -> Self {
        Self::taking(name, Valid::Choice(options))
    }

    /// Key `name` taking what `words` describe.
    pub const fn described(name: &'static str, words: &'static str) -> Self {
        Self::taking(name, Valid::Words(words))
    }

    /// This key with `note`: what else limits it, through other keys.
    pub const fn noting(self, note: &'static str) -> Self {
        Self { note, ..self }
    }

    /// What it takes in words, with its note: "a number of at least 0 (below run.end_time)".
    pub fn words(&self) -> String {
        match self.note {
            "" => self.valid.words(),
            note => format!("{} ({note})", self.valid.words()),
        }
    }

    /// The refusal of `got` for this key: "KEY must be WORDS; got GOT" (GOT cut to ~80
    /// characters).
    pub fn refuse(&self, got: impl Given) -> PresetError {
        PresetError::Range {
            key: self.name.to_string(),
            valid: self.words(),
            got: cut(&got.given()),
        }
    }

    /// The refusal of `got` where what the key takes depends on other keys: `valid` says
    /// it in words for this configuration ("a number from 0 to below run.end_time = 100").
    pub fn refuse_as(&self, got: impl Given, valid: impl Into<String>) -> PresetError {
        PresetError::Range {
            key: self.name.to_string(),
            valid: valid.into(),
            got: cut(&got.given()),
        }
    }

    /// `v` if this whole-number key takes it, else its refusal.
    pub fn whole<T: Copy + Into<u64> + Given>(&self, v: T) -> Result<T, PresetError> {
        match self.valid {
            Valid::Whole { min, max } if (min..=max).contains(&v.into()) => Ok(v),
            _ => Err(self.refuse(v)),
        }
    }

    /// `v` if this number key takes it, else its refusal.
    pub fn number(&self, v: f64) -> Result<f64, PresetError> {
        match self.valid {
            Valid::Number { low, high } if inside(v, low, high) => Ok(v),
            _ => Err(self.refuse(v)),
        }
    }
}

/// A given value cut to ~80 characters; text in quotes is cut inside its quotes.
fn cut(given: &str) -> String {
    match given.strip_prefix('"').and_then(|g| g.strip_suffix('"')) {
        Some(inner) => format!("\"{}\"", echo(&inner)),
        None => echo(&given),
    }
}

/// The key named `name` among `keys`.
pub fn find<'a>(keys: &'a [Key], name: &str) -> Option<&'a Key> {
    keys.iter().find(|k| k.name == name)
}

/// The keys of `models` ((kind, keys) pairs) as a Markdown table, one row per key: the
/// guide's key list (a test checks that docs/src/cli.md holds exactly this).
pub fn markdown(models: &[(&str, &[Key])]) -> String {
    let mut out = String::from("| model.kind | key | takes |\n| --- | --- | --- |\n");
    for (kind, keys) in models {
        for k in keys.iter().filter(|k| k.name != KIND.name) {
            out.push_str(&format!("| {kind} | `{}` | {} |\n", k.name, k.words()));
        }
    }
    out
}

/// The keys of `models` as `pdes-lab presets` prints them: each model, then its keys with
/// what they take.
pub fn text(models: &[(&str, &[Key])]) -> String {
    let mut out = String::new();
    for (kind, keys) in models {
        out.push_str(&format!("{kind}\n"));
        for k in keys.iter().filter(|k| k.name != KIND.name) {
            out.push_str(&format!("  {:<26} {}\n", k.name, k.words()));
        }
    }
    out
}

/// `run.seed` of every model: any whole number a preset can hold (TOML integers are
/// signed 64-bit: at most 2^63 − 1).
pub const SEED: Key = Key::whole_number("run.seed", 0, i64::MAX as u64);

/// `run.engine` of every model.
pub const ENGINE: Key = Key::one_of("run.engine", &["cpu", "gpu"]);

/// A model's key table as one array: its own keys, then keys it shares with other models
/// (`N`, the sum of their lengths, is checked when the constant is evaluated).
pub const fn joined<const N: usize>(own: &[Key], shared: &[Key]) -> [Key; N] {
    assert!(own.len() + shared.len() == N, "N must be the keys' count");
    let mut out = [KIND; N];
    let mut i = 0;
    while i < own.len() {
        out[i] = own[i];
        i += 1;
    }
    let mut j = 0;
    while j < shared.len() {
        out[i + j] = shared[j];
        j += 1;
    }
    out
}

/// `model.kind`: the model (one of the registry's kinds).
pub const KIND: Key = Key::described(
    "model.kind",
    "the name of a model (pdes-lab presets lists them)",
);

/// `model.rows` of the grid models (the torus, diffusion, the DEVS grids).
pub const ROWS: Key = Key::whole_number("model.rows", 1, 16384);

/// `model.cols` of the grid models.
pub const COLS: Key = Key::whole_number("model.cols", 1, 16384);

/// `run.end_time` of the models that run to a simulated time: every event before it.
pub const END_TIME: Key = Key::number_between(
    "run.end_time",
    Bound::OneTick,
    Bound::Closed(pdes_core::time::MAX_TIME_UNITS),
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_said_in_words() {
        let rows = Valid::Whole { min: 1, max: 16384 };
        assert_eq!(rows.words(), "a whole number from 1 to 16,384");
        let p = Valid::Number {
            low: Bound::Open(0.0),
            high: Bound::Closed(1.0),
        };
        assert_eq!(p.words(), "a number above 0 and at most 1");
        let m = Valid::Number {
            low: Bound::OneTick,
            high: Bound::Open(4096.0),
        };
        assert_eq!(
            m.words(),
            "a number from one tick (2^-20 ≈ 0.00000095) to below 4,096"
        );
        let law = Valid::Choice(&["exponential", "shifted"]);
        assert_eq!(law.words(), "\"exponential\" or \"shifted\"");
        let three = Valid::Choice(&["a", "b", "c"]);
        assert_eq!(three.words(), "\"a\", \"b\" or \"c\"");
        assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn a_value_outside_is_refused_with_the_key_the_range_and_the_value() {
        let rows = Key {
            name: "model.rows",
            valid: Valid::Whole { min: 1, max: 16384 },
            note: "",
        };
        assert_eq!(rows.whole(16384u32).ok(), Some(16384));
        assert_eq!(
            rows.whole(0u32).err().map(|e| e.to_string()).as_deref(),
            Some("model.rows must be a whole number from 1 to 16,384; got 0")
        );
        let p = Key {
            name: "model.exit_probability",
            valid: Valid::Number {
                low: Bound::Open(0.0),
                high: Bound::Closed(1.0),
            },
            note: "",
        };
        assert!(p.number(1.0).is_ok());
        assert!(p.number(0.0).is_err());
        assert!(p.number(f64::NAN).is_err());
    }
}
