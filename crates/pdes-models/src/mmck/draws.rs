//! Who makes a replication's random draws on the GPU (mmck.wgsl, "Random numbers"): its
//! own thread between its events, or a producer thread beside it. The draws are the same
//! either way — the same stream positions, in the same order — so the replications end in
//! the same bits; only the time differs, and which wins depends on how full the device is
//! (bench/NOTES.md, "M/M/c/k's draws made beside its events").

use super::times::Times;

/// Who makes the draws, and with what workgroup memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawsMadeBy {
    /// The replication's own thread, between its events, two Philox blocks of each stream
    /// ahead: 64 replications a workgroup. Where replications fill the device.
    OwnThread,
    /// A producer thread beside the replication's, in a warp of its own, filling a ring of
    /// `ring` draws of each stream in workgroup memory (32 or 64 places; the consumer runs
    /// (ring − 3) / 2 events between two barriers): 32 replications (64 threads) a
    /// workgroup. Where replications leave most of the device's schedulers idle.
    Producer {
        /// Places of each stream's ring (a power of two).
        ring: u32,
    },
}

/// The producers' rings, the longest first, and up to how many replications (on one
/// device) each is used. On an H100 (bench/NOTES.md, "M/M/c/k's draws made beside its
/// events"): rings of 32 places (8 KiB of rings, 14 events between barriers; a browser's
/// 16 KiB hold them) ran 7,168 and 14,336 replications 1.8× and 1.3× faster than their own
/// threads, 21,504 as fast, 28,672 to 57,344 8–30% slower; rings of 64 (16 KiB, 30 events)
/// 3% faster again at 7,168, 40% slower at 14,336.
const RINGS: [(u32, u32); 2] = [(64, 8_192), (32, 16_384)];

/// Threads in a warp of consumers or of producers (mmck.wgsl's PRODUCERS).
const WARP: u32 = 32;

/// The most state times (capacity + 1) a replication keeps in workgroup memory (mmck.wgsl,
/// `st_shared`): planned here with the rings, since both share the workgroup's memory.
pub const STATES_IN_WORKGROUP: u32 = 8;

impl DrawsMadeBy {
    /// Producers with the longest ring of [`RINGS`] whose count of replications the run's
    /// does not pass and whose workgroup memory the device has, else each replication's own
    /// thread.
    /// `PDES_MMCK_DRAWS=own`, `producer32` or `producer64` forces one (for benchmarks;
    /// a ring that does not fit is not used).
    pub fn for_run(replications: u32, limits: &wgpu::Limits) -> Self {
        let fitting = Self::every(limits);
        let forced = std::env::var("PDES_MMCK_DRAWS")
            .ok()
            .and_then(|v| fitting.iter().copied().find(|d| d.name() == v.as_str()));
        if let Some(d) = forced {
            return d;
        }
        RINGS
            .iter()
            .filter(|&&(_, most)| replications <= most)
            .map(|&(ring, _)| Self::Producer { ring })
            .find(|d| fitting.contains(d))
            .unwrap_or(Self::OwnThread)
    }

    /// Every way the device can make the draws, producers with the longest ring first
    /// (`verify` and the tests check each against the CPU).
    pub fn every(limits: &wgpu::Limits) -> Vec<Self> {
        Self::all()
            .into_iter()
            .filter(|d| d.workgroup_bytes() <= limits.max_compute_workgroup_storage_size)
            .collect()
    }

    /// Every way there is, whatever a device holds (the shader checks compile each).
    pub fn all() -> Vec<Self> {
        RINGS
            .iter()
            .map(|&(ring, _)| Self::Producer { ring })
            .chain([Self::OwnThread])
            .collect()
    }

    /// Its name in `PDES_MMCK_DRAWS` and in `verify`'s details.
    pub fn name(self) -> String {
        match self {
            Self::OwnThread => "own".into(),
            Self::Producer { ring } => format!("producer{ring}"),
        }
    }

