//! What a sweep runs: the `--vary` specs, their grid (the product, first key outermost),
//! the seeds and the shard, each checked with a one-line error that names the flag, the key
//! and the reason.

use pdes_core::Error as CliError;

/// One swept key and its values, as TOML values (`--set` syntax).
#[derive(Clone, Debug, PartialEq)]
pub struct Vary {
    /// Dotted preset key.
    pub key: String,
    /// The values, in order.
    pub values: Vec<toml::Value>,
    /// True for a `:log` range (the figure's x axis is logarithmic).
    pub log: bool,
}

fn bad(spec: &str, reason: impl std::fmt::Display) -> CliError {
    CliError::Input(format!("--vary {spec}: {reason}"))
}

/// A number as the TOML value a key accepts: rounded to 12 significant digits (a log
/// range gives 0.5, not 0.49999999999999994), an integer when it is one (so that integer
/// keys like model.rows can be swept), else a float.
fn number(v: f64) -> toml::Value {
    let v: f64 = format!("{v:.11e}").parse().unwrap_or(v);
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        toml::Value::Integer(v as i64)
    } else {
        toml::Value::Float(v)
    }
}

/// Parses `KEY=V1,V2,…` or `KEY=START:STOP:N[:log]`; `keys` are the keys the preset's
/// model has.
pub fn parse_vary(spec: &str, keys: &[pdes_models::keys::Key]) -> Result<Vary, CliError> {
    let (key, rest) = spec
        .split_once('=')
        .ok_or_else(|| bad(spec, "expected KEY=V1,V2,… or KEY=START:STOP:N[:log]"))?;
    let key = key.trim();
    if key == "model.kind" || pdes_models::keys::find(keys, key).is_none() {
        let valid: Vec<&str> = keys
            .iter()
            .map(|k| k.name)
            .filter(|k| *k != "model.kind")
            .collect();
        return Err(bad(
            spec,
            format!(
                "{key} is not a key of this preset's model (keys: {})",
                valid.join(", ")
            ),
        ));
    }
    let rest = rest.trim();
    if rest.is_empty() {
        return Err(bad(spec, "no values"));
    }
    if rest.contains(':') {
        let parts: Vec<&str> = rest.split(':').collect();
        let log = match parts.as_slice() {
            [_, _, _] => false,
            [_, _, _, "log"] => true,
            _ => return Err(bad(spec, "a range is START:STOP:N or START:STOP:N:log")),
        };
        let num = |s: &str, what: &str| -> Result<f64, CliError> {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| bad(spec, format!("{what} \"{s}\" is not a finite number")))
        };
        let (start, stop) = (num(parts[0], "START")?, num(parts[1], "STOP")?);
        let n: usize = parts[2]
            .trim()
            .parse()
            .ok()
            .filter(|n| (1..=10_000).contains(n))
            .ok_or_else(|| {
                bad(
                    spec,
                    format!("N \"{}\" is not an integer in 1..=10000", parts[2]),
                )
            })?;
        if log && !(start > 0.0 && stop > 0.0) {
            return Err(bad(spec, "a log range needs START > 0 and STOP > 0"));
        }
        let values = (0..n)
            .map(|i| {
                let f = if n == 1 {
                    0.0
                } else {
                    i as f64 / (n - 1) as f64
                };
                let v = if log {
                    (start.ln() + f * (stop.ln() - start.ln())).exp()
                } else {
                    start + f * (stop - start)
                };
                // the end points exactly as written (no exp/ln rounding)
                number(match i {
                    0 => start,
                    _ if i == n - 1 => stop,
                    _ => v,
                })
            })
            .collect();
        return Ok(Vary {
            key: key.to_string(),
            values,
            log,
        });
    }
    let values: Vec<toml::Value> = rest
        .split(',')
        .map(str::trim)
        .map(|v| {
            if v.is_empty() {
                return Err(bad(spec, "an empty value in the list"));
            }
            Ok(format!("v = {v}")
                .parse::<toml::Table>()
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| toml::Value::String(v.to_string())))
        })
        .collect::<Result<_, _>>()?;
    Ok(Vary {
        key: key.to_string(),
        values,
        log: false,
    })
}

