//! The output analysis of a set of replications (paper 003 §4): the grand mean of each
//! replication's time-average number in system with a Student-t 95% interval across
//! replications, and the pooled measures, each next to its exact steady-state value.

use super::Replication;
use super::analytic::Steady;
use super::config::MmckConfig;
use pdes_core::sim::ModelSummary;
use pdes_core::time::to_units;
use serde::Serialize;
use serde::ser::SerializeMap;

/// The summary of an M/M/c/k run (fields in output order; `p_n` and `analytic_p_n` are
/// one field per n, so that CSV stays one value per column).
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// "cpu" or "gpu".
    pub engine: &'static str,
    /// CPU threads that ran the replications (GPU: one thread per replication).
    pub threads: u32,
    /// Replications.
    pub replications: u32,
    /// Replications that reached their last departure.
    pub finished: u32,
    /// Customers per replication (departures).
    pub customers: u64,
    /// Departures deleted at the start.
    pub warmup: u64,
    /// c.
    pub servers: u32,
    /// k.
    pub capacity: u32,
    /// λ.
    pub arrival_rate: f64,
    /// μ.
    pub service_rate: f64,
    /// Events (arrivals and departures) over all replications.
    pub events: u64,
    /// Mean measured length of a replication (time units).
    pub sim_time: f64,
    /// Grand mean over replications of L̂_r = ∫n dt / T_r.
    pub mean_number_in_system: f64,
    /// Its 95% interval (Student t, R − 1 degrees of freedom; the mean itself for R = 1).
    pub ci95_low: f64,
    /// Upper end.
    pub ci95_high: f64,
    /// Exact L.
    pub analytic_number_in_system: f64,
    /// Blocked arrivals over all arrivals.
    pub blocking_probability: f64,
    /// Exact p_k.
    pub analytic_blocking_probability: f64,
    /// Departures per unit time.
    pub throughput: f64,
    /// Exact λ(1 − p_k).
    pub analytic_throughput: f64,
    /// Mean time in system of the departed (W).
    pub mean_system_time: f64,
    /// Exact W.
    pub analytic_system_time: f64,
    /// Mean wait before service (Wq).
    pub mean_waiting_time: f64,
    /// Exact Wq.
    pub analytic_waiting_time: f64,
    /// Busy time per server over the measured time.
    pub utilization: f64,
    /// Exact λ_eff / (cμ).
    pub analytic_utilization: f64,
    /// Fraction of the measured time with n customers, n = 0..=k (pooled).
    pub p: Vec<f64>,
    /// Exact p_n.
    pub analytic_p: Vec<f64>,
}

/// Ratio of two exact sums (0 when nothing was measured).
fn ratio(a: u128, b: u128) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// What a summary adds up over replications: the exact sums of the measured replications'
/// counters and state times, of each one's L̂_r in fixed point (for the interval), and the
/// events and finished replications of all. Integers only, so that the sums are the same
/// in whatever order and wherever they are made: replication by replication on the CPU
/// ([`Pooled::add`], [`Pooled::merge`]) or a workgroup's at a time on the GPU
/// ([`Pooled::of_books`], `shaders/mmck_books.wgsl`), with no record read back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pooled {
    events: u64,
    finished: u32,
    /// T, area, busy, arrivals, blocked, departures, sojourn, wait, starts.
    sums: [u128; 9],
    state: Vec<u128>,
    /// Replications measured (past the warm-up, with time measured).
    measured: u64,
    /// Σ q_r and Σ q_r² over them, q_r = ⌊L̂_r · 2³²⌋ ([`l_fixed`]).
    l_sum: u128,
    l_squares: u128,
}

/// L̂ = `area` / `len` in fixed point, ⌊area · 2³² / len⌋ (len > 0): exact in integers on the
/// CPU and the GPU alike (`mmck_books.wgsl`, `quotient`), 2⁻³² apart — ten digits below
/// the interval of any run. Below 2⁶⁴, as L̂ ≤ k ≤ 256.
pub(super) fn l_fixed(area: u64, len: u64) -> u64 {
    ((u128::from(area) << 32) / u128::from(len)) as u64
}

