//! The sequential torus taken apart (`pdes-lab bench --suite sequential-parts`): how much
//! of an event's time is the future-event list, how much the model's own state, and how
//! much the random draws — each part replayed alone from a recording of a real run.
//!
//! A run of the sequential simulator is recorded once (every event taken from the queue
//! and every event put into it, in order). Then:
//! - **queue alone**: a fresh calendar queue, built as the run built it, performs the
//!   recorded pushes and pops and nothing else; each pop must return the recorded event;
//! - **state alone**: a fresh state applies the recorded events in order (departure, then
//!   arrival at the neighbour) with no queue; the records an event touches are prefetched
//!   from the recording — perfect foresight, which no queue can beat — or not at all; the
//!   final state must equal the run's;
//! - **draws alone**: as many Philox draws, service times and directions as the run made.
//!
//! Each replay does exactly its part of the run's work, so a part's time is a floor for
//! any sequential simulator of this model that does that part the same way (the draws are
//! fixed by the GPU ≡ CPU contract; the queue's order by the event order).

use pdes_core::sim::Budget;
use pdes_core::sim::calendar::CalendarQueue;
use pdes_core::sim::heap::Event;
use pdes_core::time::Ticks;
use pdes_models::torus::sequential::{QueueLog, Sequential, prefetch_dependents, prefetch_record};
use pdes_models::torus::state::TorusState;
use std::time::Instant;

/// A sequential run's queue operations, in order.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// The events processed, in order.
    pub popped: Vec<Event>,
    /// The events put into the queue, in order.
    pub pushed: Vec<Event>,
    /// How many of `pushed` came after each processed event (0, 1 or 2).
    pub pushes_after: Vec<u8>,
}

impl QueueLog for Trace {
    fn popped(&mut self, e: Event) {
        self.popped.push(e);
        self.pushes_after.push(0);
    }
    fn pushed(&mut self, e: Event) {
        self.pushed.push(e);
        // an event is pushed only after one was taken, so a count exists to add to
        if let Some(n) = self.pushes_after.last_mut() {
            *n += 1;
        }
    }
}

/// A recorded run: what its initial state is built from, its trace and the state it
/// ended in.
#[derive(Clone, Debug)]
pub struct Recording {
    /// The network's parameters.
    pub params: pdes_models::torus::TorusParams,
    /// Its service law.
    pub law: pdes_models::torus::ServiceLaw,
    /// Its seed.
    pub seed: u64,
    /// Its queue operations.
    pub trace: Trace,
    /// The end time it ran to.
    pub end: Ticks,
    /// The state it ended in.
    pub last: TorusState,
    /// Seconds the recorded run took (recording included).
    pub seconds: f64,
}

impl Recording {
    /// The state the run started from, built anew: a clone would not be backed by huge
    /// pages as the simulator's own arrays are (`sim::memory::huge_vec`), and every
    /// replay must touch memory as the run did.
    pub fn initial(&self) -> TorusState {
        TorusState::new(&self.params, self.law, self.seed)
    }
}

/// Runs the sequential simulator of the network `params` from its initial state to `end`,
/// recording its queue operations.
pub fn record(
    params: &pdes_models::torus::TorusParams,
    law: pdes_models::torus::ServiceLaw,
    seed: u64,
    end: Ticks,
) -> Recording {
    let mut sim = Sequential::new(TorusState::new(params, law, seed), end);
    let mut trace = Trace::default();
    let t0 = Instant::now();
    sim.advance_logged(Budget::Finish, &mut trace);
    let seconds = t0.elapsed().as_secs_f64();
    Recording {
        params: params.clone(),
        law,
        seed,
        trace,
        end,
        last: sim.state,
        seconds,
    }
}

/// Performs the recorded queue operations on a fresh queue; returns the seconds taken, or
/// the first event that came out differently.
pub fn replay_queue(rec: &Recording) -> Result<f64, String> {
    let mut q = CalendarQueue::new(&Sequential::pending(&rec.initial()));
    let t = &rec.trace;
    let mut pushes = t.pushed.iter();
    // differences are counted, not branched on: the check costs no misprediction
    let mut wrong = 0u64;
    let t0 = Instant::now();
    for (want, &n) in t.popped.iter().zip(&t.pushes_after) {
        let got = q.pop();
        wrong += u64::from(got != Some(*want));
        for e in pushes.by_ref().take(usize::from(n)) {
            q.push(*e);
        }
    }
    let seconds = t0.elapsed().as_secs_f64();
    if wrong > 0 {
        return Err(format!(
            "queue replay: {wrong} of {} events came out of the queue in another order",
            t.popped.len()
        ));
    }
    Ok(seconds)
}

