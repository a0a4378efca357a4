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

/// What a summary adds up over replications, in their order: the exact sums of the
/// measured replications' counters and state times, each one's L̂_r (for the interval),
/// and the events and finished replications of all. Built part by part ([`Pooled::add`],
/// [`Pooled::merge`] in order), so that a GPU's records are summed where they lie, on
/// every core, without a [`Replication`] made of each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pooled {
    events: u64,
    finished: u32,
    /// T, area, busy, arrivals, blocked, departures, sojourn, wait, starts.
    sums: [u128; 9],
    state: Vec<u128>,
    ls: Vec<f64>,
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
        self.ls.push(r.counters[1] as f64 / len as f64);
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
        self.ls.extend(later.ls);
        self
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
        let ls = &pooled.ls;
        let (events, finished) = (pooled.events, pooled.finished);
        let est = pdes_core::stats::estimate(if ls.is_empty() { &[0.0] } else { ls });
        let half = est.ci95.unwrap_or(0.0);
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
            sim_time: if ls.is_empty() {
                0.0
            } else {
                to_units((len / ls.len() as u128) as u64)
            },
            mean_number_in_system: est.mean,
            ci95_low: est.mean - half,
            ci95_high: est.mean + half,
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
