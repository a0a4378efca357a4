//! The engine interface every model's engines implement (CPU and GPU), shared by the
//! command line and the app: budgets, the per-step log, errors, and the report. The
//! engines themselves live in their model's folder (`pdes_models::<model>`).

pub mod calendar;
pub mod heap;
pub mod memory;
pub mod step_log;
pub mod waiting;

pub use step_log::StepLog;

use crate::time::Ticks;
use serde::Serialize;

/// Hints the CPU to bring the cache line holding `*p` into cache (no effect on other
/// architectures): the sequential simulators' state is visited in random order, so each
/// access is a cache miss unless it was started ahead.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing observable, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Errors a simulation can report while it runs.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A token was lost or duplicated: a bug, reported loudly rather than ignored.
    #[error("token conservation violated: {0}")]
    TokenConservation(String),
    /// The GPU engine failed (device lost, readback failed, resource limits).
    #[error("GPU engine: {0}")]
    Gpu(String),
    /// The run would need more memory than PDES Lab is willing to take.
    #[error("{0}")]
    TooLarge(String),
    /// A GPU result is not back yet: on a device that must not be waited on (a browser
    /// tab's, whose mapped buffers arrive only after the page returns to the browser), a
    /// readback is started and answered on a later call. Ask again next frame; nothing
    /// was lost or changed.
    #[error("the GPU's results are not back yet")]
    NotYet,
}

/// Most bytes a CPU engine may allocate for its state (the app refuses larger runs rather
/// than let the allocation abort the process).
#[cfg(not(target_arch = "wasm32"))]
pub const CPU_MEMORY_LIMIT: u64 = 8 << 30;
/// Most bytes a CPU engine may allocate for its state in a browser tab: a wasm32 page
/// addresses 4 GiB in all (code, the window, the copies a run makes), and browsers give
/// less; 16,777,216 M/M/c/k replications (4 GiB) panicked there with "capacity overflow"
/// and left the page dark (issue 56 §4).
#[cfg(target_arch = "wasm32")]
pub const CPU_MEMORY_LIMIT: u64 = 1 << 30;

/// How far one call to [`Engine::advance`] may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// At most this many steps (events for `sequential`).
    Steps(u64),
    /// Steps that start before this simulated time (never past the end time).
    Until(Ticks),
    /// To the end time.
    Finish,
    /// At most this many steps, each starting before this simulated time: a slice of an
    /// `Until` or `Finish` budget ([`waiting::advance_in_slices`]).
    StepsUntil(u64, Ticks),
}

impl Budget {
    /// (time limit for a step's start, maximum number of steps).
    pub fn limits(self, end: Ticks) -> (Ticks, u64) {
        match self {
            Self::Steps(n) => (end, n),
            Self::Until(t) => (t.min(end), u64::MAX),
            Self::Finish => (end, u64::MAX),
            Self::StepsUntil(n, t) => (t.min(end), n),
        }
    }
}

/// Takes steps of `model` within `budget` (its end time `end`): while the earliest pending
/// event (`t_min`) starts before the budget's limit, one `step` from it. The loop of every
/// two-phase CPU engine, whose steps start at their earliest event.
pub fn advance_by_steps<M>(
    model: &mut M,
    budget: Budget,
    end: Ticks,
    t_min: fn(&M) -> Ticks,
    step: fn(&mut M, Ticks),
) {
    let (limit, mut steps_left) = budget.limits(end);
    while steps_left > 0 {
        let t = t_min(model);
        if t >= limit {
            break;
        }
        step(model, t);
        steps_left -= 1;
    }
}

/// One step of a stepped algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StepRecord {
    /// Earliest pending event when the step began.
    pub t_min: Ticks,
    /// Inclusive upper bound on the event times the step processed.
    pub bound: Ticks,
    /// Events processed in the step.
    pub events: u64,
    /// Causality errors in the step.
    pub errors: u64,
}

/// Running counters of an engine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepTotals {
    /// Events processed.
    pub events: u64,
    /// Steps taken.
    pub steps: u64,
    /// Most events processed in one step.
    pub max_events_per_step: u64,
    /// Steps in which at least one causality error happened.
    pub steps_with_errors: u64,
}

impl StepTotals {
    /// Records one step.
    pub fn record(&mut self, events: u64, facilities_with_errors: u64) {
        self.events += events;
        self.steps += 1;
        self.max_events_per_step = self.max_events_per_step.max(events);
        self.steps_with_errors += u64::from(facilities_with_errors > 0);
    }
}