/// The words of one workgroup's block of sums (`mmck_books.wgsl`): events (4 digits), the
/// finished and the measured replications, nine counters (4 digits each), the k + 1 state
/// times (4 each), Σ q (4) and Σ q² (8 columns).
pub(super) fn book_words(capacity: u32) -> usize {
    BOOK_STATES + 4 * (capacity as usize + 1) + 12
}
const BOOK_FINISHED: usize = 4;
const BOOK_MEASURED: usize = 5;
const BOOK_COUNTERS: usize = 6;
const BOOK_STATES: usize = 42;

/// The number whose 16-bit digits (or columns), least significant first, were summed into
/// `words`: Σ wᵢ · 2^(16 i).
fn weigh(words: &[u32]) -> u128 {
    words
        .iter()
        .enumerate()
        .map(|(i, &w)| u128::from(w) << (16 * i))
        .sum()
}

/// One replication as a summary reads it: its clock, departures, events, counters (in
/// [`super::Tally::counters`]' order) and state times.
pub struct Measured<S> {
    /// Its clock.
    pub t: u64,
    /// Its departures.
    pub departures: u64,
    /// Its events.
    pub events: u64,
    /// Its tally's counters.
    pub counters: [u64; 9],
    /// Its time with n customers, n = 0..=k.
    pub state_time: S,
}

impl Pooled {
    /// `reps` as they stand (a replication still before its warm-up end counts for
    /// nothing; one in progress counts up to its current time).
    pub fn of(shape: &super::RunShape, reps: &[Replication]) -> Self {
        let mut p = Self::default();
        for r in reps {
            p.add(
                shape,
                Measured {
                    t: r.t,
                    departures: r.departures,
                    events: r.events,
                    counters: r.tally.counters(),
                    state_time: r.tally.state_time.iter().copied(),
                },
            );
        }
        p
    }

    /// Adds the next replication.
    pub fn add(&mut self, shape: &super::RunShape, r: Measured<impl Iterator<Item = u64>>) {
        self.events += r.events;
        self.finished += u32::from(r.departures >= shape.customers);
        let len = r.t.saturating_sub(r.counters[0]);
        if r.departures < shape.warmup || len == 0 {
            return;
        }
        self.add_l_hat(r.counters[1], len);
        let mut counters = r.counters;
        counters[0] = len; // the measured length in place of its start
        for (s, v) in self.sums.iter_mut().zip(counters) {
            *s += u128::from(v);
        }
        if self.state.is_empty() {
            self.state = vec![0; shape.capacity as usize + 1];
        }
        for (s, v) in self.state.iter_mut().zip(r.state_time) {
            *s += u128::from(v);
        }
    }

    /// A measured replication's L̂ = `area` / `len` into the interval's sums.
    fn add_l_hat(&mut self, area: u64, len: u64) {
        let q = u128::from(l_fixed(area, len));
        self.measured += 1;
        self.l_sum += q;
        self.l_squares += q * q;
    }

    /// These replications, then `later`'s.
    pub fn merge(mut self, later: Pooled) -> Pooled {
        self.events += later.events;
        self.finished += later.finished;
        for (s, v) in self.sums.iter_mut().zip(later.sums) {
            *s += v;
        }
        if self.state.is_empty() {
            self.state = later.state;
        } else {
            for (s, v) in self.state.iter_mut().zip(later.state) {
                *s += v;
            }
        }
        self.measured += later.measured;
        self.l_sum += later.l_sum;
        self.l_squares += later.l_squares;
        self
    }

    /// The sums in the blocks `words` of [`book_words`] words that `mmck_books.wgsl`'s
    /// `reduce` wrote, one a workgroup: the same as [`Pooled::add`] over the replications.
    pub fn of_books(capacity: u32, words: &[u32]) -> Self {
        let mut p = Self {
            state: vec![0; capacity as usize + 1],
            ..Self::default()
        };
        let states = capacity as usize + 1;
        for b in words.chunks_exact(book_words(capacity)) {
            p.events += weigh(&b[..4]) as u64;
            p.finished += b[BOOK_FINISHED];
            p.measured += u64::from(b[BOOK_MEASURED]);
            for (j, s) in p.sums.iter_mut().enumerate() {
                *s += weigh(&b[BOOK_COUNTERS + 4 * j..][..4]);
            }
            for (n, s) in p.state.iter_mut().enumerate() {
                *s += weigh(&b[BOOK_STATES + 4 * n..][..4]);
            }
            let l = BOOK_STATES + 4 * states;
            p.l_sum += weigh(&b[l..l + 4]);
            p.l_squares += weigh(&b[l + 4..l + 12]);
        }
        if p.measured == 0 {
            p.state.clear(); // as `add` leaves it: nothing measured
        }
        p
    }

