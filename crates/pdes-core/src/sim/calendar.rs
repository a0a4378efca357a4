//! An indexed calendar queue (Brown 1988) for simulators where every key — a facility —
//! has at most one pending event: the torus's sequential simulator.
//!
//! Events are kept in 2^k buckets of 2^s ticks each, bucket `(time >> s) & mask`. A
//! bucket is one 64-byte cache line holding up to [`BUCKET`] events inline (time, key);
//! the rare event that finds its bucket full goes to a small overflow heap. The minimum is
//! found by walking forward from the current bucket — consecutive lines, which the
//! hardware prefetcher streams — and taking, in the first bucket that holds an event of
//! the current "year", its least (time, key); an insertion touches one line. The order is
//! the heap's total order (time, then key), so the sample path is the same.
//!
//! Why inline buckets: the first version threaded each bucket's list through a slot per
//! key, so an insertion wrote a random slot and a random bucket head and the search walked
//! random slots — three to four cache misses per event at 10^6 facilities, half of the
//! simulator's time (bench/NOTES.md, "CPU baselines"). Here an insertion is one miss and
//! the search streams.

use super::heap::{Event, EventHeap, pack, unpack};
use crate::time::Ticks;

/// Events one bucket holds inline (one cache line: 4 times, 4 keys, a count).
const BUCKET: usize = 4;

/// Pushed events held back before they enter their bucket (see [`CalendarQueue::push`]).
const STAGED: usize = 4;

#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Bucket {
    times: [Ticks; BUCKET],
    keys: [u32; BUCKET],
    len: u32,
}

const EMPTY: Bucket = Bucket {
    times: [Ticks::MAX; BUCKET],
    keys: [u32::MAX; BUCKET],
    len: 0,
};

/// A calendar queue of [`Event`]s, at most one per key (facility).
#[derive(Clone, Debug)]
pub struct CalendarQueue {
    shift: u32,
    mask: u64,
    buckets: Vec<Bucket>,
    /// Events whose bucket was full when they came.
    overflow: EventHeap,
    /// Events held in the buckets.
    in_buckets: usize,
    /// Bucket number (time >> shift, not wrapped) where the search for the minimum starts;
    /// no event held in a bucket lies in an earlier bucket number.
    cur: u64,
    /// The least event held in the buckets, as (bucket index, entry), once searched.
    found: Option<(usize, usize)>,
    /// Pushed events not yet in their bucket, oldest first (`staged_len` of them; the
    /// rest of the array is `u128::MAX`), packed as in [`pack`].
    staged: [u128; STAGED],
    staged_len: usize,
    /// The earliest pending event and where it is held, once found (`next_held` is
    /// `Held::Unknown` until then). Plain fields rather than an `Option<(u128, Held)>`:
    /// the tuple was written whole and read back in pieces of other sizes, which defeats
    /// store-to-load forwarding — a stall on every event (bench/NOTES.md, "CPU baselines:
    /// where the cycles go").
    next_time: Ticks,
    next_key: u32,
    next_held: Held,
}

/// Where the earliest event is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Held {
    /// Not known: not searched since the queue last changed.
    Unknown,
    /// In a bucket, at `found`.
    Bucket,
    /// At the top of the overflow heap.
    Overflow,
    /// In the staging array, at this index.
    Staged(u8),
}

