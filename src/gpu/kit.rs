//! Small host-side pieces every GPU engine uses: 64-bit values as WGSL `vec2<u32>` words,
//! whole-buffer readback, one bind group over a list of buffers, compute pipelines by
//! entry point.

use super::{Gpu, read_ranges};
use crate::sim::SimError;

/// A 64-bit value as the (lo, hi) words of a WGSL `vec2<u32>`.
pub fn split(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// The 64-bit value of (lo, hi) words.
pub fn join(w: [u32; 2]) -> u64 {
    u64::from(w[0]) | (u64::from(w[1]) << 32)
}

/// The 128-bit value of four little-endian words (a WGSL `vec4<u32>` accumulator).
pub fn join128(w: [u32; 4]) -> u128 {
    u128::from(join([w[0], w[1]])) | (u128::from(join([w[2], w[3]])) << 64)
}

/// Copies whole buffers to mappable staging buffers, waits, and returns their bytes.
pub fn read_buffers(gpu: &Gpu, sources: &[&wgpu::Buffer]) -> Result<Vec<Vec<u8>>, SimError> {
    let ranges: Vec<(&wgpu::Buffer, u64, u64)> =
        sources.iter().map(|b| (*b, 0, b.size())).collect();
    read_ranges(gpu, &ranges)
}

/// How a compute pass uses a buffer binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// `var<uniform>`.
    Uniform,
    /// `var<storage, read>`.
    Read,
    /// `var<storage, read_write>`.
    ReadWrite,
}

/// The layout entry of compute binding `binding`.
pub fn layout_entry(binding: u32, usage: Use) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: match usage {
                Use::Uniform => wgpu::BufferBindingType::Uniform,
                Use::Read => wgpu::BufferBindingType::Storage { read_only: true },
                Use::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
            },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A layout whose binding i is used as `uses[i]`.
pub fn layout(device: &wgpu::Device, label: &str, uses: &[Use]) -> wgpu::BindGroupLayout {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = uses
        .iter()
        .enumerate()
        .map(|(i, u)| layout_entry(i as u32, *u))
        .collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    })
}

/// A bind group whose binding i is the whole of `buffers[i]`.
pub fn bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffers: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: b.as_entire_binding(),
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}

/// The compute pipeline of `entry` in `module`.
pub fn pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry: &str,
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(layout),
        module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// A pipeline layout over bind groups `groups` (group i = groups[i]).
pub fn pipeline_layout(
    device: &wgpu::Device,
    label: &str,
    groups: &[&wgpu::BindGroupLayout],
) -> wgpu::PipelineLayout {
    let groups: Vec<Option<&wgpu::BindGroupLayout>> = groups.iter().map(|g| Some(*g)).collect();
    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &groups,
        immediate_size: 0,
    })
}

/// Runs a model's display pass and submits it (nothing is read back): `pipeline` with the
/// engine's bind group `state` as group 0 and `display` (two u32 per heatmap cell) bound
/// alone as group 1 under `layout`, over `groups` workgroups.
pub fn run_display_pass(
    gpu: &Gpu,
    state: &wgpu::BindGroup,
    (layout, pipeline): (&wgpu::BindGroupLayout, &wgpu::ComputePipeline),
    display: &wgpu::Buffer,
    groups: u32,
) {
    let device = &gpu.device;
    let group = bind_group(device, "display", layout, &[display]);
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_bind_group(0, state, &[]);
        pass.set_bind_group(1, &group, &[]);
        pass.set_pipeline(pipeline);
        pass.dispatch_workgroups(groups, 1, 1);
    }
    gpu.queue.submit([enc.finish()]);
}
