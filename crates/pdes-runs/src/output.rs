//! Output of summaries and per-step series as table, JSON or CSV.

use pdes_core::sim::Report;
use pdes_core::sim::StepRecord;
use pdes_core::time::to_units;
use std::io::Write;
use std::path::Path;

/// How a command prints its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// Aligned key/value lines for people.
    #[default]
    Table,
    /// One JSON object.
    Json,
    /// A header line and one row.
    Csv,
}

impl Format {
    /// The names `--format` takes, in [`Format::from_name`]'s order.
    pub const NAMES: [&'static str; 3] = ["table", "json", "csv"];

    /// The format called `name` (one of [`Format::NAMES`]).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "table" => Some(Self::Table),
            "json" => Some(Self::Json),
            "csv" => Some(Self::Csv),
            _ => None,
        }
    }
}

/// A summary's fields in output order, as JSON values.
pub fn fields(summary: &Report) -> Vec<(String, serde_json::Value)> {
    summary
        .fields
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn plain(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Formats a summary; the text ends with a newline. A summary of plain numbers and words
/// always serializes; were one not to, the error says so rather than printing half.
pub fn format_summary(summary: &Report, format: Format) -> Result<String, serde_json::Error> {
    Ok(match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(summary)?;
            s.push('\n');
            s
        }
        Format::Csv => {
            // one row a run: the per-station rows are JSON's and the table's only
            let f: Vec<_> = fields(summary)
                .into_iter()
                .filter(|(_, v)| !v.is_array() && !v.is_object())
                .collect();
            let header: Vec<&str> = f.iter().map(|(k, _)| k.as_str()).collect();
            let row: Vec<String> = f.iter().map(|(_, v)| plain(v)).collect();
            format!("{}\n{}\n", header.join(","), row.join(","))
        }
        Format::Table => {
            let mut out = String::new();
            for (k, v) in fields(summary) {
                if let serde_json::Value::Array(rows) = &v {
                    out.push_str(&rows_table(&k, rows));
                    continue;
                }
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
    })
}

/// A list of rows (a network's stations) as an indented table: a header of the rows' keys,
/// then one line per row, numbers to 6 significant digits, null as —.
fn rows_table(name: &str, rows: &[serde_json::Value]) -> String {
    let Some(serde_json::Value::Object(first)) = rows.first() else {
        return format!("{name:<24} —\n");
    };
    let keys: Vec<&String> = first.keys().collect();
    let cell = |v: Option<&serde_json::Value>| match v {
        None | Some(serde_json::Value::Null) => "—".to_string(),
        Some(serde_json::Value::Number(n)) if n.is_f64() => {
            format!("{:.6}", n.as_f64().unwrap_or(0.0))
        }
        Some(other) => plain(other),
    };
    let table: Vec<Vec<String>> = std::iter::once(keys.iter().map(|k| k.to_string()).collect())
        .chain(
            rows.iter()
                .map(|r| keys.iter().map(|k| cell(r.get(k.as_str()))).collect()),
        )
        .collect();
    let widths: Vec<usize> = (0..keys.len())
        .map(|i| {
            table
                .iter()
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = format!("{name}\n");
    for row in &table {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        out.push_str(&format!("  {}\n", cells.join("  ").trim_end()));
    }
    out
}

/// The per-step series as CSV (times in simulated time units); record i is step
/// i · `stride` (a long run's log keeps every stride-th step, `pdes_core::sim::StepLog`).
pub fn steps_csv(log: &[StepRecord], stride: u64) -> String {
    // torus: events of the step; diffusion: cells whose value the step changed
    let mut s = String::from("step,t_min,bound,events\n");
    for (i, r) in log.iter().enumerate() {
        s.push_str(&format!(
            "{},{},{},{}\n",
            i as u64 * stride,
            to_units(r.t_min),
            to_units(r.bound),
            r.events
        ));
    }
    s
}

/// The temporary file `path` is written to before it is renamed into place.
fn temporary(path: &Path) -> std::path::PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".partial-{}", std::process::id()));
    path.with_file_name(name)
}

/// True when `path` exists and is something other than a regular file (a character device
/// such as /dev/null or /dev/full, a FIFO, a socket): it is written to directly, because a
/// file renamed over it would replace the device node.
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Checks, before any work, that `path` can be written: its folder exists and a file can be
/// created there (the probe is the temporary file the output will go through, removed
/// again). A path naming a folder is refused; a device, FIFO or socket is accepted as it is
/// (it is written directly, and nothing is created beside it).
///
/// An existing file that cannot be changed at all (`chattr +i`: EPERM, where a rename over
/// it fails too) is refused before the run rather than after it (issue 57 §2). A FIFO that
/// has no reader yet is said on stderr: the output will wait for one.
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    if path.is_dir() {
        return Err(std::io::Error::other("is a folder, not a file"));
    }
    if is_special(path) {
        if !fifo_has_reader(path) {
            to_stderr(&format!(
                "pdes-lab: {} is a FIFO with no reader yet: the output will wait for one to open it",
                path.display()
            ));
        }
        return Ok(());
    }
    #[cfg(unix)]
    if path.is_file()
        && let Err(e) = std::fs::OpenOptions::new().append(true).open(path)
        && e.raw_os_error() == Some(libc::EPERM)
    {
        return Err(std::io::Error::other(
            "the file cannot be changed (it is immutable or append-only: chattr -i), so nothing would be written",
        ));
    }
    let tmp = temporary(path);
    std::fs::File::create(&tmp)?;
    std::fs::remove_file(&tmp)
}

