//! Running a sweep's jobs: a pool of worker threads, a progress bar, and the CSV written
//! row by row as runs finish (each line whole, so an interruption leaves a valid file).

use super::jobs::{GPU_WORKERS_PER_DEVICE, Job};
use super::plan::{Plan, run_job};
use super::rows::{csv_line, header_of, row_cells};
use super::{CliError, Format, RunRow, SweepArgs, input, output};
use pdes_gpu::Gpu;
use serde_json::{Map, Value};
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// What the pool gives back.
pub(super) struct Executed {
    /// The new runs, in the order they finished.
    pub(super) rows: Vec<RunRow>,
    /// The CSV's header (that of the resumed file, or made from the first success).
    pub(super) header: Option<Vec<String>>,
    /// The model's main statistics (empty if no run succeeded).
    pub(super) statistics: Vec<&'static str>,
    /// Seconds the runs took.
    pub(super) wall: f64,
    /// Runs in all.
    pub(super) total: usize,
}

/// Whether the sweep's runs are on the GPU.
pub(super) fn on_gpu(plan: &Plan) -> Result<bool, CliError> {
    let base = super::config_from_args(&plan.base)?;
    Ok(base.engine() == pdes_models::preset::EngineKind::Gpu)
}

/// The CSV written row by row as runs finish: the header as soon as it is known (that of
/// a resumed file, or made from the first success), each line whole and flushed, so that an
/// interruption leaves a valid partial file.
struct ProgressiveCsv {
    file: std::fs::File,
    header: Option<Vec<String>>,
    /// Rows (indices into the runs) waiting for the header.
    pending: Vec<usize>,
    /// The first write that failed.
    error: Option<String>,
}

impl ProgressiveCsv {
    /// The CSV of `--out` when `--format csv` writes one; a resumed file is appended to,
    /// any other is replaced whole (appending to another file's rows would leave a second
    /// header in the middle).
    fn open(args: &SweepArgs, header: Option<Vec<String>>) -> Result<Option<Self>, CliError> {
        let (Format::Csv, Some(path)) = (args.format, args.out.as_ref()) else {
            return Ok(None);
        };
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(args.resume)
            .write(true)
            .truncate(!args.resume)
            .open(path)
            .map_err(|e| input(format!("--out {}: {e}", path.display())))?;
        Ok(Some(Self {
            file,
            header,
            pending: Vec::new(),
            error: None,
        }))
    }

    /// Writes run `rows[last]` (or keeps it until the header is known; `total` runs in all).
    fn push(&mut self, plan: &Plan, rows: &[RunRow], total: usize) {
        self.pending.push(rows.len() - 1);
        if self.header.is_none() {
            let first_ok = rows.iter().find_map(|r| r.result.as_ref().ok());
            if first_ok.is_some() || self.pending.len() == total {
                let h = header_of(plan, first_ok);
                self.write(&csv_line(&h));
                self.header = Some(h);
            }
        }
        let Some(h) = self.header.clone() else { return };
        for i in std::mem::take(&mut self.pending) {
            self.write(&csv_line(&row_cells(plan, &rows[i], &h)));
        }
    }

    /// One write per whole line, flushed; a line a full disk cut is taken back off the
    /// file (to its length before it), so the file never ends in a partial row that a
    /// reader would misread or `--resume` adopt (issue 57 §2). After a failure nothing
    /// more is written.
    fn write(&mut self, line: &str) {
        if self.error.is_some() {
            return;
        }
        let before = self.file.metadata().map(|m| m.len());
        if let Err(e) = self
            .file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.flush())
        {
            let cut_back = before.and_then(|len| self.file.set_len(len));
            self.error = Some(match cut_back {
                Ok(()) => format!("{e} (the file keeps its whole rows)"),
                Err(e2) => format!("{e}; its last line could not be taken back off ({e2})"),
            });
        }
    }
}

