//! M/M/c/k replications (Cheng 2014, paper 003 §4): many independent runs of one small
//! queue, one per GPU thread, and the output analysis across them.
//!
//! Customers arrive at rate λ; c servers serve at rate μ each; at most k customers are in
//! the system (those in service included): an arrival that finds k is blocked and lost.
//! FIFO queue. Every replication starts empty and ends at its `customers`-th departure;
//! with `run.warmup` = w its statistics start at the w-th departure.
//!
//! Random numbers: replication r draws its i-th arrival gap and its i-th service time
//! (in the order services start) from Philox keyed by (r, seed): word i mod 4 of the block
//! at counter (i / 4, seed_hi, stream), stream 0 for gaps and 1 for services, through the
//! project's integer exponential transform, so the CPU ([`Replication::advance`]) and the
//! GPU (`shaders/mmck.wgsl`) compute the same ticks bit for bit. (Each block gives four
//! draws: one Philox per four draws, where it had been one per draw.)

pub mod analytic;
pub mod config;
pub mod cpu;
pub mod draws;
pub mod gpu;
pub mod live;
mod records;
pub mod spread;
pub mod summary;
pub mod times;
pub mod verify;

use pdes_core::rng;
use pdes_core::sim::heap::NEVER;
use pdes_core::time::Ticks;
use std::collections::VecDeque;

/// Validated parameters of the queue.
#[derive(Clone, Debug, PartialEq)]
pub struct MmckParams {
    /// λ: arrivals per unit time.
    pub arrival_rate: f64,
    /// μ: services per unit time of one server.
    pub service_rate: f64,
    /// c.
    pub servers: u32,
    /// k: customers in the system at most (in service included).
    pub capacity: u32,
}

/// Means of the two exponential laws in ticks (the scale of the integer transform).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Laws {
    /// Mean gap between arrivals.
    pub arrival: u32,
    /// Mean service time.
    pub service: u32,
}

impl Laws {
    /// The laws of `p` (rates validated so that both means are whole ticks below 2^32).
    pub fn new(p: &MmckParams) -> Self {
        let ticks = |rate: f64| (pdes_core::time::TICKS_PER_UNIT / rate).round() as u32;
        Self {
            arrival: ticks(p.arrival_rate),
            service: ticks(p.service_rate),
        }
    }
}

/// Philox stream of the arrival gaps.
pub const STREAM_ARRIVALS: u32 = 0;
/// Philox stream of the service times.
pub const STREAM_SERVICES: u32 = 1;

/// Philox block `block` of `stream` of replication `r`: draws 4·block .. 4·block + 3.
#[inline]
fn philox_block(seed: u64, r: u32, stream: u32, block: u64) -> [u32; 4] {
    rng::philox4x32_10(
        [
            block as u32,
            (block >> 32) as u32,
            (seed >> 32) as u32,
            stream,
        ],
        [r, seed as u32],
    )
}

/// Draw `index` of `stream` of replication `r`, as an exponential with mean `mean` ticks:
/// word `index` mod 4 of Philox block `index` / 4.
#[inline]
pub fn draw(seed: u64, r: u32, stream: u32, index: u64, mean: u32) -> Ticks {
    let w = philox_block(seed, r, stream, index >> 2);
    rng::scale_q27(rng::neg_ln_q27(w[(index & 3) as usize]), mean)
}

/// The last Philox block of each stream a replication drew from, kept so that the CPU too
/// computes one block per four draws. Derived data — a function of the key and the block's
/// number — so it never makes two replications differ: every two are equal here.
#[derive(Clone, Default)]
pub struct Blocks([Option<(u64, [u32; 4])>; 2]);

impl Blocks {
    /// Draw `index` of `stream` (0 or 1) of replication `r` as [`draw`] gives it.
    #[inline]
    fn draw(&mut self, seed: u64, r: u32, stream: u32, index: u64, mean: u32) -> Ticks {
        let block = index >> 2;
        let slot = &mut self.0[stream as usize];
        let words = match slot {
            Some((b, w)) if *b == block => *w,
            _ => {
                let w = philox_block(seed, r, stream, block);
                *slot = Some((block, w));
                w
            }
        };
        rng::scale_q27(rng::neg_ln_q27(words[(index & 3) as usize]), mean)
    }
}

impl PartialEq for Blocks {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Blocks {}

impl std::fmt::Debug for Blocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Blocks")
    }
}

/// What a replication measured from its warm-up on (all integers: exact on both engines).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// When measuring started (0, or the time of the warm-up-th departure).
    pub t_start: Ticks,
    /// ∫ n dt.
    pub area: u64,
    /// ∫ min(n, c) dt: busy server time.
    pub busy: u64,
    /// Arrivals (blocked ones included).
    pub arrivals: u64,
    /// Arrivals that found k customers.
    pub blocked: u64,
    /// Departures.
    pub departures: u64,
    /// Σ time in system of the departed.
    pub sojourn: u64,
    /// Σ wait before service of those who started service.
    pub wait: u64,
    /// Services started.
    pub starts: u64,
    /// Time with n customers, n = 0..=k.
    pub state_time: Vec<u64>,
}

