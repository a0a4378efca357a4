//! A stepped engine's token pool grown between batches (the network's): the new size, the
//! new buffers with the old contents copied, and the control block told to plan the step
//! again. The free stack is the last array of its binding, so
//! that binding grows at its end.

use super::Gpu;
use super::kit::{self, Region};
use super::stepped::{PHASE_HELD, StepCtl};
use pdes_core::sim::SimError;

/// The pool's buffers after growing: the token records, the binding whose last array is
/// the free stack, and where that stack lies in it.
pub struct Grown {
    /// Token records.
    pub tok: wgpu::Buffer,
    /// The binding ending with the free stack.
    pub lists: wgpu::Buffer,
    /// The free stack inside `lists`.
    pub free_stack: Region,
}

/// The slots a pool of `cap` needs when `used` are handed out and the planned step lacked
/// `short`: at least twice as many, a power of two; refused past u32's range, naming the
/// tokens `in_what` ("the system", "the network").
pub fn grown_size(cap: u32, used: u32, short: u32, in_what: &str) -> Result<u32, SimError> {
    let needed = u64::from(used) + u64::from(short);
    let new = (2 * u64::from(cap)).max(needed).next_power_of_two();
    if new > u64::from(u32::MAX) {
        return Err(SimError::Gpu(format!(
            "token pool: {needed} tokens in {in_what} exceed the GPU engine's limit of {} slots",
            u32::MAX
        )));
    }
    Ok(new as u32)
}

/// Buffers for `new` slots of `token_bytes` each, `tok` and `lists` (whose free stack starts
/// at `stack_at`) copied into them; `lists_label` names the binding.
pub fn grow(
    gpu: &Gpu,
    (tok, lists, stack_at): (&wgpu::Buffer, &wgpu::Buffer, u64),
    token_bytes: u64,
    new: u32,
    lists_label: &str,
) -> Result<Grown, SimError> {
    let new = u64::from(new);
    let device = &gpu.device;
    let oom = kit::OomScope::push(device);
    let grown_tok = kit::buffer(device, "token pool", token_bytes * new, kit::STORAGE_RW);
    let grown_lists = kit::buffer(device, lists_label, stack_at + 4 * new, kit::STORAGE_RW);
    oom.check(format_args!("the token pool grown to {new} slots"))?;
    let mut enc = device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(tok, 0, &grown_tok, 0, tok.size());
    enc.copy_buffer_to_buffer(lists, 0, &grown_lists, 0, lists.size());
    gpu.queue.submit([enc.finish()]);
    Ok(Grown {
        free_stack: Region {
            buffer: grown_lists.clone(),
            offset: stack_at,
            size: 4 * new,
        },
        tok: grown_tok,
        lists: grown_lists,
    })
}

/// Writes the pool's new capacity `cap` (at byte `cap_at` of the control block `ctl`, whose
/// head is a [`StepCtl`] at `head_at`) and phase HELD, so that the next batch plans the step
/// the pool could not hold again.
pub fn plan_again(gpu: &Gpu, ctl: &wgpu::Buffer, (cap_at, head_at): (usize, usize), cap: u32) {
    gpu.queue
        .write_buffer(ctl, cap_at as u64, bytemuck::bytes_of(&cap));
    gpu.queue.write_buffer(
        ctl,
        (head_at + std::mem::offset_of!(StepCtl, phase)) as u64,
        bytemuck::bytes_of(&PHASE_HELD),
    );
}