/// A progress bar on a terminal for `total` runs.
fn progress_bar(total: usize) -> Option<indicatif::ProgressBar> {
    (std::io::stderr().is_terminal() && total > 1).then(|| {
        let b = indicatif::ProgressBar::new(total as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} runs  {elapsed} elapsed, ETA {eta}  {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    })
}

/// What a worker sends back: (point, seed index, the run's fields and statistics).
type Finished = (
    usize,
    u32,
    Result<(Map<String, Value>, Vec<&'static str>), String>,
);

/// Runs `jobs` on the pool, writing the progressive CSV where `--format csv --out` asks.
/// Each job runs on its device (`devices`, from `--devices`; without, the shared device);
/// worker w takes the jobs of device w mod their number first, then helps the others, so
/// that every job runs whatever `--jobs` says.
pub(super) fn execute(
    args: &SweepArgs,
    plan: &Plan,
    jobs: &[Job],
    gpu: bool,
    devices: &[Arc<Gpu>],
    header: Option<Vec<String>>,
) -> Result<Executed, CliError> {
    let workers = args
        .jobs
        .unwrap_or(if gpu {
            GPU_WORKERS_PER_DEVICE * devices.len().max(1)
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        })
        .clamp(1, 256)
        .min(jobs.len().max(1));
    let total: usize = jobs.iter().map(|j| j.runs.len()).sum();
    let lanes = devices.len().max(1);
    // each device's jobs, in order, and the next of them to take
    let queues: Vec<Vec<&Job>> = (0..lanes)
        .map(|d| jobs.iter().filter(|j| j.device % lanes == d).collect())
        .collect();
    let taken: Vec<AtomicUsize> = (0..lanes).map(|_| AtomicUsize::new(0)).collect();
    let bar = progress_bar(total);
    let mut csv = ProgressiveCsv::open(args, header.clone())?;
    let started = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel::<Finished>();
    let mut new_rows: Vec<RunRow> = Vec::new();
    let mut statistics: Vec<&'static str> = Vec::new();
    std::thread::scope(|scope| {
        for w in 0..workers {
            let tx = tx.clone();
            let (queues, taken) = (&queues, &taken);
            scope.spawn(move || {
                for lane in (0..lanes).map(|k| (w + k) % lanes) {
                    loop {
                        let i = taken[lane].fetch_add(1, Ordering::Relaxed);
                        let Some(job) = queues[lane].get(i) else {
                            break;
                        };
                        let device = devices.get(lane).cloned();
                        let results = run_job(plan, &job.runs, device);
                        for (&(p, s), r) in job.runs.iter().zip(results) {
                            if tx.send((p, s, r)).is_err() {
                                return;
                            }
                        }
                    }
                }
            });
        }
        drop(tx);
        for (p, s, r) in rx {
            let result = r.map(|(fields, stats)| {
                if statistics.is_empty() {
                    statistics = stats;
                }
                fields
            });
            if let Err(e) = &result {
                let msg = format!(
                    "point {p} ({}) seed {}: {e}",
                    plan.describe(p),
                    plan.seeds[s as usize].map_or("—".into(), |x| x.to_string())
                );
                match &bar {
                    Some(b) => b.println(format!("failed: {msg}")),
                    None => output::to_stderr(&format!("failed: {msg}")),
                }
            }
            new_rows.push(RunRow {
                point: p,
                seed_index: s,
                seed: plan.seeds[s as usize],
                result,
            });
            if let Some(b) = &bar {
                b.inc(1);
            }
            if let Some(c) = csv.as_mut() {
                c.push(plan, &new_rows, total);
            }
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let header = match csv {
        Some(c) => {
            if let Some(e) = c.error {
                return Err(CliError::Run(format!("--out: writing the CSV: {e}")));
            }
            c.header
        }
        None => header,
    };
    Ok(Executed {
        rows: new_rows,
        header,
        statistics,
        wall: started.elapsed().as_secs_f64(),
        total,
    })
}
