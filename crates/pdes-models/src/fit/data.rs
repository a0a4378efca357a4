//! The data of a fit: read from a CSV (one numeric column, header optional, or a named
//! column), kept as sorted distinct values with their counts; and the shipped synthetic
//! sample standing in for paper 003's 7,051 loss-given-default values (not public).

use super::blocks::{Components, weighted_loglik_pausing};
use super::cores;
use super::{Mixture, log_density};
use std::ops::Range;

/// A sample as sorted distinct values with their counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Data {
    /// Distinct values, increasing.
    pub values: Vec<f64>,
    /// How often each occurs.
    pub counts: Vec<u64>,
}

/// The 5-component mixture the synthetic sample is drawn from (weights, means, sds):
/// loss-given-default-like values on [0, 1] with modes near total recovery, the middle
/// and total loss.
pub const SYNTHETIC_LGD: [(f64, f64, f64); 5] = [
    (0.30, 0.05, 0.03),
    (0.20, 0.25, 0.06),
    (0.20, 0.50, 0.08),
    (0.15, 0.75, 0.06),
    (0.15, 0.95, 0.03),
];
/// Distinct values per chunk of the CPU log-likelihood's sum, each chunk summed alone.
/// Fixed (not per core or per task), so that every machine sums in the same order.
pub const CHUNK: usize = 512;
/// The fewest terms (a value and a component) in a task of [`Data::logliks`]: ~5 µs of one
/// core's work at ~1.2 ns a term, against the µs it takes to hand a task to another thread.
pub const TASK_TERMS: usize = 4_096;
/// [`TASK_TERMS`], or `PDES_FIT_TASK_TERMS` where set to a whole number (benchmarks: the
/// sums, added in chunk order whatever the cut, are the same).
fn fewest_task_terms() -> usize {
    static FEWEST: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *FEWEST.get_or_init(|| {
        std::env::var("PDES_FIT_TASK_TERMS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(TASK_TERMS)
    })
}
/// Tasks a thread of a round's (when the round has the work for it): more and smaller
/// tasks even out the threads' ends where mixtures of different k share a round (on the
/// H100's host, 6 against 2: the fit 3.2–4.3 s against 4.3–4.9 s in one call; bench/NOTES.md,
/// "The CPU fit at a round's latency").
pub const TASKS_PER_THREAD: usize = 6;
/// Size of paper 003's sample.
pub const LGD_N: usize = 7051;
/// The largest data file `read_csv` reads.
pub const MAX_CSV_BYTES: u64 = 256 << 20;
/// Seed of the synthetic sample.
pub const LGD_SEED: u64 = 2014;

impl Data {
    /// The sample `xs` (every value finite; at least two distinct values).
    pub fn new(xs: &[f64]) -> Result<Self, String> {
        if let Some(i) = xs.iter().position(|x| !x.is_finite()) {
            return Err(format!(
                "value {} (row {}) is not a finite number",
                xs[i],
                i + 1
            ));
        }
        let (values, counts) = distinct_with_counts(xs);
        if values.len() < 2 {
            return Err(format!(
                "{} values with {} distinct: a mixture needs at least two distinct values",
                xs.len(),
                values.len()
            ));
        }
        Ok(Self { values, counts })
    }

    /// Observations (with repeats).
    pub fn n(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The sample repeated `times` times.
    pub fn repeated(&self, times: u64) -> Self {
        Self {
            values: self.values.clone(),
            counts: self.counts.iter().map(|c| c * times).collect(),
        }
    }

    /// (mean, standard deviation with divisor n: the maximum-likelihood one).
    pub fn moments(&self) -> (f64, f64) {
        let n = self.n() as f64;
        let mean = self
            .values
            .iter()
            .zip(&self.counts)
            .map(|(x, c)| x * *c as f64)
            .sum::<f64>()
            / n;
        let var = self
            .values
            .iter()
            .zip(&self.counts)
            .map(|(x, c)| (x - mean) * (x - mean) * *c as f64)
            .sum::<f64>()
            / n;
        (mean, var.sqrt())
    }

    /// The value at rank ⌊p·(n − 1)⌋ of the sorted sample.
    pub fn quantile(&self, p: f64) -> f64 {
        let target = (p.clamp(0.0, 1.0) * (self.n() - 1) as f64).floor() as u64;
        let mut seen = 0;
        for (x, c) in self.values.iter().zip(&self.counts) {
            seen += c;
            if seen > target {
                return *x;
            }
        }
        // a sample has at least two values ([`Data::new`]); NaN says otherwise
        self.values.last().copied().unwrap_or(f64::NAN)
    }

    /// Σ_i ln f(x_i) of `mix`, in f64.
    pub fn loglik(&self, mix: &Mixture) -> f64 {
        self.logliks(std::slice::from_ref(mix))
            .pop()
            .unwrap_or(f64::NAN)
    }

    /// Σ_i ln f(x_i) of every mixture in `mixes`, in f64, on every core: the data are cut
    /// into chunks of [`CHUNK`] distinct values summed alone ([`weighted_loglik`]), and each
    /// mixture's chunk sums are added in chunk order — the same sum however many mixtures are
    /// evaluated together or threads take part. A task is a run of one mixture's chunks:
    /// [`TASKS_PER_THREAD`] tasks a thread, none under [`TASK_TERMS`] terms, on [`cores`]'
    /// pool (a round of one task runs on the calling thread).
    pub fn logliks(&self, mixes: &[Mixture]) -> Vec<f64> {
        let components: Vec<Components> = mixes.iter().map(Components::of).collect();
        let terms: usize = components.iter().map(|c| c.k() * self.values.len()).sum();
        let task_terms = (terms / (TASKS_PER_THREAD * cores::threads())).max(fewest_task_terms());
        let tasks = self.tasks(&components, task_terms);
        let sums = ChunkSums::new(mixes.len(), self.values.len().div_ceil(CHUNK));
        cores::map_tasks(tasks.len(), |t| {
            let (m, run) = &tasks[t];
            self.chunk_sums(&components[*m], run.clone(), &mut || {}, &sums, *m);
        });
        sums.logliks(tasks.len())
            .unwrap_or_else(|| vec![f64::NAN; mixes.len()])
    }

    /// [`Data::logliks`] in slot `slot` of the pool's background lane ([`super::background`]),
    /// then `then` on the thread that ends it: tasks of [`TASK_TERMS`] terms that take the
    /// tasks of a round asked for meanwhile every [`super::blocks::PAUSE_TERMS`] terms (so a
    /// round waits ~1 µs for a thread, not a task), added in chunk order as `logliks` adds
    /// them: the same sums bit for bit.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn begin_logliks(
        self: &std::sync::Arc<Self>,
        slots: &super::background::Slots,
        slot: usize,
        mixes: &[Mixture],
        then: Box<super::background::Then>,
    ) -> PendingLogliks {
        use std::sync::Arc;
        let components: Vec<Components> = mixes.iter().map(Components::of).collect();
        let chunks = self.values.len().div_ceil(CHUNK);
        // at most a batch's tasks, however large the data
        let per_batch = (mixes.len() * chunks).div_ceil(super::background::MOST_TASKS);
        let most_k = components.iter().map(Components::k).max().unwrap_or(1);
        let task_terms = fewest_task_terms().max(per_batch * CHUNK * most_k);
        let tasks = self.tasks(&components, task_terms);
        let count = tasks.len();
        let sums = Arc::new(ChunkSums::new(mixes.len(), chunks));
        let (data, job_sums) = (Arc::clone(self), Arc::clone(&sums));
        slots.submit(
            slot,
            count,
            Box::new(move |t| {
                let (m, run) = &tasks[t];
                // a round's task waits at most PAUSE_TERMS terms for this thread
                let pause = &mut cores::take_round_tasks;
                data.chunk_sums(&components[*m], run.clone(), pause, &job_sums, *m);
            }),
            Some(then),
        );
        PendingLogliks { tasks: count, sums }
    }

    /// One task per run of a mixture's chunks: at least `task_terms` terms each (one chunk
    /// at least), for every mixture of `components` in order.
    fn tasks(&self, components: &[Components], task_terms: usize) -> Vec<(usize, Range<usize>)> {
        let chunks = self.values.len().div_ceil(CHUNK);
        let mut tasks = Vec::new();
        for (m, c) in components.iter().enumerate() {
            let per_task = (task_terms / (CHUNK * c.k().max(1))).max(1);
            tasks.extend(
                (0..chunks)
                    .step_by(per_task)
                    .map(|first| (m, first..(first + per_task).min(chunks))),
            );
        }
        tasks
    }

    /// The sum of every chunk of `run` for mixture `m` (its components `c`), each chunk
    /// alone, into `sums`, calling `pause` every [`super::blocks::PAUSE_TERMS`] terms or so.
    fn chunk_sums(
        &self,
        c: &Components,
        run: Range<usize>,
        pause: &mut dyn FnMut(),
        sums: &ChunkSums,
        m: usize,
    ) {
        for chunk in run {
            let values = chunk * CHUNK..((chunk + 1) * CHUNK).min(self.values.len());
            let sum = weighted_loglik_pausing(
                c,
                &self.values[values.clone()],
                &self.counts[values],
                pause,
            );
            sums.set(m, chunk, sum);
        }
        sums.task_done();
    }

    /// Σ_i |ln f(x_i)|: the scale of the GPU's f32 error bound.
    pub fn abs_loglik(&self, mix: &Mixture) -> f64 {
        let terms = mix.terms();
        self.values
            .iter()
            .zip(&self.counts)
            .map(|(x, c)| *c as f64 * log_density(&terms, *x).abs())
            .sum()
    }

    /// The first `n` draws of the shipped synthetic sample ([`SYNTHETIC_LGD`], seed
    /// [`LGD_SEED`]): Philox words keyed by (draw, seed), the component by the first word,
    /// a Box–Muller normal from the next two.
    pub fn synthetic_lgd(n: usize) -> Self {
        let xs: Vec<f64> = (0..n as u32)
            .map(|i| {
                let w = pdes_core::rng::philox4x32_10(
                    [i, 0, (LGD_SEED >> 32) as u32, 3],
                    [i, LGD_SEED as u32],
                );
                let u = |x: u32| (f64::from(x) + 0.5) / 4_294_967_296.0;
                let mut pick = u(w[0]);
                let mut comp = SYNTHETIC_LGD[SYNTHETIC_LGD.len() - 1];
                for c in SYNTHETIC_LGD {
                    if pick < c.0 {
                        comp = c;
                        break;
                    }
                    pick -= c.0;
                }
                let z = (-2.0 * u(w[1]).ln()).sqrt() * (std::f64::consts::TAU * u(w[2])).cos();
                comp.1 + comp.2 * z
            })
            .collect();
        // Box–Muller of u in (0, 1) is finite: the values need no check
        let (values, counts) = distinct_with_counts(&xs);
        Self { values, counts }
    }

    /// Reads a CSV: the column named `column`, or the only column (a first row that is not
    /// a number is a header). Errors name the row and what was found.
    pub fn read_csv(path: &std::path::Path, column: Option<&str>) -> Result<Self, String> {
        // the kind and size first: a FIFO would block the read, /dev/zero fill the memory
        let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if !meta.is_file() {
            return Err(format!(
                "{}: not a regular file (a folder, device or FIFO); the data are a CSV file",
                path.display()
            ));
        }
        if meta.len() > MAX_CSV_BYTES {
            return Err(format!(
                "{}: {} bytes; a data file is at most {MAX_CSV_BYTES} bytes (256 MiB, about 10 million values)",
                path.display(),
                meta.len()
            ));
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::from_csv_text(&text, column, &path.display().to_string())
    }

    /// [`Data::read_csv`] of text read elsewhere (a file the browser handed over); `origin`
    /// names it in errors.
    pub fn from_csv_text(text: &str, column: Option<&str>, origin: &str) -> Result<Self, String> {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(text.as_bytes());
        let rows: Vec<csv::StringRecord> = rdr
            .records()
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{}: {e}", origin))?;
        let Some(first) = rows.first() else {
            return Err(format!("{}: no rows", origin));
        };
        let numeric = |s: &str| s.trim().parse::<f64>().is_ok();
        let has_header = !first.iter().all(numeric);
        let col = match column {
            Some(name) => {
                if !has_header {
                    return Err(format!(
                        "--column {}: {} has no header row",
                        crate::error::echo(&name),
                        origin
                    ));
                }
                first.iter().position(|h| h.trim() == name).ok_or_else(|| {
                    format!(
                        "--column {}: not a column of {} (columns: {})",
                        crate::error::echo(&name),
                        origin,
                        crate::error::echo_list(first.iter(), 12)
                    )
                })?
            }
            None if first.len() == 1 => 0,
            None => {
                return Err(format!(
                    "{}: {} columns; name one with --column ({})",
                    origin,
                    crate::keys::grouped(first.len() as u64),
                    crate::error::echo_list(first.iter(), 12)
                ));
            }
        };
        let mut xs = Vec::with_capacity(rows.len());
        for (i, r) in rows.iter().enumerate().skip(usize::from(has_header)) {
            // rows are numbered as the file's lines are (the header is row 1)
            if r.len() != first.len() {
                return Err(format!(
                    "{}: row {} has {} fields, the first row {} (every row needs the same columns)",
                    origin,
                    i + 1,
                    r.len(),
                    first.len()
                ));
            }
            let cell = r.get(col).unwrap_or("").trim();
            let x: f64 = cell
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite())
                .ok_or_else(|| {
                    format!(
                        "{}: row {}: \"{}\" is not a finite number",
                        origin,
                        i + 1,
                        crate::config::echo(&cell)
                    )
                })?;
            xs.push(x);
        }
        Self::new(&xs).map_err(|e| format!("{}: {e}", origin))
    }
}

/// Every chunk sum of some mixtures, written by whichever thread runs its task (no
/// allocation a task, no line shared by two mixtures' writers but at their ends), read in
/// chunk order once every task is done: the same additions as one thread's.
struct ChunkSums {
    /// The sum of chunk c of mixture m at m · chunks + c, as bits.
    bits: Vec<std::sync::atomic::AtomicU64>,
    chunks: usize,
    /// Tasks that wrote all their sums (a task that panicked is missing here).
    written: std::sync::atomic::AtomicUsize,
}

impl ChunkSums {
    fn new(mixtures: usize, chunks: usize) -> Self {
        Self {
            bits: (0..mixtures * chunks).map(|_| Default::default()).collect(),
            chunks,
            written: Default::default(),
        }
    }

    /// Chunk `chunk` of mixture `m` sums to `sum`. (Seen by the reader through the pool's
    /// round or batch, whose end orders every task before it.)
    fn set(&self, m: usize, chunk: usize, sum: f64) {
        self.bits[m * self.chunks + chunk]
            .store(sum.to_bits(), std::sync::atomic::Ordering::Relaxed);
    }

    /// A task wrote all its sums.
    fn task_done(&self) {
        self.written
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Every mixture's sum of its chunks in chunk order, where all `tasks` wrote theirs.
    fn logliks(&self, tasks: usize) -> Option<Vec<f64>> {
        if self.written.load(std::sync::atomic::Ordering::Relaxed) != tasks {
            return None;
        }
        let sum = |m: &[std::sync::atomic::AtomicU64]| {
            m.iter().fold(0.0, |acc, b| {
                acc + f64::from_bits(b.load(std::sync::atomic::Ordering::Relaxed))
            })
        };
        Some(self.bits.chunks(self.chunks.max(1)).map(sum).collect())
    }
}

/// A background batch of log-likelihoods ([`Data::begin_logliks`]) in progress.
#[cfg(not(target_arch = "wasm32"))]
pub struct PendingLogliks {
    tasks: usize,
    sums: std::sync::Arc<ChunkSums>,
}

#[cfg(not(target_arch = "wasm32"))]
impl PendingLogliks {
    /// Every mixture's Σ_i ln f(x_i), once the lane says the batch is finished; an error
    /// where a task panicked.
    pub fn take(self) -> Result<Vec<f64>, String> {
        self.sums
            .logliks(self.tasks)
            .ok_or_else(|| "a task of the fit's background batch failed".to_string())
    }
}

/// The distinct values of `xs` in increasing order, each with how often it occurs.
fn distinct_with_counts(xs: &[f64]) -> (Vec<f64>, Vec<u64>) {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let mut values: Vec<f64> = Vec::new();
    let mut counts: Vec<u64> = Vec::new();
    for x in v {
        match counts.last_mut() {
            Some(c) if values.last() == Some(&x) => *c += 1,
            _ => {
                values.push(x);
                counts.push(1);
            }
        }
    }
    (values, counts)
}
