//! A step's accumulators in three buffers that rotate, for engines whose step is one pass:
//! each pass's workgroups fold their least next time and counts into the step's own
//! accumulators, and the NEXT pass takes the minimum at its start, so that no pass waits
//! for its own workgroups to finish (the DEVS and PHOLD steps; bench/NOTES.md, "SIR without
//! a step's close"). A pass at position k in the steps binds the previous step's buffer
//! (read-only: its loads are cached), its own (folded into) and the next step's (cleared by
//! the pass's bookkeeper): buffers (k + 2) mod 3, k mod 3 and (k + 1) mod 3.

/// Buffers that rotate.
pub const SETS: usize = 3;

/// The three buffers of a step's accumulators.
pub struct StepAccumulators {
    buffers: [wgpu::Buffer; SETS],
}

impl StepAccumulators {
    /// Two buffers of `cleared` (accumulators no step has folded into) and one of
    /// `initial` (what the first step, at position 0, reads as its previous step's: the
    /// initial least time), all storage buffers of the same size.
    pub fn new(device: &wgpu::Device, label: &str, cleared: &[u8], initial: &[u8]) -> Self {
        let buffer = |contents: &[u8]| {
            crate::kit::buffer_init(device, label, contents, crate::kit::STORAGE_RW)
        };
        Self {
            buffers: [buffer(cleared), buffer(cleared), buffer(initial)],
        }
    }

    /// The buffers a pass at `position` in the steps binds, in order: the previous step's,
    /// its own, the next step's.
    pub fn roles(&self, position: usize) -> [&wgpu::Buffer; 3] {
        let b = &self.buffers;
        [
            &b[(position + 2) % SETS],
            &b[position % SETS],
            &b[(position + 1) % SETS],
        ]
    }

    /// Bytes of GPU memory the three take.
    pub fn bytes(&self) -> u64 {
        self.buffers.iter().map(wgpu::Buffer::size).sum()
    }
}
