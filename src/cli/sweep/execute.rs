//! Running a sweep's jobs: a pool of worker threads, a progress bar, and the CSV written
//! row by row as runs finish (each line whole, so an interruption leaves a valid file).

use super::plan::{Plan, run_job};
use super::rows::{csv_line, header_of, row_cells};
use super::{CliError, Format, RunRow, SweepArgs, input, output};
use pdes_gpu::Gpu;
use serde_json::{Map, Value};
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// A job: runs — (point, seed index) pairs — that one worker runs together.
pub(super) type Job = Vec<(usize, u32)>;

/// The most runs in one job whose runs may share a GPU engine: rows come back a job at a
/// time, so the progress bar and the CSV move at least this often, and one engine's memory
/// stays bounded (a group the device cannot hold is halved, pdes_runs::sweep::run_all).
const MOST_RUNS_TOGETHER: usize = 128;

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

/// GPU jobs in flight per device: while one engine's runs are set up or read back on the
/// host, another's steps keep the GPU busy.
const GPU_WORKERS_PER_DEVICE: usize = 4;

/// The jobs of this shard, minus the runs `done` already holds. Where the model's GPU
/// engine runs replicas, runs of neighbouring points go into one job — as many jobs as
/// workers in flight ([`GPU_WORKERS_PER_DEVICE`] per device), each of at most
/// [`MOST_RUNS_TOGETHER`] — so that a sweep over seeds and d takes a few engines' steps,
/// not the sum over its points, while the host's set-up and read-back of one engine
/// overlap the others' steps; else one run per job, so that workers share them.
pub(super) fn jobs(
    plan: &Plan,
    shard: Option<(usize, usize)>,
    done: &[RunRow],
    devices: usize,
) -> Result<Vec<Job>, CliError> {
    let base = super::config_from_args(&plan.base)?;
    let together = base.engine() == pdes_models::preset::EngineKind::Gpu
        && base.model_info().replicas.is_some();
    let todo: Vec<(usize, u32)> = (0..plan.points.len())
        .filter(|p| shard.is_none_or(|(i, n)| p % n == i))
        .flat_map(|p| (0..plan.seeds.len() as u32).map(move |s| (p, s)))
        .filter(|&(p, s)| !done.iter().any(|d| d.point == p && d.seed_index == s))
        .collect();
    if !together {
        return Ok(todo.into_iter().map(|r| vec![r]).collect());
    }
    let per_job = todo
        .len()
        .div_ceil(GPU_WORKERS_PER_DEVICE * devices.max(1))
        .clamp(1, MOST_RUNS_TOGETHER);
    Ok(todo.chunks(per_job).map(<[_]>::to_vec).collect())
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
/// With `devices` (from `--devices`), worker w runs its GPU runs on device w mod their
/// number; without, GPU runs go to the shared device.
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
    let total: usize = jobs.iter().map(Vec::len).sum();
    let bar = progress_bar(total);
    let mut csv = ProgressiveCsv::open(args, header.clone())?;
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel::<Finished>();
    let mut new_rows: Vec<RunRow> = Vec::new();
    let mut statistics: Vec<&'static str> = Vec::new();
    std::thread::scope(|scope| {
        for w in 0..workers {
            let tx = tx.clone();
            let next = &next;
            let device = devices.get(w % devices.len().max(1)).cloned();
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(runs) = jobs.get(i) else { break };
                    let results = run_job(plan, runs, device.clone());
                    for (&(p, s), r) in runs.iter().zip(results) {
                        if tx.send((p, s, r)).is_err() {
                            return;
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
