//! A run's per-step records in bounded memory, whatever its length. Up to [`CAP`] records
//! are kept; when a record would pass that, every other kept record is dropped and from
//! then on only every `stride`-th step is kept (the stride doubles each time). Which steps
//! are kept depends only on their number, so a CPU twin and a GPU engine that push the
//! same records keep the same ones — `verify` compares them as before — and a series
//! decimated this way is still every step at its stride (its CSV names each record's
//! step).

use super::StepRecord;

/// The most records kept: 2^20, 32 MiB of [`StepRecord`]s.
pub const CAP: usize = 1 << 20;

/// Per-step records of one run, decimated past [`CAP`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepLog<R = StepRecord> {
    records: Vec<R>,
    /// Every `stride`-th step is kept (1 until the log first fills).
    stride: u64,
    /// Steps pushed so far, kept or not.
    steps: u64,
    cap: usize,
}

impl<R> Default for StepLog<R> {
    fn default() -> Self {
        Self::with_cap(CAP)
    }
}

impl<R> StepLog<R> {
    /// An empty log of at most [`CAP`] records.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty log of at most `cap` records (at least 2; tests use small ones).
    pub fn with_cap(cap: usize) -> Self {
        Self {
            records: Vec::new(),
            stride: 1,
            steps: 0,
            cap: cap.max(2),
        }
    }

    /// Records the next step.
    pub fn push(&mut self, r: R) {
        let step = self.steps;
        self.steps += 1;
        if !step.is_multiple_of(self.stride) {
            return;
        }
        if self.records.len() == self.cap {
            // keep the records of steps that are multiples of the doubled stride: the
            // even positions
            let mut i = 0;
            self.records.retain(|_| {
                i += 1;
                (i - 1) % 2 == 0
            });
            self.stride *= 2;
            if !step.is_multiple_of(self.stride) {
                return;
            }
        }
        self.records.push(r);
    }

    /// Steps recorded so far, kept or not.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Every `stride()`-th step is kept: record i is step i · stride.
    pub fn stride(&self) -> u64 {
        self.stride
    }

    /// Forgets every step (a reset).
    pub fn clear(&mut self) {
        self.records.clear();
        self.stride = 1;
        self.steps = 0;
    }
}

impl<R> std::ops::Deref for StepLog<R> {
    type Target = [R];
    fn deref(&self) -> &[R] {
        &self.records
    }
}

impl<'a, R> IntoIterator for &'a StepLog<R> {
    type Item = &'a R;
    type IntoIter = std::slice::Iter<'a, R>;
    fn into_iter(self) -> Self::IntoIter {
        self.records.iter()
    }
}

impl<R> Extend<R> for StepLog<R> {
    fn extend<I: IntoIterator<Item = R>>(&mut self, iter: I) {
        for r in iter {
            self.push(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_log_keeps_every_stride_th_step_and_its_memory_bounded() {
        let mut log = StepLog::with_cap(8);
        for s in 0..100u64 {
            log.push(s);
        }
        assert_eq!(log.steps(), 100);
        assert!(log.len() <= 8, "{}", log.len());
        let stride = log.stride();
        assert_eq!(stride, 16);
        // record i is step i · stride, for every kept record
        for (i, s) in log.iter().enumerate() {
            assert_eq!(*s, i as u64 * stride);
        }
        assert_eq!(log.len(), 7); // steps 0, 16, …, 96
    }

    #[test]
    fn a_log_below_its_cap_keeps_every_step() {
        let mut log = StepLog::with_cap(8);
        log.extend(0..8u64);
        assert_eq!(&log[..], &[0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(log.stride(), 1);
    }
}