impl CalendarQueue {
    /// A queue holding `events`, its bucket width and count sized from them: a bucket is
    /// twice the mean gap between event times wide (rounded to a power of two), and there
    /// is a bucket per event.
    ///
    /// Why twice: the torus starts with every facility busy and settles near half, so one
    /// gap wide left ~2.4 buckets to walk per event (measured); two gaps wide, ~1.1.
    pub fn new(events: &[Event]) -> Self {
        let n = events.len().max(1) as u64;
        let min = events.iter().map(|e| e.time).min().unwrap_or(0);
        let mean_ahead = events
            .iter()
            .map(|e| u128::from(e.time - min))
            .sum::<u128>()
            / u128::from(n);
        // twice the mean gap between consecutive events, rounded to a power of two
        let gap = ((mean_ahead as u64) / n).max(1);
        let shift = 64 - gap.leading_zeros();
        let buckets = n.next_power_of_two().max(16);
        let mut q = Self {
            shift,
            mask: buckets - 1,
            buckets: super::memory::huge_vec(buckets as usize, EMPTY),
            overflow: EventHeap::with_capacity(64),
            in_buckets: 0,
            cur: min >> shift,
            found: None,
            staged: [u128::MAX; STAGED],
            staged_len: 0,
            next_time: Ticks::MAX,
            next_key: u32::MAX,
            next_held: Held::Unknown,
        };
        for &e in events {
            q.insert(e);
        }
        q
    }

    /// Pending events.
    pub fn len(&self) -> usize {
        self.in_buckets + self.overflow.len() + self.staged_len
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Queues `e` (its key must have no pending event).
    ///
    /// Its bucket is, at 10^6 keys, a cache line not in cache, and putting the event in it
    /// reads the line: a stall, when done at once. So the event is staged — its bucket
    /// prefetched — and enters the bucket [`STAGED`] pushes later; `peek` and `pop` look
    /// at the staged events too, so the order is unchanged.
    #[inline]
    pub fn push(&mut self, e: Event) {
        if self.staged_len == STAGED {
            let oldest = self.staged[0];
            self.unstage(0);
            self.insert(unpack(oldest));
        }
        self.prefetch_bucket(e.time);
        let k = pack(e);
        self.staged[self.staged_len] = k;
        if self.next_held != Held::Unknown && k < self.next_packed() {
            self.set_next(k, Held::Staged(self.staged_len as u8));
        }
        self.staged_len += 1;
    }

    /// The earliest event as packed (valid when `next_held` is not `Unknown`).
    #[inline]
    fn next_packed(&self) -> u128 {
        pack(Event {
            time: self.next_time,
            facility: self.next_key,
        })
    }

    /// Records the earliest event (packed) and where it is held.
    #[inline]
    fn set_next(&mut self, k: u128, held: Held) {
        let e = unpack(k);
        self.next_time = e.time;
        self.next_key = e.facility;
        self.next_held = held;
    }

    /// Removes staged entry `i`, keeping the others in order (and the cached earliest
    /// event's index right; forgotten when it was entry `i`, which is leaving).
    #[inline]
    fn unstage(&mut self, i: usize) {
        self.staged.copy_within(i + 1.., i);
        self.staged[STAGED - 1] = u128::MAX;
        self.staged_len -= 1;
        if let Held::Staged(j) = self.next_held {
            self.next_held = match usize::from(j).cmp(&i) {
                std::cmp::Ordering::Less => self.next_held,
                std::cmp::Ordering::Equal => Held::Unknown,
                std::cmp::Ordering::Greater => Held::Staged(j - 1),
            };
        }
    }

    /// Puts `e` into its bucket (or the overflow heap when the bucket is full).
    #[inline]
    fn insert(&mut self, e: Event) {
        let bucket_no = e.time >> self.shift;
        let b = (bucket_no & self.mask) as usize;
        let bucket = &mut self.buckets[b];
        let n = bucket.len as usize;
        if n == BUCKET {
            self.overflow.push(e);
            return;
        }
        bucket.times[n] = e.time;
        bucket.keys[n] = e.facility;
        bucket.len += 1;
        self.in_buckets += 1;
        if bucket_no < self.cur {
            self.cur = bucket_no;
            self.found = None;
        } else if let Some((fb, fi)) = self.found {
            let f = &self.buckets[fb];
            if (e.time, e.facility) < (f.times[fi], f.keys[fi]) {
                self.found = None;
            }
        }
        if self.found.is_none() && self.next_held == Held::Bucket {
            self.next_held = Held::Unknown;
        }
    }

    /// The earliest event (time, then key).
    #[inline]
    pub fn peek(&mut self) -> Option<Event> {
        if self.next_held != Held::Unknown {
            return Some(Event {
                time: self.next_time,
                facility: self.next_key,
            });
        }
        let mut best = (u128::MAX, Held::Bucket);
        if let Some(e) = self.bucket_min() {
            best = (pack(e), Held::Bucket);
        }
        if let Some(e) = self.overflow.peek()
            && pack(e) < best.0
        {
            best = (pack(e), Held::Overflow);
        }
        for (i, &k) in self.staged.iter().enumerate() {
            if k < best.0 {
                best = (k, Held::Staged(i as u8));
            }
        }
        if best.0 == u128::MAX {
            return None;
        }
        self.set_next(best.0, best.1);
        Some(unpack(best.0))
    }

    /// Removes and returns the earliest event.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<Event> {
        let e = self.peek()?;
        match self.next_held {
            Held::Unknown => unreachable!("peek found it"),
            Held::Staged(i) => self.unstage(usize::from(i)),
            Held::Overflow => {
                self.overflow.pop();
            }
            Held::Bucket => {
                let Some((b, i)) = self.found.take() else {
                    unreachable!("peek found the bucket minimum")
                };
                let bucket = &mut self.buckets[b];
                let last = bucket.len as usize - 1;
                bucket.times[i] = bucket.times[last];
                bucket.keys[i] = bucket.keys[last];
                bucket.times[last] = Ticks::MAX;
                bucket.keys[last] = u32::MAX;
                bucket.len -= 1;
                self.in_buckets -= 1;
            }
        }
        self.next_held = Held::Unknown;
        Some(e)
    }

