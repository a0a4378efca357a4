//! A configuration as a link: the URL query `preset=NAME&key=value&…` that the browser
//! build opens and its "Copy link" writes. The assignments are exactly `--set`'s, so a
//! link's part after the preset works on the command line too
//! (`?preset=teaching-16x16&run.d=2` is `pdes-lab run teaching-16x16 --set run.d=2`).
//! Encoding is the browsers' own (application/x-www-form-urlencoded).

use crate::preset::{self, Config, PresetError, parse_table};

/// A link's parameter that is not a configuration key: the simulated time per second of
/// wall-clock time the window runs at.
pub const SPEED: &str = "speed";

/// What a link holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The built-in preset it starts from.
    pub preset: String,
    /// `key=value` assignments applied to it, in order (as `--set`).
    pub sets: Vec<String>,
    /// The window's speed (simulated time per second), when given.
    pub speed: Option<f64>,
}

impl Link {
    /// The link of `config` from built-in preset `base`: the keys whose values differ.
    pub fn of(base: &str, config: &Config) -> Result<Self, PresetError> {
        Ok(Self {
            preset: base.to_string(),
            sets: sets_between(base, config)?,
            speed: None,
        })
    }

    /// The shortest link of `config`: from `preferred` if it can be said from there, else
    /// from whichever built-in preset of the same model needs the fewest assignments (a
    /// preset with a warm-up cannot lose it through `--set`).
    pub fn shortest(preferred: &str, config: &Config) -> Result<Self, PresetError> {
        let first = Self::of(preferred, config);
        if first.is_ok() {
            return first;
        }
        let mut best: Option<Self> = None;
        for (name, text) in preset::builtin() {
            let same_model = Config::from_toml(text, name).is_ok_and(|c| c.kind() == config.kind());
            if !same_model || *name == preferred {
                continue;
            }
            if let Ok(l) = Self::of(name, config)
                && best.as_ref().is_none_or(|b| l.sets.len() < b.sets.len())
            {
                best = Some(l);
            }
        }
        best.map_or(first, Ok)
    }

    /// Reads a URL query (with or without its leading `?`). Refuses a preset that is not
    /// built in (a page has no files), an empty or repeated parameter, and any parameter
    /// other than `preset`, `speed` and dotted keys, naming it.
    pub fn parse(query: &str) -> Result<Self, String> {
        let (link, refused) = Self::parse_keeping(query);
        match refused.into_iter().next() {
            Some(why) => Err(why),
            None => Ok(link),
        }
    }

    /// Reads a URL query as [`Link::parse`] does, but keeps what is good: each parameter
    /// [`Link::parse`] would refuse is left out, its reason in the list returned (a link
    /// with one bad key kept its preset, engine and speed none of: issue 56 §4).
    pub fn parse_keeping(query: &str) -> (Self, Vec<String>) {
        let query = query.strip_prefix('?').unwrap_or(query);
        let mut link = Self {
            preset: preset::default_preset().to_string(),
            sets: Vec::new(),
            speed: None,
        };
        let mut refused = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            if !seen.insert(name.to_string()) {
                refused.push(format!("the link gives {name} twice (the first kept)"));
                continue;
            }
            match name.as_ref() {
                "preset" => {
                    if !preset::builtin().any(|(n, _)| *n == value) {
                        refused.push(format!(
                            "the link's preset \"{}\" is not a built-in preset (built-in: {})",
                            crate::config::echo(&value),
                            preset::builtin()
                                .map(|(n, _)| *n)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ));
                        continue;
                    }
                    link.preset = value.to_string();
                }
                SPEED => {
                    let speed = value
                        .trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && (MIN_SPEED..=MAX_SPEED).contains(s));
                    match speed {
                        Some(s) => link.speed = Some(s),
                        None => {
                            refused.push(format!(
                                "the link's speed must be a number from {MIN_SPEED} to 100,000 (simulated time per second); got \"{}\"",
                                crate::config::echo(&value)
                            ));
                        }
                    }
                }
                key if key.contains('.') => link.sets.push(format!("{key}={value}")),
                other => {
                    refused.push(format!(
                        "the link's parameter \"{}\" is not known (a link holds preset=NAME, settings such as run.d=2, and speed=…)",
                        crate::config::echo(&other)
                    ));
                }
            }
        }
        (link, refused)
    }

    /// The configuration the link describes, or the message a user would see.
    pub fn config(&self) -> Result<Config, String> {
        let sets: Vec<&str> = self.sets.iter().map(String::as_str).collect();
        preset::config_with(&self.preset, &sets)
    }

    /// The configuration the link describes with every assignment that can stand: where
    /// the whole is refused, each assignment whose removal makes it valid is left out
    /// (its reason returned), else they are taken in order, each kept only where valid
    /// with those before it. The link is changed to hold only what was kept, so that a
    /// refused value is neither shown nor remembered.
    pub fn config_keeping(&mut self) -> Result<(Config, Vec<String>), String> {
        let with = |sets: &[String]| {
            let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
            preset::config_with(&self.preset, &sets)
        };
        if let Ok(c) = with(&self.sets) {
            return Ok((c, Vec::new()));
        }
        let mut refused = Vec::new();
        // one assignment at fault: the others stand together (a warm-up that needs the
        // link's own end time keeps it)
        for i in 0..self.sets.len() {
            let mut others = self.sets.clone();
            let bad = others.remove(i);
            if let Ok(c) = with(&others) {
                refused.push(why_refused(&with(std::slice::from_ref(&bad)), &bad));
                self.sets = others;
                return Ok((c, refused));
            }
        }
        let mut kept: Vec<String> = Vec::new();
        for set in std::mem::take(&mut self.sets) {
            kept.push(set);
            if let Err(e) = with(&kept) {
                kept.pop();
                refused.push(e);
            }
        }
        let config = with(&kept)?;
        self.sets = kept;
        Ok((config, refused))
    }

    /// The URL query, without the `?`.
    pub fn query(&self) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        q.append_pair("preset", &self.preset);
        for s in &self.sets {
            let (k, v) = s.split_once('=').unwrap_or((s, ""));
            q.append_pair(k, v);
        }
        if let Some(speed) = self.speed {
            q.append_pair(SPEED, &speed.to_string());
        }
        q.finish()
    }
}

