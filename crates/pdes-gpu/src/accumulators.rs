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

/// What one batch of one-pass steps dispatches: each step pass `step` over `grid`
/// workgroups, then the batch's one-workgroup `close` (the last step's books).
pub struct StepPasses<'a> {
    /// The step's pipeline.
    pub step: &'a wgpu::ComputePipeline,
    /// The step pass's workgroups, (x, y) (the bookkeeper included).
    pub grid: (u32, u32),
    /// The close pass's pipeline.
    pub close: &'a wgpu::ComputePipeline,
}

/// Queues `steps` step passes and the close pass ([`crate::stamps::submit_steps`], a
/// submission every `per_submit`): pass i binds `bind_groups[(first + i) mod len]` — a
/// pass's position in the steps names its accumulators (and any other buffers that
/// rotate). Every step of a batch is due until one is not, and then none is, so the host
/// need not know how many will be. Returns the host's encoding seconds.
pub fn submit_batch(
    gpu: &crate::Gpu,
    bind_groups: &[wgpu::BindGroup],
    first: usize,
    steps: u32,
    per_submit: u32,
    stamps: Option<&crate::stamps::BatchStamps>,
    passes: &StepPasses,
) -> f64 {
    let mut position = first;
    let mut left = steps;
    crate::stamps::submit_steps(
        gpu,
        &bind_groups[first],
        steps + 1,
        per_submit,
        stamps,
        |pass| {
            pass.set_bind_group(0, &bind_groups[position], &[]);
            position = (position + 1) % bind_groups.len();
            if left > 0 {
                pass.set_pipeline(passes.step);
                pass.dispatch_workgroups(passes.grid.0, passes.grid.1, 1);
                left -= 1;
            } else {
                pass.set_pipeline(passes.close);
                pass.dispatch_workgroups(1, 1, 1);
            }
        },
    )
}