    /// The earliest event's time (Ticks::MAX when empty), without changing the queue.
    pub fn min_time(&self) -> Ticks {
        if self.next_held != Held::Unknown {
            return self.next_time;
        }
        let in_buckets = match (self.in_buckets, self.found) {
            (0, _) => Ticks::MAX,
            (_, Some((b, i))) => self.buckets[b].times[i],
            _ => {
                let ((b, i), _) = self.locate();
                self.buckets[b].times[i]
            }
        };
        let staged = self
            .staged
            .iter()
            .min()
            .map_or(Ticks::MAX, |&k| unpack(k).time);
        in_buckets
            .min(self.overflow.peek().map_or(Ticks::MAX, |e| e.time))
            .min(staged)
    }

    /// Bucket number (time >> shift) where the search for the minimum starts: after a
    /// `peek`, the earliest event's bucket when it is held in a bucket.
    pub fn current_bucket(&self) -> u64 {
        self.cur
    }

    /// Keys of the events held in bucket number `bucket_no` (time >> shift, not wrapped),
    /// in no order: the events due soon, for a simulator to prefetch their state ahead.
    #[inline]
    pub fn keys_in_bucket(&self, bucket_no: u64) -> impl Iterator<Item = u32> + '_ {
        let bucket = &self.buckets[(bucket_no & self.mask) as usize];
        (0..bucket.len as usize)
            .filter(move |&i| bucket.times[i] >> self.shift == bucket_no)
            .map(move |i| bucket.keys[i])
    }

    /// Starts loading the bucket an event at `time` would be pushed to (a cache miss
    /// overlapped with other work instead of stalling the insertion).
    #[inline]
    fn prefetch_bucket(&self, time: Ticks) {
        self.prefetch_bucket_no(time >> self.shift);
    }

    /// Starts loading bucket number `bucket_no` (time >> shift, not wrapped): for a caller
    /// that will read [`Self::keys_in_bucket`] of it soon.
    #[inline]
    pub fn prefetch_bucket_no(&self, bucket_no: u64) {
        super::prefetch(&self.buckets[(bucket_no & self.mask) as usize]);
    }

    /// The least event held in the buckets, searched for (and cached) when not known.
    #[inline]
    fn bucket_min(&mut self) -> Option<Event> {
        if self.in_buckets == 0 {
            return None;
        }
        let (b, i) = match self.found {
            Some(f) => f,
            None => {
                let (f, cur) = self.locate();
                self.found = Some(f);
                self.cur = cur;
                f
            }
        };
        Some(Event {
            time: self.buckets[b].times[i],
            facility: self.buckets[b].keys[i],
        })
    }

    /// The least event in the buckets (there is one) as (bucket index, entry), and its
    /// bucket number: walks buckets from `cur`; after a whole year of buckets without an
    /// event of their year jumps straight to the least event's bucket.
    fn locate(&self) -> ((usize, usize), u64) {
        let mut cur = self.cur;
        let mut walked = 0;
        loop {
            let b = (cur & self.mask) as usize;
            let bucket = &self.buckets[b];
            // the least entry of this year, without branches on the data: entries past
            // `len` hold Ticks::MAX, never of the year
            let mut best = (u128::MAX, 0);
            for i in 0..BUCKET {
                let k = (u128::from(bucket.times[i]) << 32) | u128::from(bucket.keys[i]);
                let ours = bucket.times[i] >> self.shift == cur;
                if ours & (k < best.0) {
                    best = (k, i);
                }
            }
            if best.0 != u128::MAX {
                return ((b, best.1), cur);
            }
            cur += 1;
            walked += 1;
            if walked > self.mask + 1 {
                // a year with nothing in it: the next event is far ahead
                let Some(least) = self
                    .buckets
                    .iter()
                    .flat_map(|b| b.times[..b.len as usize].iter().copied())
                    .min()
                else {
                    unreachable!("the queue is not empty: a bucket holds an event")
                };
                cur = least >> self.shift;
                walked = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::heap::EventHeap;

    /// Random pushes and pops (unique keys, many ties, bursts far ahead) give the heap's
    /// order exactly.
    #[test]
    fn pops_in_the_heaps_order() {
        let mut rng = crate::rng::PhiloxRng::new([7, 9]);
        let mut below = |n: u64| rand_core::Rng::next_u64(&mut rng) % n;
        // (200, 2): many events share a bucket, so full buckets send events to the overflow
        let mut overflowed = false;
        for (keys, spread) in [(50u32, 4u64), (1000, 1 << 20), (300, 1 << 40), (200, 2)] {
            let init: Vec<Event> = (0..keys / 2)
                .map(|f| Event {
                    time: below(spread),
                    facility: f,
                })
                .collect();
            let mut cal = CalendarQueue::new(&init);
            let mut heap = EventHeap::with_capacity(keys as usize);
            for &e in &init {
                heap.push(e);
            }
            let mut queued: Vec<bool> = (0..keys).map(|f| f < keys / 2).collect();
            for _ in 0..20_000 {
                if below(2) == 0 || heap.is_empty() {
                    let f = below(u64::from(keys)) as u32;
                    if queued[f as usize] {
                        continue;
                    }
                    let now = heap.peek().map_or(0, |e| e.time);
                    if below(2) == 0 {
                        // a push after a peek must keep (or correct) the earliest it found
                        assert_eq!(cal.peek(), heap.peek());
                    }
                    let far = below(100) == 0;
                    let e = Event {
                        time: now + if far { spread * 50 } else { below(spread) },
                        facility: f,
                    };
                    cal.push(e);
                    heap.push(e);
                    queued[f as usize] = true;
                } else {
                    assert_eq!(cal.min_time(), heap.peek().unwrap().time);
                    assert_eq!(cal.peek(), heap.peek());
                    let (a, b) = (cal.pop(), heap.pop());
                    assert_eq!(a, b);
                    queued[a.unwrap().facility as usize] = false;
                }
                assert_eq!(cal.len(), heap.len());
                overflowed |= !cal.overflow.is_empty();
            }
        }
        assert!(
            overflowed,
            "no bucket ever overflowed: the test misses a path"
        );
    }
}