/// Parses `--shard I/N` (0 ≤ I < N).
pub fn parse_shard(s: &str) -> Result<(usize, usize), CliError> {
    let err = || {
        CliError::Input(format!(
            "--shard {s}: expected I/N with 0 ≤ I < N, e.g. 0/4"
        ))
    };
    let (i, n) = s.split_once('/').ok_or_else(err)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| err())?,
        n.trim().parse().map_err(|_| err())?,
    );
    if n == 0 || i >= n {
        return Err(err());
    }
    Ok((i, n))
}

/// The grid: every combination of the values, first key outermost; point p's values.
pub fn grid(varies: &[Vary]) -> Vec<Vec<toml::Value>> {
    let mut points: Vec<Vec<toml::Value>> = vec![Vec::new()];
    for v in varies {
        points = points
            .into_iter()
            .flat_map(|p| {
                v.values.iter().map(move |x| {
                    let mut q = p.clone();
                    q.push(x.clone());
                    q
                })
            })
            .collect();
    }
    points
}

/// A value as a `--set` right-hand side (strings quoted).
pub fn set_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// A value as a CSV/table cell (strings bare).
pub fn cell(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: &[pdes_models::keys::Key] = pdes_models::torus::config::KEYS;

    #[test]
    fn ranges_lists_and_their_errors() {
        let v = parse_vary("run.d=0.25:2:4:log", KEYS).unwrap();
        let xs: Vec<f64> = v
            .values
            .iter()
            .map(|x| {
                x.as_float()
                    .unwrap_or_else(|| x.as_integer().unwrap() as f64)
            })
            .collect();
        assert_eq!(xs[0], 0.25);
        assert_eq!(xs[3], 2.0);
        assert!(
            (xs[1] - 0.5).abs() < 1e-12 && (xs[2] - 1.0).abs() < 1e-12,
            "{xs:?}"
        );
        assert!(v.log);
        let v = parse_vary("model.rows=8:32:4", KEYS).unwrap();
        assert_eq!(v.values, [8, 16, 24, 32].map(toml::Value::Integer).to_vec());
        let v = parse_vary("run.algorithm=window,\"interval\"", KEYS).unwrap();
        assert_eq!(v.values[0], toml::Value::String("window".into()));
        assert_eq!(v.values[1], toml::Value::String("interval".into()));
        for (spec, needle) in [
            ("run.x=1,2", "not a key"),
            ("model.kind=torus", "not a key"),
            ("run.d", "expected KEY="),
            ("run.d=0:1:3:log", "START > 0"),
            ("run.d=1:2:0", "N \"0\""),
            ("run.d=a:2:3", "START \"a\""),
            ("run.d=1:2", "START:STOP:N"),
            ("run.d=1,,2", "empty value"),
        ] {
            let e = parse_vary(spec, KEYS).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("--vary {spec}: ")) && e.contains(needle),
                "{spec}: {e}"
            );
        }
    }

    #[test]
    fn the_grid_is_the_product_first_key_outermost_and_shards_are_checked() {
        let a = parse_vary("run.d=1,2", KEYS).unwrap();
        let b = parse_vary("model.rows=8,16,32", KEYS).unwrap();
        let g = grid(&[a, b]);
        assert_eq!(g.len(), 6);
        assert_eq!(
            g[1],
            vec![toml::Value::Integer(1), toml::Value::Integer(16)]
        );
        assert_eq!(g[3], vec![toml::Value::Integer(2), toml::Value::Integer(8)]);
        assert_eq!(parse_shard("1/4").unwrap(), (1, 4));
        for s in ["4/4", "1", "a/2", "0/0"] {
            assert!(parse_shard(s).is_err(), "{s}");
        }
    }
}