/// Events ahead whose facility records the state replay prefetches: the sequential
/// simulator's distance in buckets, at about one event per bucket.
const AHEAD_FACILITIES: usize = pdes_models::torus::sequential::LOAD_FACILITIES as usize;
/// Events ahead whose tokens and destination facilities the state replay prefetches.
const AHEAD_NEIGHBOURS: usize = pdes_models::torus::sequential::LOAD_NEIGHBOURS as usize;

/// Applies the recorded events to a fresh state, in order, with no queue; with
/// `prefetch`, each event's records are requested as the sequential simulator requests
/// them, but from the recording. Returns the seconds taken, or an error when the final
/// state differs from the run's.
pub fn replay_state(rec: &Recording, prefetch: bool) -> Result<f64, String> {
    let mut s = rec.initial();
    let ev = &rec.trace.popped;
    let t0 = Instant::now();
    for (i, e) in ev.iter().enumerate() {
        if prefetch {
            if let Some(a) = ev.get(i + AHEAD_FACILITIES) {
                prefetch_record(&s.facilities[a.facility as usize]);
            }
            if let Some(a) = ev.get(i + AHEAD_NEIGHBOURS) {
                prefetch_dependents(&s, a.facility);
            }
        }
        let dep = s.depart(e.facility, e.time);
        s.arrive(dep.dest, dep.token, e.time);
    }
    let seconds = t0.elapsed().as_secs_f64();
    if s != rec.last {
        return Err("state replay: the final state differs from the recorded run's".into());
    }
    Ok(seconds)
}

/// Makes as many draws (Philox words, service time, direction) as the run processed
/// events, with the run's seed and law; returns the seconds taken and a sum of the draws
/// (which keeps the compiler from dropping them).
pub fn draws_alone(rec: &Recording) -> (f64, u64) {
    let n = rec.trace.popped.len() as u64;
    let tokens = u64::from(rec.params.tokens());
    let mut sum = 0u64;
    let t0 = Instant::now();
    for i in 0..n {
        // token i mod n at visit i / n: distinct counters, as the run's draws are
        let words = pdes_core::rng::token_words(rec.seed, (i % tokens) as u32, (i / tokens) as u32);
        sum =
            sum.wrapping_add(rec.law.sample(&words) + u64::from(pdes_models::torus::route(&words)));
    }
    (t0.elapsed().as_secs_f64(), std::hint::black_box(sum))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pdes_models::queueing::Simulator;
    use pdes_models::torus::config::TorusConfig;

    fn recording(side: u32, end_time: f64) -> Recording {
        let mut cfg = TorusConfig::from_toml("", "test").unwrap();
        cfg.model.rows = side;
        cfg.model.cols = side + 3;
        cfg.model.tokens_per_facility = 2;
        cfg.run.end_time = end_time;
        record(&cfg.model, cfg.service_law(), 7, cfg.end_ticks())
    }

    #[test]
    fn the_trace_holds_every_event_and_push_of_the_run() {
        let rec = recording(12, 200.0);
        let t = &rec.trace;
        let mut sim = Sequential::new(rec.initial(), rec.end);
        sim.advance(Budget::Finish);
        assert_eq!(t.popped.len() as u64, sim.totals().events);
        assert_eq!(
            t.pushes_after
                .iter()
                .map(|&n| usize::from(n))
                .sum::<usize>(),
            t.pushed.len()
        );
        // one event pending per busy facility: the pushes make up for the pops
        let pending_now = Sequential::pending(&rec.last).len();
        assert_eq!(
            Sequential::pending(&rec.initial()).len() + t.pushed.len() - t.popped.len(),
            pending_now
        );
        assert_eq!(sim.state, rec.last);
    }

    #[test]
    fn replays_reproduce_the_run() {
        let rec = recording(10, 300.0);
        replay_queue(&rec).unwrap();
        replay_state(&rec, true).unwrap();
        replay_state(&rec, false).unwrap();
    }

    #[test]
    fn a_queue_replay_that_differs_is_refused() {
        let mut rec = recording(10, 100.0);
        rec.trace.popped.swap(3, 4);
        assert!(replay_queue(&rec).unwrap_err().contains("2 of"));
    }

    #[test]
    fn a_state_replay_that_differs_is_refused() {
        let mut rec = recording(10, 100.0);
        rec.trace.popped.pop();
        assert!(replay_state(&rec, true).is_err());
    }
}

