//! A replication's record of u32 words as the GPU stores it (word-major: word i of
//! replication r at i × replications + r; the layout in `shaders/mmck.wgsl`), written from
//! and read into a [`Replication`] — the twin of the shader's loads and stores.

use super::{Replication, RunShape, Tally};
use pdes_gpu::kit::{join, split};

/// Words of a record before the state times (see mmck.wgsl).
const HEADER: u32 = 34;

/// Where the next arrival's two words are.
const NEXT_ARRIVAL: u32 = 2;

/// Where the parts of a record start, and its length, in u32 words.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub(super) state: u32,
    pub(super) server: u32,
    pub(super) queue: u32,
    pub(super) stride: u32,
}

impl Layout {
    /// The layout of `shape`'s records.
    pub(super) fn of(shape: &RunShape) -> Self {
        let state = HEADER;
        let server = state + 2 * (shape.capacity + 1);
        let queue = server + 4 * shape.servers;
        Self {
            state,
            server,
            queue,
            // the shader's ring has one place even where k = c (WGSL has no empty array)
            stride: queue + 2 * (shape.capacity - shape.servers).max(1),
        }
    }
}

/// Replication `r`'s words in the word-major records of `reps` replications.
pub(super) struct Record<'a> {
    words: &'a mut [u32],
    reps: u32,
    r: u32,
}

impl<'a> Record<'a> {
    /// Replication `r`'s place in `words`.
    pub(super) fn new(words: &'a mut [u32], reps: u32, r: u32) -> Self {
        Self { words, reps, r }
    }
    fn set(&mut self, i: u32, v: u32) {
        self.words[(i * self.reps + self.r) as usize] = v;
    }
}

/// Writes `rep` into its record.
pub(super) fn write_record(w: &mut Record, l: &Layout, rep: &Replication) {
    let mut put = |i: u32, v: u64| {
        let [lo, hi] = split(v);
        w.set(i, lo);
        w.set(i + 1, hi);
    };
    put(0, rep.t);
    put(NEXT_ARRIVAL, rep.next_arrival);
    put(8, rep.gaps_drawn);
    put(10, rep.services_drawn);
    put(12, rep.departures);
    put(14, rep.events);
    let t = &rep.tally;
    for (i, v) in t.counters().into_iter().enumerate() {
        put(16 + 2 * i as u32, v);
    }
    for (n, v) in t.state_time.iter().enumerate() {
        put(l.state + 2 * n as u32, *v);
    }
    for (i, (dep, arr)) in rep.servers.iter().enumerate() {
        put(l.server + 4 * i as u32, *dep);
        put(l.server + 4 * i as u32 + 2, *arr);
    }
    for (i, a) in rep.queue.iter().enumerate() {
        put(l.queue + 2 * i as u32, *a);
    }
    w.set(4, rep.n);
    w.set(5, 0); // queue head
    w.set(6, rep.queue.len() as u32);
}

/// Reads replication `index` from its record, word `i` of which is `w(i)`.
pub(super) fn read_record(
    w: impl Fn(u32) -> u32,
    l: &Layout,
    shape: &RunShape,
    index: u32,
) -> Replication {
    let get = |i: u32| join([w(i), w(i + 1)]);
    let next_arrival = get(NEXT_ARRIVAL);
    let ring = shape.capacity - shape.servers;
    let (head, len) = (w(5), w(6));
    Replication {
        index,
        t: get(0),
        next_arrival,
        n: w(4),
        gaps_drawn: get(8),
        services_drawn: get(10),
        departures: get(12),
        events: get(14),
        servers: (0..shape.servers)
            .map(|i| (get(l.server + 4 * i), get(l.server + 4 * i + 2)))
            .collect(),
        queue: (0..len)
            .map(|j| get(l.queue + 2 * ((head + j) % ring.max(1))))
            .collect(),
        tally: Tally {
            t_start: get(16),
            area: get(18),
            busy: get(20),
            arrivals: get(22),
            blocked: get(24),
            departures: get(26),
            sojourn: get(28),
            wait: get(30),
            starts: get(32),
            state_time: (0..=shape.capacity).map(|n| get(l.state + 2 * n)).collect(),
        },
        blocks: super::Blocks::default(),
    }
}

/// The record every replication of a part starting at replication `first` has at time 0
/// but for its first arrival (`mmck_books.wgsl`'s `init` copies it to every replication and
/// draws each one's first arrival where the records live): `first`'s record.
pub(super) fn template_words(shape: &RunShape, l: &Layout, first: u32) -> Vec<u32> {
    let mut words = vec![0u32; l.stride as usize];
    write_record(
        &mut Record::new(&mut words, 1, 0),
        l,
        &Replication::new(shape, first),
    );
    words
}
