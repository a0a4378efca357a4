//! Output of summaries and per-step series as table, JSON or CSV.

use super::Format;
use crate::sim::Report;
use crate::sim::StepRecord;
use crate::time::to_units;
use std::io::Write;
use std::path::Path;

/// A summary's fields in output order, as JSON values.
pub fn fields(summary: &Report) -> Vec<(String, serde_json::Value)> {
    match serde_json::to_value(summary).expect("a summary always serializes") {
        serde_json::Value::Object(map) => map.into_iter().collect(),
        _ => unreachable!("a summary serializes to an object"),
    }
}

fn plain(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Formats a summary; the text ends with a newline.
pub fn format_summary(summary: &Report, format: Format) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(summary).expect("a summary always serializes");
            s.push('\n');
            s
        }
        Format::Csv => {
            let f = fields(summary);
            let header: Vec<&str> = f.iter().map(|(k, _)| k.as_str()).collect();
            let row: Vec<String> = f.iter().map(|(_, v)| plain(v)).collect();
            format!("{}\n{}\n", header.join(","), row.join(","))
        }
        Format::Table => {
            let mut out = String::new();
            for (k, v) in fields(summary) {
                let shown = match &v {
                    serde_json::Value::Null => "—".to_string(),
                    serde_json::Value::Number(n) if n.is_f64() => {
                        let x = n.as_f64().unwrap_or(0.0);
                        if x != 0.0 && (x.abs() >= 1e7 || x.abs() < 1e-3) {
                            format!("{x:.4e}")
                        } else {
                            format!("{x:.6}")
                        }
                    }
                    other => plain(other),
                };
                out.push_str(&format!("{k:<24} {shown}\n"));
            }
            out
        }
    }
}

/// Writes the per-step series as CSV (times in simulated time units).
pub fn write_steps_csv(path: &Path, log: &[StepRecord]) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    // torus: events of the step; diffusion: cells whose value the step changed
    writeln!(w, "step,t_min,bound,events")?;
    for (i, r) in log.iter().enumerate() {
        writeln!(
            w,
            "{i},{},{},{}",
            to_units(r.t_min),
            to_units(r.bound),
            r.events
        )?;
    }
    w.flush()
}