/// One row of the suite: one part of the run at one size, timed.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PartRow {
    /// rows × cols.
    pub size: String,
    /// End time of the recorded run.
    pub end_time: f64,
    /// Which part ("sequential" is the whole run).
    pub part: &'static str,
    /// Events the run processed (each part does its share of their work).
    pub events: u64,
    /// Median seconds of the timed repetitions.
    pub wall_seconds: f64,
    /// Every repetition's seconds.
    pub wall_seconds_runs: Vec<f64>,
    /// Nanoseconds per event (median).
    pub ns_per_event: f64,
    /// Events per second (median).
    pub events_per_second: f64,
}

/// The sizes (side, end time) of a `sequential-parts` suite, or None when `name` is not one.
pub fn suite_sizes(name: &str) -> Option<&'static [(u32, f64)]> {
    match name {
        // the two baselines, at the device call's `baselines` horizons
        "sequential-parts" => Some(&[(256, 2000.0), (1024, 200.0)]),
        "sequential-parts-smoke" => Some(&[(24, 100.0)]),
        _ => None,
    }
}

/// The parts, in the order they are reported.
const PARTS: [&str; 5] = [
    "sequential",
    "queue alone",
    "state alone, prefetched",
    "state alone, no prefetch",
    "draws alone",
];

/// Runs a `sequential-parts` suite: at each size, records one run, then times the whole
/// run and each part `repeat` times (at least once) and reports the medians.
pub fn run(
    name: &str,
    sizes: &[(u32, f64)],
    options: &crate::BenchOptions,
) -> Result<(), pdes_core::Error> {
    use pdes_core::Error as CliError;
    let mut rows = Vec::new();
    for &(side, end_time) in sizes {
        let cfg = crate::suites::torus::sequential_config(side, end_time);
        let rec = record(&cfg.model, cfg.service_law(), cfg.run.seed, cfg.end_ticks());
        let events = rec.trace.popped.len() as u64;
        for part in PARTS {
            let mut runs = Vec::new();
            for _ in 0..options.repeat.max(1) {
                let seconds = match part {
                    "sequential" => {
                        let mut sim = Sequential::new(rec.initial(), rec.end);
                        let t0 = Instant::now();
                        sim.advance(Budget::Finish);
                        t0.elapsed().as_secs_f64()
                    }
                    "queue alone" => replay_queue(&rec).map_err(CliError::Run)?,
                    "state alone, prefetched" => replay_state(&rec, true).map_err(CliError::Run)?,
                    "state alone, no prefetch" => {
                        replay_state(&rec, false).map_err(CliError::Run)?
                    }
                    _ => draws_alone(&rec).0,
                };
                runs.push(seconds);
            }
            let median = crate::median(&runs);
            let row = PartRow {
                size: format!("{side}x{side}"),
                end_time,
                part,
                events,
                wall_seconds: median,
                wall_seconds_runs: runs,
                ns_per_event: median * 1e9 / events.max(1) as f64,
                events_per_second: events as f64 / median,
            };
            eprintln!(
                "{:>9} T={:<6} {:<26} {:>10} events {:>8.3} s {:>7.1} ns/event {:>10.3e} ev/s",
                row.size,
                row.end_time,
                row.part,
                row.events,
                row.wall_seconds,
                row.ns_per_event,
                row.events_per_second
            );
            rows.push(row);
        }
    }
    let mut table = format!(
        "{:<10} {:>7} {:<26} {:>10} {:>9} {:>9} {:>11}\n",
        "size", "T", "part", "events", "wall s", "ns/event", "events/s"
    );
    for r in &rows {
        table.push_str(&format!(
            "{:<10} {:>7} {:<26} {:>10} {:>9.3} {:>9.1} {:>11.3e}\n",
            r.size,
            r.end_time,
            r.part,
            r.events,
            r.wall_seconds,
            r.ns_per_event,
            r.events_per_second
        ));
    }
    crate::write_report(name, options, &rows, &table, None)
}