/// A running simulation. The command line and the app talk to every engine through this.
pub trait Engine {
    /// Advances the simulation within `budget`.
    fn advance(&mut self, budget: Budget) -> Result<(), SimError>;
    /// Goes on with the budget of the last [`Engine::advance`] where that call returned
    /// before spending it: true once it is spent, false while the engine still waits for
    /// the device (a GPU engine on a browser tab's device, whose results come back on a
    /// later frame; call again then). Every engine that finishes its budget inside
    /// `advance` answers true at once.
    fn settle(&mut self) -> Result<bool, SimError> {
        Ok(true)
    }
    /// Lower bound on every pending event time.
    fn now(&self) -> Ticks;
    /// True once every event before the end time has been processed.
    fn finished(&self) -> bool;
    /// Counters so far.
    fn totals(&self) -> StepTotals;
    /// The log of the steps taken; none where every event is a step (`sequential`,
    /// `event`) or for an engine that keeps its records otherwise ([`Engine::step_log`]).
    fn steps(&self) -> Option<&StepLog> {
        None
    }
    /// Per-step records (empty for `sequential` and `event`, where every event is a step).
    fn step_log(&self) -> &[StepRecord] {
        self.steps().map_or(&[], |log| log)
    }
    /// Record i of [`Engine::step_log`] is step i · this: a long run's log keeps every
    /// stride-th step only ([`StepLog`]), so that its memory stays bounded.
    fn step_stride(&self) -> u64 {
        self.steps().map_or(1, StepLog::stride)
    }
    /// The model's statistics as of `min(now, end)`.
    fn report(&mut self) -> Result<Report, SimError>;
    /// One output value per independent unit, for fitting (`run --samples`, the fit view;
    /// M/M/c/k: every replication's L̂ so far); None for models without such outputs.
    fn samples(&self) -> Option<Vec<f64>> {
        None
    }
}

/// What a model's summary tells the generic code about itself: which field counts the
/// work (events, cell updates) and which one is that work per wall-clock second, and its
/// statistics that must be finite numbers.
pub trait ModelSummary: Serialize {
    /// The field that counts the work, e.g. "events".
    const WORK: &'static str;
    /// The field that holds work per wall-clock second, e.g. "events_per_second".
    const RATE: &'static str;
    /// The statistics a run must produce as finite numbers (name, value).
    fn statistics(&self) -> Vec<(&'static str, f64)>;
}

/// The statistics of a run: the model's summary as its fields, in the summary's order and
/// with its names (what JSON, CSV and tables print; scripts rely on the names), plus what
/// the generic code needs. No model is named here: each builds its report with
/// [`Report::of`].
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The summary's fields in output order.
    pub fields: serde_json::Map<String, serde_json::Value>,
    /// The first statistic that is NaN or infinite, if any (JSON would print it as null).
    pub non_finite: Option<&'static str>,
    /// The names of the model's main statistics (what a sweep's table and figure show first).
    pub statistics: Vec<&'static str>,
    work: &'static str,
    rate: &'static str,
}

impl Report {
    /// The report of a model's summary.
    pub fn of<S: ModelSummary>(summary: &S) -> Self {
        let fields = match serde_json::to_value(summary) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        Self {
            fields,
            non_finite: summary
                .statistics()
                .into_iter()
                .find(|(_, v)| !v.is_finite())
                .map(|(k, _)| k),
            statistics: summary.statistics().into_iter().map(|(k, _)| k).collect(),
            work: S::WORK,
            rate: S::RATE,
        }
    }

    /// The name of the work-per-second field (it depends on the wall clock).
    pub fn rate_field(&self) -> &'static str {
        self.rate
    }

    /// The work count (events, cell updates).
    pub fn work(&self) -> u64 {
        self.fields
            .get(self.work)
            .and_then(|v| v.as_u64())
            .unwrap_or(0)
    }

    /// Fills in the wall-clock figures: `wall_seconds` and the work per second.
    pub fn with_wall_time(mut self, seconds: f64) -> Self {
        let rate = if seconds > 0.0 {
            self.work() as f64 / seconds
        } else {
            0.0
        };
        self.fields
            .insert("wall_seconds".into(), serde_json::Value::from(seconds));
        self.fields
            .insert(self.rate.into(), serde_json::Value::from(rate));
        self
    }

    /// The report of a whole command (`pdes-lab run`): `wall_seconds` is what the user
    /// waited, from the command's start to its result (device, check, set-up and run; it
    /// was the engine's time alone, 7× below a user's wait with `--devices`: issue 57 §1),
    /// `engine_seconds` the engine's own time, and the work rate is the engine's.
    pub fn with_times(self, command_seconds: f64, engine_seconds: f64) -> Self {
        let mut r = self.with_wall_time(engine_seconds);
        r.fields.insert(
            "wall_seconds".into(),
            serde_json::Value::from(command_seconds),
        );
        r.fields.insert(
            "engine_seconds".into(),
            serde_json::Value::from(engine_seconds),
        );
        r
    }

    /// Test hook (`pdes-lab verify` proving it can fail): one more unit of work.
    pub fn perturb_work(&mut self) {
        let w = self.work() + 1;
        self.fields
            .insert(self.work.into(), serde_json::Value::from(w));
    }
}

impl Serialize for Report {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.fields.serialize(serializer)
    }
}
