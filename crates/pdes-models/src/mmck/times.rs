//! How the GPU holds a replication's times in its event loop (mmck.wgsl, "Times"): as one
//! 32-bit word, an offset from a base that moves to the clock at every phase's end, where
//! the run's laws keep every offset a phase can reach below 2³¹; else as a pair of words
//! holding the 64-bit ticks. The ticks are the same either way, so are the replications'
//! records; one word makes a compare, an add or a select one instruction instead of two to
//! four (bench/NOTES.md, "M/M/c/k's times in one word").

use super::RunShape;
use super::draws::DrawsMadeBy;

/// How a replication's times are held in the event loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Times {
    /// Offsets from a base moved every phase (times_offsets.wgsl): where [`Times::fits`].
    Offsets,
    /// 64-bit ticks as word pairs (times_ticks.wgsl): every run.
    Ticks,
}

/// Events between two moves of the base where a replication's own thread makes its draws
/// (no producer sets a phase): long enough that the move and the workgroup's barrier cost
/// little, short enough for most laws' bound ([`Times::fits`]).
const OWN_THREAD_PHASE: u32 = 128;

/// Offsets and sums of offsets stay below this (the signed arrivals' range).
const OFFSET_LIMIT: u64 = 1 << 31;

impl Times {
    /// Whether one-word offsets hold every time of `shape`'s replications with `phase`
    /// events between two moves of the base. A draw is below 32 means (its −ln below 32 in
    /// Q5.27), so a gap is below G = 32 · the mean gap, a service below S = 32 · the mean
    /// service. In a phase the next arrival starts at most G past the base and each arrival
    /// moves it by less than G, the clock never passes it, and a departure is at most S
    /// after the clock: every future time stays below (phase + 1) · G + S. A customer in
    /// the system arrived less than (k − c + 1) · S before the clock (it waited for at most
    /// k − c departures, each within S of the one before, with every server busy, then
    /// its own service). Both must be below 2³¹, the arrivals being signed offsets.
    pub fn fits(shape: &RunShape, phase: u32) -> bool {
        let g = 32 * u64::from(shape.laws.arrival);
        let s = 32 * u64::from(shape.laws.service);
        let span = (u64::from(phase) + 1) * g + s;
        let age = u64::from(shape.capacity - shape.servers + 1) * s;
        span < OFFSET_LIMIT && age < OFFSET_LIMIT
    }

    /// Every way that holds `shape`'s times with the draws made by `draws`, one word first
    /// (`verify` and the tests check each against the CPU).
    pub fn every(shape: &RunShape, draws: DrawsMadeBy) -> Vec<Self> {
        if Self::fits(shape, draws.phase(Self::Offsets)) {
            vec![Self::Offsets, Self::Ticks]
        } else {
            vec![Self::Ticks]
        }
    }

    /// The way a run uses: one word where it fits. `PDES_MMCK_TIMES=ticks` forces word
    /// pairs (for benchmarks).
    pub fn for_run(shape: &RunShape, draws: DrawsMadeBy) -> Self {
        let forced_ticks = std::env::var("PDES_MMCK_TIMES").is_ok_and(|v| v == "ticks");
        if !forced_ticks && Self::fits(shape, draws.phase(Self::Offsets)) {
            Self::Offsets
        } else {
            Self::Ticks
        }
    }

    /// Its name in `PDES_MMCK_TIMES` and in `verify`'s details.
    pub fn name(self) -> &'static str {
        match self {
            Self::Offsets => "offsets",
            Self::Ticks => "ticks",
        }
    }

    /// Events between two moves of the base where a replication's own thread makes its
    /// draws (no move: the dispatch's every event, as one phase).
    pub fn own_thread_phase(self) -> u32 {
        match self {
            Self::Offsets => OWN_THREAD_PHASE,
            Self::Ticks => u32::MAX,
        }
    }

    /// The shader part that defines `Time` and its functions.
    pub fn source(self) -> std::borrow::Cow<'static, str> {
        match self {
            Self::Offsets => pdes_gpu::shaders::part(
                "times_offsets.wgsl",
                include_str!("shaders/times_offsets.wgsl"),
            ),
            Self::Ticks => pdes_gpu::shaders::part(
                "times_ticks.wgsl",
                include_str!("shaders/times_ticks.wgsl"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mmck::Laws;

    fn shape(arrival: u32, service: u32, servers: u32, capacity: u32) -> RunShape {
        RunShape {
            seed: 1,
            laws: Laws { arrival, service },
            servers,
            capacity,
            customers: 10,
            warmup: 0,
        }
    }

    #[test]
    fn one_word_fits_up_to_the_bound_and_not_past_it() {
        // a phase of 1: 2 · 32 · arrival + 32 · service ticks must stay below 2^31
        let service = 1 << 20;
        let room = (1u64 << 31) - 32 * service as u64; // left for 2 · 32 · arrival
        let largest = ((room - 1) / 64) as u32;
        assert!(Times::fits(&shape(largest, service, 1, 1), 1));
        assert!(!Times::fits(&shape(largest + 1, service, 1, 1), 1));
        // a customer's age: (k − c + 1) · 32 · service below 2^31 (k − c + 1 = 4)
        let largest_service = (((1u64 << 31) - 1) / (4 * 32)) as u32;
        assert!(Times::fits(&shape(1, largest_service, 2, 5), 1));
        assert!(!Times::fits(&shape(1, largest_service + 1, 2, 5), 1));
    }

    #[test]
    fn a_run_that_does_not_fit_holds_its_times_as_ticks_only() {
        let slow = shape(1 << 20, 1 << 28, 1, 1); // 32 · 2^28 = 2^33 ticks of service
        for draws in DrawsMadeBy::all() {
            assert_eq!(Times::every(&slow, draws), vec![Times::Ticks]);
        }
        let paper = shape(1 << 18, 1 << 20, 3, 5);
        for draws in DrawsMadeBy::all() {
            assert_eq!(
                Times::every(&paper, draws),
                vec![Times::Offsets, Times::Ticks]
            );
        }
    }
}