impl Tally {
    /// Its counters in the GPU record's order (t_start, area, busy, arrivals, blocked,
    /// departures, sojourn, wait, starts); the state times are apart.
    pub fn counters(&self) -> [u64; 9] {
        [
            self.t_start,
            self.area,
            self.busy,
            self.arrivals,
            self.blocked,
            self.departures,
            self.sojourn,
            self.wait,
            self.starts,
        ]
    }

    fn new(capacity: u32, t_start: Ticks) -> Self {
        Self {
            t_start,
            state_time: vec![0; capacity as usize + 1],
            ..Self::default()
        }
    }
}

/// One replication: the CPU twin of a thread of `shaders/mmck.wgsl`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replication {
    /// Its number (the random-number key).
    pub index: u32,
    /// Current time.
    pub t: Ticks,
    /// Time of the next arrival.
    pub next_arrival: Ticks,
    /// Customers in the system.
    pub n: u32,
    /// Arrival gaps drawn so far (the next gap's index).
    pub gaps_drawn: u64,
    /// Services started so far (the next service's index).
    pub services_drawn: u64,
    /// Departures so far (the warm-up included).
    pub departures: u64,
    /// Events processed.
    pub events: u64,
    /// Per server: (departure time, NEVER when idle; arrival time of its customer, 0 when
    /// idle).
    pub servers: Vec<(Ticks, Ticks)>,
    /// Arrival times of the waiting customers, first to be served first.
    pub queue: VecDeque<Ticks>,
    /// Statistics from the warm-up on.
    pub tally: Tally,
    /// The random-number blocks in use (equal in every two replications).
    pub blocks: Blocks,
}

/// What every replication of a run shares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunShape {
    /// Seed.
    pub seed: u64,
    /// Laws in ticks.
    pub laws: Laws,
    /// c.
    pub servers: u32,
    /// k.
    pub capacity: u32,
    /// A replication ends at this departure.
    pub customers: u64,
    /// Measuring starts at this departure (0: from the start).
    pub warmup: u64,
}

impl Replication {
    /// Replication `index` at time 0: empty, its first arrival drawn.
    pub fn new(shape: &RunShape, index: u32) -> Self {
        Self {
            index,
            t: 0,
            next_arrival: Self::first_arrival(shape, index),
            n: 0,
            gaps_drawn: 1,
            services_drawn: 0,
            departures: 0,
            events: 0,
            servers: vec![(NEVER, 0); shape.servers as usize],
            queue: VecDeque::new(),
            tally: Tally::new(shape.capacity, 0),
            blocks: Blocks::default(),
        }
    }

    /// When replication `index`'s first customer arrives (its first gap).
    pub fn first_arrival(shape: &RunShape, index: u32) -> Ticks {
        draw(shape.seed, index, STREAM_ARRIVALS, 0, shape.laws.arrival)
    }

    /// True after its last departure.
    pub fn done(&self, shape: &RunShape) -> bool {
        self.departures >= shape.customers
    }

    /// Processes events before `limit`, at most `max_events`; returns how many. Ties: a
    /// departure before an arrival, the lower-numbered server first.
    pub fn advance(&mut self, shape: &RunShape, limit: Ticks, max_events: u64) -> u64 {
        let mut done = 0;
        while done < max_events && !self.done(shape) {
            let (server, dep) = self
                .servers
                .iter()
                .enumerate()
                .fold(
                    (0, NEVER),
                    |best, (i, s)| {
                        if s.0 < best.1 { (i, s.0) } else { best }
                    },
                );
            let departs = dep <= self.next_arrival;
            let te = if departs { dep } else { self.next_arrival };
            if te >= limit {
                break;
            }
            let dt = te - self.t;
            let c = shape.servers;
            self.tally.area += u64::from(self.n) * dt;
            self.tally.busy += u64::from(self.n.min(c)) * dt;
            self.tally.state_time[self.n as usize] += dt;
            self.t = te;
            if departs {
                self.depart(shape, server);
            } else {
                self.arrive(shape);
            }
            self.events += 1;
            done += 1;
        }
        done
    }

    /// Starts the service of a customer that arrived at `arrived` on idle server `i`.
    fn start(&mut self, shape: &RunShape, i: usize, arrived: Ticks) {
        let s = self.blocks.draw(
            shape.seed,
            self.index,
            STREAM_SERVICES,
            self.services_drawn,
            shape.laws.service,
        );
        self.services_drawn += 1;
        self.servers[i] = (self.t + s, arrived);
        self.tally.starts += 1;
        self.tally.wait += self.t - arrived;
    }

    fn depart(&mut self, shape: &RunShape, i: usize) {
        let arrived = self.servers[i].1;
        // an idle server has no customer: arrival 0, as at the start (the GPU's one-word
        // times cannot hold a long-gone customer's arrival, and nothing reads it)
        self.servers[i] = (NEVER, 0);
        self.n -= 1;
        self.departures += 1;
        self.tally.departures += 1;
        self.tally.sojourn += self.t - arrived;
        if let Some(a) = self.queue.pop_front() {
            self.start(shape, i, a);
        }
        if self.departures == shape.warmup {
            self.tally = Tally::new(shape.capacity, self.t);
        }
    }