/// Why assignment `set` was left out: the preset's refusal of it alone, or, where it stands
/// alone, that it conflicts with the link's others.
fn why_refused(alone: &Result<Config, String>, set: &str) -> String {
    match alone {
        Err(e) => e.clone(),
        Ok(_) => format!(
            "{} conflicts with the link's other settings",
            crate::config::echo(&set)
        ),
    }
}

/// The slowest speed a link may ask for.
pub const MIN_SPEED: f64 = 0.001;
/// The fastest.
pub const MAX_SPEED: f64 = 100_000.0;

/// `to`'s `section.key=value` assignments whose value `from` does not have (a different
/// value, or no such key), in `to`'s order: what turns one configuration's TOML into the
/// other's.
pub fn differing_sets(from: &toml::Table, to: &toml::Table) -> Vec<String> {
    let mut sets = Vec::new();
    for (section, values) in to {
        let Some(values) = values.as_table() else {
            continue;
        };
        let before = from.get(section.as_str()).and_then(|t| t.as_table());
        for (name, value) in values {
            if before.and_then(|t| t.get(name.as_str())) != Some(value) {
                sets.push(format!("{section}.{name}={}", set_value(value)));
            }
        }
    }
    sets
}

/// The `key=value` assignments that turn built-in preset `base` into `config`, in the
/// order of `config`'s TOML: every key whose value differs or that `base` lacks. A key
/// that `base` sets and `config` leaves out cannot be said with `--set`: refused, naming it.
pub fn sets_between(base: &str, config: &Config) -> Result<Vec<String>, PresetError> {
    // both sides as the configuration writes itself: a default the preset leaves unsaid
    // (run.timestamps = "original") is then no difference
    let (origin, text) = preset::load_text(base)?;
    let from = Config::from_toml(&text, &origin)?.to_toml("");
    let from = parse_table(&from, &origin)?;
    let to = parse_table(&config.to_toml(""), "the configuration")?;
    let sets = differing_sets(&from, &to);
    for (section, values) in &from {
        for name in values.as_table().into_iter().flat_map(|t| t.keys()) {
            let kept = to
                .get(section.as_str())
                .and_then(|t| t.as_table())
                .is_some_and(|t| t.contains_key(name.as_str()));
            if !kept {
                return Err(crate::config::key_err(
                    &format!("{section}.{name}"),
                    format!(
                        "is set by preset {base} and not in this configuration: a link from {base} cannot leave it out"
                    ),
                ));
            }
        }
    }
    Ok(sets)
}

/// A value as `--set` reads it back: a word that is not TOML stays bare (`window`), any
/// other value is written as TOML (`0.5`, `"1"`).
pub fn set_value(value: &toml::Value) -> String {
    if let toml::Value::String(s) = value {
        let reads_as_text = format!("v = {s}").parse::<toml::Table>().is_err();
        if reads_as_text && !s.is_empty() && s.trim() == s && !s.contains(['\n', '\r']) {
            return s.clone();
        }
    }
    value.to_string()
}
