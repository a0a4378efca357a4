//! A 4-ary min-heap of `(time, facility)` events for the sequential simulator.
//!
//! Each facility has at most one pending event (the departure of the token in service),
//! so the heap never exceeds K entries and is allocated once. Ties in time are broken by
//! facility index, which makes the event order — and so the sample path — a total order
//! that the parallel algorithms reproduce. Four children per node halve the depth of a
//! binary heap and keep siblings in one cache line.

use crate::time::Ticks;

/// An event key: ordered by time, then facility.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Event {
    /// Event time.
    pub time: Ticks,
    /// Facility whose token departs.
    pub facility: u32,
}

/// Packs an event into one integer whose order is the event order (time, then facility),
/// so each comparison in the heap is a single 128-bit compare.
#[inline]
pub(crate) fn pack(e: Event) -> u128 {
    (u128::from(e.time) << 32) | u128::from(e.facility)
}

/// The event [`pack`] made `k` from.
#[inline]
pub(crate) fn unpack(k: u128) -> Event {
    Event {
        time: (k >> 32) as u64,
        facility: k as u32,
    }
}

/// A 4-ary min-heap of [`Event`]s.
#[derive(Clone, Debug, Default)]
pub struct EventHeap {
    items: Vec<u128>,
}

impl EventHeap {
    /// An empty heap with room for `capacity` events.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            items: Vec::with_capacity(capacity),
        }
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when no event is pending.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The earliest event.
    #[inline]
    pub fn peek(&self) -> Option<Event> {
        self.items.first().copied().map(unpack)
    }

    /// Adds an event.
    #[inline]
    pub fn push(&mut self, e: Event) {
        self.items.push(pack(e));
        self.sift_up(self.items.len() - 1, pack(e));
    }

    /// Removes the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        let top = self.peek()?;
        // peek found an event, so there is a last item to take
        let last = self.items.pop()?;
        if !self.items.is_empty() {
            self.sift_down(last);
        }
        Some(top)
    }

    /// Replaces the earliest event by `e` (one sift instead of a pop and a push).
    #[inline]
    pub fn replace_top(&mut self, e: Event) {
        self.sift_down(pack(e));
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize, k: u128) {
        let items = &mut self.items[..];
        while i > 0 {
            let parent = (i - 1) / 4;
            if items[parent] <= k {
                break;
            }
            items[i] = items[parent];
            i = parent;
        }
        items[i] = k;
    }

    /// Moves the hole at the root down along the smallest children to a leaf, then lets
    /// `k` rise from there ("bottom-up" sifting). A replaced top usually belongs near the
    /// leaves, so this saves the comparison with `k` at every level on the way down.
    #[inline]
    fn sift_down(&mut self, k: u128) {
        let items = &mut self.items[..];
        let n = items.len();
        let mut i = 0;
        loop {
            let first = 4 * i + 1;
            if first + 4 <= n {
                let c = &items[first..first + 4];
                let (a, b) = (
                    if c[1] < c[0] { 1 } else { 0 },
                    if c[3] < c[2] { 3 } else { 2 },
                );
                let best = first + if c[b] < c[a] { b } else { a };
                items[i] = items[best];
                i = best;
            } else if first < n {
                let mut best = first;
                for j in first + 1..n {
                    if items[j] < items[best] {
                        best = j;
                    }
                }
                items[i] = items[best];
                i = best;
            } else {
                break;
            }
        }
        self.sift_up(i, k);
    }
}

/// A binary min-heap of one pending time per item (cell) with `update` in O(log n): the
/// event list of the quantized-state diffusion engine, where every event reschedules the
/// updated cell and its neighbours. Keys order by (time, item), so ties have one order.
#[derive(Clone, Debug)]
pub struct IndexedHeap {
    keys: Vec<u128>,
    /// Heap slot of every item.
    pos: Vec<u32>,
}

/// The time of an item that has nothing scheduled.
pub const NEVER: Ticks = Ticks::MAX;

impl IndexedHeap {
    /// A heap holding items `0..times.len()` at `times`.
    pub fn new(times: &[Ticks]) -> Self {
        let mut h = Self {
            keys: times
                .iter()
                .enumerate()
                .map(|(i, &t)| {
                    pack(Event {
                        time: t,
                        facility: i as u32,
                    })
                })
                .collect(),
            pos: (0..times.len() as u32).collect(),
        };
        for slot in (0..h.keys.len() / 2).rev() {
            h.sift_down(slot);
        }
        h
    }

    /// The earliest (time, item); `None` when empty.
    pub fn peek(&self) -> Option<(Ticks, u32)> {
        self.keys.first().map(|&k| {
            let e = unpack(k);
            (e.time, e.facility)
        })
    }

    /// Moves `item` to `time`.
    pub fn update(&mut self, item: u32, time: Ticks) {
        let slot = self.pos[item as usize] as usize;
        let old = self.keys[slot];
        let new = pack(Event {
            time,
            facility: item,
        });
        self.keys[slot] = new;
        if new < old {
            self.sift_up(slot);
        } else {
            self.sift_down(slot);
        }
    }

    fn place(&mut self, slot: usize, key: u128) {
        self.keys[slot] = key;
        self.pos[unpack(key).facility as usize] = slot as u32;
    }

    fn sift_up(&mut self, mut slot: usize) {
        let key = self.keys[slot];
        while slot > 0 {
            let parent = (slot - 1) / 2;
            if self.keys[parent] <= key {
                break;
            }
            self.place(slot, self.keys[parent]);
            slot = parent;
        }
        self.place(slot, key);
    }

    fn sift_down(&mut self, mut slot: usize) {
        let key = self.keys[slot];
        let n = self.keys.len();
        loop {
            let mut child = 2 * slot + 1;
            if child >= n {
                break;
            }
            if child + 1 < n && self.keys[child + 1] < self.keys[child] {
                child += 1;
            }
            if self.keys[child] >= key {
                break;
            }
            self.place(slot, self.keys[child]);
            slot = child;
        }
        self.place(slot, key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_facility_order() {
        let mut h = EventHeap::with_capacity(8);
        let mut x: u64 = 12345;
        let mut all = Vec::new();
        for f in 0..1000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let e = Event {
                time: (x >> 54) % 50,
                facility: f,
            };
            all.push(e);
            h.push(e);
        }
        // replace_top keeps the order too
        let top = h.peek().unwrap();
        let moved = Event {
            time: 40,
            facility: top.facility,
        };
        h.replace_top(moved);
        let i = all.iter().position(|e| *e == top).unwrap();
        all[i] = moved;
        all.sort();
        let popped: Vec<Event> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(popped, all);
    }

    #[test]
    fn indexed_heap_follows_updates_like_a_sorted_list() {
        let mut times: Vec<Ticks> = (0..50u64).map(|i| (i * 7919) % 61).collect();
        let mut h = IndexedHeap::new(&times);
        let mut x = 12345u64;
        for _ in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let item = ((x >> 33) % 50) as u32;
            let t = if (x >> 20).is_multiple_of(9) {
                NEVER
            } else {
                (x >> 40) % 100
            };
            times[item as usize] = t;
            h.update(item, t);
            let want = (0..50u32).map(|i| (times[i as usize], i)).min().unwrap();
            assert_eq!(h.peek(), Some(want));
        }
    }
}