    /// Replications a workgroup of `advance`.
    pub fn replications_per_group(self) -> u32 {
        match self {
            Self::OwnThread => 2 * WARP,
            Self::Producer { .. } => WARP,
        }
    }

    /// Words of the rings of draws and of the cursors (one where unused: WGSL has no empty
    /// array).
    fn pool_words(self) -> (u32, u32) {
        match self {
            Self::OwnThread => (1, 1),
            Self::Producer { ring } => (2 * ring * WARP, 4 * WARP),
        }
    }

    /// Bytes of workgroup memory a workgroup of `advance` may use (the rings, the cursors,
    /// two counters, and the most state times kept there).
    fn workgroup_bytes(self) -> u32 {
        let (pool, cursors) = self.pool_words();
        let states = 2 * STATES_IN_WORKGROUP * self.replications_per_group();
        4 * (pool + cursors + 2 + states)
    }

    /// The events of a phase, between two of the workgroup's barriers, with the times
    /// held as `times`: a producer's ring sets it (mmck.wgsl's `fill`: a phase reads at
    /// most PHASE draws of a stream past its first, and the ring holds at least
    /// 2 · PHASE + 3); with its own draws a thread needs a phase only to move its times'
    /// base ([`Times::own_thread_phase`]).
    pub fn phase(self, times: Times) -> u32 {
        match self {
            Self::OwnThread => times.own_thread_phase(),
            Self::Producer { ring } => (ring - 3) / 2,
        }
    }

    /// The shader's constants for it, its times held as `times`: consumers and producers
    /// a workgroup, the events of a phase, the ring's places and the workgroup memory's
    /// sizes in words.
    pub fn constants(self, times: Times) -> String {
        let (pool, cursors) = self.pool_words();
        let (consumers, producers, ring) = match self {
            Self::OwnThread => (2 * WARP, 0, 1),
            Self::Producer { ring } => (WARP, WARP, ring),
        };
        let phase = self.phase(times);
        format!(
            "const CONSUMERS: u32 = {consumers}u;\nconst PRODUCERS: u32 = {producers}u;\nconst PHASE: u32 = {phase}u;\nconst RING_DRAWS: u32 = {ring}u;\nconst POOL_WORDS: u32 = {pool}u;\nconst CURSOR_WORDS: u32 = {cursors}u;\n"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_run_gets_the_longest_ring_that_fits_and_a_large_one_its_own_threads() {
        // (PDES_MMCK_DRAWS, a benchmark's knob, is not set in the tests)
        let mut limits = wgpu::Limits {
            max_compute_workgroup_storage_size: 32 * 1024,
            ..Default::default()
        };
        assert_eq!(
            DrawsMadeBy::for_run(7_168, &limits),
            DrawsMadeBy::Producer { ring: 64 }
        );
        assert_eq!(
            DrawsMadeBy::for_run(14_336, &limits),
            DrawsMadeBy::Producer { ring: 32 }
        );
        assert_eq!(
            DrawsMadeBy::for_run(57_344, &limits),
            DrawsMadeBy::OwnThread
        );
        limits.max_compute_workgroup_storage_size = 16 * 1024;
        assert_eq!(
            DrawsMadeBy::for_run(7_168, &limits),
            DrawsMadeBy::Producer { ring: 32 }
        );
        limits.max_compute_workgroup_storage_size = 4 * 1024;
        assert_eq!(DrawsMadeBy::for_run(7_168, &limits), DrawsMadeBy::OwnThread);
    }

    #[test]
    fn a_phase_leaves_the_ring_room_for_the_next() {
        for (ring, _) in RINGS {
            for times in [Times::Offsets, Times::Ticks] {
                let c = DrawsMadeBy::Producer { ring }.constants(times);
                let phase: u32 = c
                    .lines()
                    .find_map(|l| l.strip_prefix("const PHASE: u32 = "))
                    .and_then(|v| v.trim_end_matches("u;").parse().ok())
                    .unwrap_or(0);
                assert!(
                    phase >= 1 && 2 * phase + 3 <= ring,
                    "ring {ring}: phase {phase}"
                );
            }
        }
    }
}