    fn arrive(&mut self, shape: &RunShape) {
        self.tally.arrivals += 1;
        if self.n == shape.capacity {
            self.tally.blocked += 1;
        } else {
            self.n += 1;
            match self.servers.iter().position(|s| s.0 == NEVER) {
                Some(i) => self.start(shape, i, self.t),
                None => self.queue.push_back(self.t),
            }
        }
        let gap = self.blocks.draw(
            shape.seed,
            self.index,
            STREAM_ARRIVALS,
            self.gaps_drawn,
            shape.laws.arrival,
        );
        self.gaps_drawn += 1;
        self.next_arrival = self.t + gap;
    }
}

/// The M/M/c/k replications in the model registry.
pub static INFO: crate::config::ModelInfo = crate::config::ModelInfo {
    kind: "mmck",
    label: "M/M/c/k replications",
    description: "M/M/c/k replications",
    about: "Many independent replications of one M/M/c/k queue, one per GPU thread, with confidence intervals across them (Cheng 2014, paper 003 §4).",
    teaching_preset: "teaching-mmck",
    parse: config::parse,
    presets: &[
        (
            "teaching-mmck",
            include_str!("../../../../presets/teaching-mmck.toml"),
        ),
        (
            "cheng2014-mmck",
            include_str!("../../../../presets/cheng2014-mmck.toml"),
        ),
    ],
    keys: config::KEYS,
    size_keys: "run.replications",
    shader_modules: |_| gpu::checked_modules(),
    verify: verify::checks,
    verify_once: verify::check_once,
    cpu_bytes: live::cpu_bytes,
    build: live::build,
    replicas: None,
    spread: Some(spread::build),
    page_checks: Some(|gpu| Box::pin(verify::page_checks(gpu))),
    info: include_str!("info.md"),
    algorithms: &[crate::config::AlgorithmInfo::new("replications", "replications", "Independent replications of the queue, each an ordinary event-by-event simulation; on the GPU one thread per replication (paper 003 §4). CPU and GPU give the same replications bit for bit.").exact()],
};

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(customers: u64, warmup: u64) -> RunShape {
        RunShape {
            seed: 5,
            laws: Laws::new(&MmckParams {
                arrival_rate: 4.0,
                service_rate: 1.0,
                servers: 3,
                capacity: 5,
            }),
            servers: 3,
            capacity: 5,
            customers,
            warmup,
        }
    }

    #[test]
    fn a_replication_keeps_its_books_and_stops_at_its_last_departure() {
        let s = shape(2000, 0);
        let mut r = Replication::new(&s, 3);
        r.advance(&s, NEVER, u64::MAX);
        assert!(r.done(&s));
        let t = &r.tally;
        assert_eq!(t.departures, 2000);
        // every admitted customer is in service, waiting, or gone
        assert_eq!(t.arrivals - t.blocked, t.departures + u64::from(r.n));
        assert_eq!(
            r.n as usize,
            r.queue.len() + r.servers.iter().filter(|s| s.0 != NEVER).count()
        );
        // the state times add up to the run's length; ∫ n dt is their weighted sum
        assert_eq!(t.state_time.iter().sum::<u64>(), r.t);
        let area: u64 = t
            .state_time
            .iter()
            .enumerate()
            .map(|(n, x)| n as u64 * x)
            .sum();
        assert_eq!(area, t.area);
        // never more than k in the system: capacity 5 is full sometimes at λ/μ = 4
        assert!(t.state_time[5] > 0 && t.blocked > 0);
    }

    #[test]
    fn the_kept_blocks_draw_what_a_fresh_block_draws() {
        let mut blocks = Blocks::default();
        // in order, across blocks, back to an earlier block, in both streams
        for (stream, index) in [
            (0, 0),
            (0, 1),
            (1, 0),
            (0, 5),
            (1, 3),
            (1, 4),
            (0, 2),
            (1, 9),
        ] {
            assert_eq!(
                blocks.draw(7, 11, stream, index, 1 << 20),
                draw(7, 11, stream, index, 1 << 20),
                "stream {stream} draw {index}"
            );
        }
    }

    #[test]
    fn budgets_do_not_change_the_path_and_warm_up_restarts_the_books() {
        let s = shape(500, 100);
        let mut whole = Replication::new(&s, 0);
        whole.advance(&s, NEVER, u64::MAX);
        let mut pieces = Replication::new(&s, 0);
        let mut limit = 0;
        while !pieces.done(&s) {
            limit += 1 << 18;
            pieces.advance(&s, limit, 7);
        }
        assert_eq!(pieces, whole);
        assert_eq!(whole.tally.departures, 400);
        assert!(whole.tally.t_start > 0);
        assert_eq!(
            whole.tally.state_time.iter().sum::<u64>(),
            whole.t - whole.tally.t_start
        );
    }
}