/// False for a FIFO (named pipe) that no process has open for reading: opening it to write
/// without blocking fails with ENXIO then. True for anything else.
fn fifo_has_reader(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let fifo = std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
        if fifo {
            let open = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(path);
            return match open {
                // held open until the process ends: closing this probe would be the last
                // writer closing, and the reader would take it for the end of the output
                Ok(f) => {
                    static HELD: std::sync::Mutex<Vec<std::fs::File>> =
                        std::sync::Mutex::new(Vec::new());
                    if let Ok(mut held) = HELD.lock() {
                        held.push(f);
                    }
                    true
                }
                Err(e) => e.raw_os_error() != Some(libc::ENXIO),
            };
        }
    }
    let _ = path;
    true
}

/// Refuses two outputs given the same path (`--out F --steps-csv F` would leave only the
/// second): `outputs` are (flag, path) pairs; the error names both flags.
pub fn check_distinct(outputs: &[(&str, Option<&Path>)]) -> Result<(), String> {
    let given: Vec<(&str, &Path)> = outputs
        .iter()
        .filter_map(|(f, p)| p.map(|p| (*f, p)))
        .collect();
    // compared as written and, where they exist, as the files they name
    let same = |a: &Path, b: &Path| {
        a == b
            || matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
    };
    for (i, (fa, pa)) in given.iter().enumerate() {
        if let Some((fb, _)) = given[..i]
            .iter()
            .find(|(_, pb)| same(pa, pb) && !is_special(pa))
        {
            return Err(format!(
                "{fb} and {fa} name the same file, {}: give each output its own path",
                pa.display()
            ));
        }
    }
    Ok(())
}

/// Writes `text` to `path` whole or not at all: into a temporary file beside it, synced,
/// then renamed over the destination (a full disk leaves the old file, never half a new one).
/// A device, FIFO or socket is written directly instead (renaming over /dev/null would
/// replace the device node with a file); a failed write to it (ENOSPC from /dev/full) is
/// an error all the same.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    write_bytes_atomically(path, text.as_bytes())
}

/// [`write_atomically`] for bytes (a PNG as well as text).
pub fn write_bytes_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if is_special(path) {
        let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
        f.write_all(bytes)?;
        return f.flush();
    }
    let tmp = temporary(path);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes one line to stderr. A closed or full stderr is ignored: a message that cannot be
/// shown must not turn into a panic (`eprintln!` panics there), and the exit status still
/// tells the outcome.
pub fn to_stderr(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

/// Writes `text` to stdout and flushes it; a closed pipe, a closed descriptor or a full
/// disk is an error (the caller reports it), never a panic and never silent.
pub fn write_stdout(text: &str) -> std::io::Result<()> {
    if !stdout_is_open() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::BrokenPipe,
            "standard output is closed",
        ));
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Writes a command's output to `out` (atomically) or to stdout; `flag` names the option in
/// the error.
pub fn emit(text: &str, out: Option<&Path>, flag: &str) -> Result<(), pdes_core::Error> {
    match out {
        // the destination was checked before the run: a failure now (a full disk) is a
        // failure to write, exit status 1, not bad input
        Some(p) => write_atomically(p, text)
            .map_err(|e| pdes_core::Error::Run(format!("{flag} {}: {e}", p.display()))),
        None => write_stdout(text).map_err(stdout_error),
    }
}

/// Whether standard output was open when the process started. A program started with fd 1
/// closed (`run … >&-`) finds it open on /dev/null: Rust's runtime reopens a closed 0, 1 or
/// 2 there, read-write, before `main`, so every write "succeeds" and the output is lost
/// (issue 57 §2). A shell's own `>/dev/null` opens it write-only; so /dev/null opened
/// read-write on fd 1 is taken as the closed stdout the runtime papered over.
pub fn stdout_is_open() -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let Ok(null) = std::fs::metadata("/dev/null") else {
            return true;
        };
        // SAFETY: fstat and fcntl(F_GETFL) only read fd 1's status into a local buffer
        let (st, flags) = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            let ok = libc::fstat(libc::STDOUT_FILENO, &mut st) == 0;
            let flags = libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFL);
            if !ok || flags == -1 {
                return false;
            }
            (st, flags)
        };
        // st_rdev is a u64 on Linux, an i32 on macOS
        #[allow(clippy::unnecessary_cast)]
        let on_null =
            (st.st_mode & libc::S_IFMT) == libc::S_IFCHR && st.st_rdev as u64 == null.rdev();
        !(on_null && flags & libc::O_ACCMODE == libc::O_RDWR)
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// The refusal of a command whose output would go to a closed standard output.
pub fn stdout_closed() -> pdes_core::Error {
    pdes_core::Error::Run(
        "standard output is closed: the result would be lost (nothing was run); open it, or give --out FILE where the command takes one".into(),
    )
}

/// The one-line error for a failed write to stdout.
pub fn stdout_error(e: std::io::Error) -> pdes_core::Error {
    let what = if !stdout_is_open() {
        "standard output is closed: the result was lost".to_string()
    } else if e.kind() == std::io::ErrorKind::BrokenPipe {
        "the reader closed the pipe before the output was written".to_string()
    } else {
        e.to_string()
    };
    pdes_core::Error::Run(format!("writing to stdout: {what}"))
}