    /// The grand mean of the measured replications' L̂_r and its 95% half-width (0 for one
    /// replication), from the exact sums: with Σq = a·R + b, Σ(q − q̄)² = (Σq² − a²R − 2ab)
    /// − b²/R, the bracket exact in integers (no cancellation of two large floats).
    fn l_interval(&self) -> (f64, f64) {
        if self.measured == 0 {
            return (0.0, 0.0);
        }
        const ONE: f64 = 4_294_967_296.0; // 2³²
        let r = u128::from(self.measured);
        let (a, b) = (self.l_sum / r, self.l_sum % r);
        let mean = (a as f64 + b as f64 / r as f64) / ONE;
        if self.measured < 2 {
            return (mean, 0.0);
        }
        let bracket = self.l_squares - a * a * r - 2 * a * b;
        let squares = (bracket as f64 - (b as f64) * (b as f64) / r as f64).max(0.0);
        let var = squares / (r - 1) as f64 / (ONE * ONE);
        (mean, pdes_core::stats::half_width95(var, r as f64))
    }
}

impl Summary {
    /// The analysis of `reps` as they stand (a replication still before its warm-up end
    /// counts for nothing; one in progress counts up to its current time).
    pub fn new(cfg: &MmckConfig, engine: &'static str, threads: u32, reps: &[Replication]) -> Self {
        Self::of_pooled(cfg, engine, threads, &Pooled::of(&cfg.shape(), reps))
    }

    /// The analysis of the replications `pooled` adds up.
    pub fn of_pooled(
        cfg: &MmckConfig,
        engine: &'static str,
        threads: u32,
        pooled: &Pooled,
    ) -> Self {
        let exact = Steady::of(&cfg.model);
        let k = cfg.model.capacity as usize;
        let sums = pooled.sums;
        let mut state = pooled.state.clone();
        state.resize(k + 1, 0);
        let (events, finished) = (pooled.events, pooled.finished);
        let (mean, half) = pooled.l_interval();
        let [
            len,
            area,
            busy,
            arrivals,
            blocked,
            departures,
            sojourn,
            wait,
            starts,
        ] = sums;
        let _ = area;
        let units = |ticks: f64| ticks / pdes_core::time::TICKS_PER_UNIT;
        Self {
            engine,
            threads,
            replications: cfg.run.replications,
            finished,
            customers: cfg.run.customers,
            warmup: cfg.run.warmup,
            servers: cfg.model.servers,
            capacity: cfg.model.capacity,
            arrival_rate: cfg.model.arrival_rate,
            service_rate: cfg.model.service_rate,
            events,
            sim_time: if pooled.measured == 0 {
                0.0
            } else {
                to_units((len / u128::from(pooled.measured)) as u64)
            },
            mean_number_in_system: mean,
            ci95_low: mean - half,
            ci95_high: mean + half,
            analytic_number_in_system: exact.number_in_system,
            blocking_probability: ratio(blocked, arrivals),
            analytic_blocking_probability: exact.blocking,
            throughput: ratio(departures, len) * pdes_core::time::TICKS_PER_UNIT,
            analytic_throughput: exact.throughput,
            mean_system_time: units(ratio(sojourn, departures)),
            analytic_system_time: exact.system_time,
            mean_waiting_time: units(ratio(wait, starts)),
            analytic_waiting_time: exact.waiting_time,
            utilization: ratio(busy, len * u128::from(cfg.model.servers)),
            analytic_utilization: exact.utilization,
            p: state.iter().map(|&s| ratio(s, len)).collect(),
            analytic_p: exact.p,
        }
    }
}

