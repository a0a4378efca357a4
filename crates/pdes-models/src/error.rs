//! The one-line error of a preset ([`PresetError`]) and how a value is quoted in it: below
//! the keys' table (`crate::keys`) and the configuration (`crate::config`), which both
//! refuse with it.

/// A preset that could not be read or is invalid.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PresetError {
    /// The preset file could not be read.
    #[error("preset {path}: {reason}")]
    File {
        /// The file or name given.
        path: String,
        /// Why it could not be read.
        reason: String,
    },
    /// A key's value is outside what the key takes.
    #[error("{key} must be {valid}; got {got}")]
    Range {
        /// Dotted key.
        key: String,
        /// The valid values in words.
        valid: String,
        /// What was given (cut to ~80 characters).
        got: String,
    },
    /// A key has a bad value, or is unknown.
    #[error("{key}: {reason}")]
    Key {
        /// Dotted key.
        key: String,
        /// What is wrong and what is valid.
        reason: String,
    },
}

/// A value as an error message shows it: at most 80 characters (a 50 MB value must not be
/// echoed whole), with the cut marked.
pub fn echo(v: &impl std::fmt::Display) -> String {
    one_line(&clip(v, 80))
}

/// `v` with a comma every three digits ("16,384").
pub fn grouped(v: u64) -> String {
    let digits = v.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `s` on one line: a line break, tab or other control character written as its escape
/// (`\n`), so that an echoed cell never splits a message over lines (issue 57 §2).
pub fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Up to `n` of `items`, each [`echo`]ed, joined by ", ", with how many there are in all
/// when there are more (a header of 2 million columns made an 18.9 MB error line).
pub fn echo_list<'a>(items: impl Iterator<Item = &'a str>, n: usize) -> String {
    let mut total = 0usize;
    let mut shown: Vec<String> = Vec::new();
    for x in items {
        if total < n {
            shown.push(echo(&x));
        }
        total += 1;
    }
    if total > n {
        format!("{}, … ({} in all)", shown.join(", "), grouped(total as u64))
    } else {
        shown.join(", ")
    }
}

/// `v` as text, cut after `n` characters with the cut marked.
pub(crate) fn clip(v: &impl std::fmt::Display, n: usize) -> String {
    let s = v.to_string();
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}… ({} characters)", &s[..i], s.chars().count()),
        None => s,
    }
}

/// The error of key `key` (dotted) with what is wrong and what is valid.
pub fn key_err(key: &str, reason: impl Into<String>) -> PresetError {
    PresetError::Key {
        key: key.to_string(),
        reason: reason.into(),
    }
}

/// A number as a refusal shows it: as written for ordinary magnitudes, in scientific
/// notation where the plain form would run to hundreds of digits (1e-300, not 0.000…).
pub fn show_number(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-6..1e16).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// A value as a refusal quotes it ("got …"): numbers by [`show_number`], whole numbers as
/// they are, text as the caller wrote it (quoted where it was a string).
pub trait Given {
    /// The value as the refusal shows it (before the cut to 80 characters).
    fn given(&self) -> String;
}

impl Given for f64 {
    fn given(&self) -> String {
        show_number(*self)
    }
}

macro_rules! given_as_text {
    ($($t:ty),*) => {$(
        impl Given for $t {
            fn given(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
given_as_text!(u32, u64, i64, String, &str);