impl Serialize for Summary {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(None)?;
        m.serialize_entry("model", "mmck")?;
        m.serialize_entry("algorithm", "replications")?;
        m.serialize_entry("engine", self.engine)?;
        m.serialize_entry("threads", &self.threads)?;
        m.serialize_entry("replications", &self.replications)?;
        m.serialize_entry("finished", &self.finished)?;
        m.serialize_entry("customers", &self.customers)?;
        m.serialize_entry("warmup", &self.warmup)?;
        m.serialize_entry("servers", &self.servers)?;
        m.serialize_entry("capacity", &self.capacity)?;
        m.serialize_entry("arrival_rate", &self.arrival_rate)?;
        m.serialize_entry("service_rate", &self.service_rate)?;
        m.serialize_entry("events", &self.events)?;
        m.serialize_entry("sim_time", &self.sim_time)?;
        for (k, v) in [
            ("mean_number_in_system", self.mean_number_in_system),
            ("ci95_low", self.ci95_low),
            ("ci95_high", self.ci95_high),
            ("analytic_number_in_system", self.analytic_number_in_system),
            ("blocking_probability", self.blocking_probability),
            (
                "analytic_blocking_probability",
                self.analytic_blocking_probability,
            ),
            ("throughput", self.throughput),
            ("analytic_throughput", self.analytic_throughput),
            ("mean_system_time", self.mean_system_time),
            ("analytic_system_time", self.analytic_system_time),
            ("mean_waiting_time", self.mean_waiting_time),
            ("analytic_waiting_time", self.analytic_waiting_time),
            ("utilization", self.utilization),
            ("analytic_utilization", self.analytic_utilization),
        ] {
            m.serialize_entry(k, &v)?;
        }
        for (n, (p, a)) in self.p.iter().zip(&self.analytic_p).enumerate() {
            m.serialize_entry(&format!("p_{n}"), p)?;
            m.serialize_entry(&format!("analytic_p_{n}"), a)?;
        }
        m.end()
    }
}

impl ModelSummary for Summary {
    const WORK: &'static str = "events";
    const RATE: &'static str = "events_per_second";
    fn statistics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("mean_number_in_system", self.mean_number_in_system),
            ("blocking_probability", self.blocking_probability),
            ("mean_system_time", self.mean_system_time),
            ("utilization", self.utilization),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The interval from the fixed-point sums is Student t's over the replications' L̂_r
    /// (what `stats::estimate` gives from the values themselves), to the fixed point's
    /// resolution: a wrong mean, variance or degrees of freedom would be far off.
    #[test]
    fn the_interval_from_exact_sums_is_students_over_the_l_hats() {
        // (area, length) of replications whose L̂ spread from 0.3 to 4.7
        let runs: Vec<(u64, u64)> = (0..37u64)
            .map(|i| {
                (
                    3_000_000 + i * i * 7_919 + (i % 5) * 1_000_003,
                    1_000_000 + i * 13,
                )
            })
            .collect();
        let mut p = Pooled::default();
        for &(area, len) in &runs {
            p.add_l_hat(area, len);
        }
        let ls: Vec<f64> = runs.iter().map(|&(a, l)| a as f64 / l as f64).collect();
        let want = pdes_core::stats::estimate(&ls);
        let (mean, half) = p.l_interval();
        assert!(
            (mean - want.mean).abs() < 1e-9,
            "{mean} against {}",
            want.mean
        );
        let want_half = want.ci95.unwrap_or(f64::NAN);
        assert!(
            (half - want_half).abs() < 1e-9 * want_half.max(1.0),
            "{half} against {want_half}"
        );
        // one replication: its L̂ and no interval; none: zeros
        let one = Pooled {
            measured: 1,
            l_sum: u128::from(l_fixed(3, 2)),
            l_squares: 0,
            ..Pooled::default()
        };
        assert_eq!(one.l_interval(), (1.5, 0.0));
        assert_eq!(Pooled::default().l_interval(), (0.0, 0.0));
    }

    /// The blocks' digits weigh 2^(16 i): a sum of digit words is the number.
    #[test]
    fn digits_and_columns_weigh_their_place() {
        let v: u64 = 0x1234_5678_9abc_def0;
        let digits = [v & 0xffff, (v >> 16) & 0xffff, (v >> 32) & 0xffff, v >> 48];
        let twice: Vec<u32> = digits.iter().map(|&d| 2 * d as u32).collect();
        assert_eq!(weigh(&twice), 2 * u128::from(v));
    }
}
