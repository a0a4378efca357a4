//! The stencil ladder: a diffusion step built up from a copy kernel by kernel, each rung
//! checked against its CPU twin.

use super::*;
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, Use};
use serde::Serialize;

/// One kernel of the stencil ladder and what a pass of it costs.
#[derive(Clone, Debug, Serialize)]
pub struct StencilRung {
    /// Entry point in `shaders/stencil_ladder.wgsl`.
    pub kernel: &'static str,
    /// Microseconds per pass in a chain of dependent passes, median.
    pub us: f64,
}

/// The ladder's kernels, from a plain copy to the diffusion step's layout.
pub const STENCIL_RUNGS: [&str; 5] = ["copy1", "point5", "strip", "strip_count", "quad"];

/// Times chains of `chain` passes of each `STENCIL_RUNGS` kernel over a `side` × `side`
/// f32 grid (side a multiple of 4), ping-ponging between two grids. Before timing, one pass
/// of each stencil kernel is checked against the same step on the CPU (within 1e-3: the
/// driver may fuse a multiply-add), and the copy against its source.
pub fn stencil_ladder(
    gpu: &Gpu,
    side: u32,
    chain: u32,
    repeats: u32,
) -> Result<Vec<StencilRung>, String> {
    if side == 0 || !side.is_multiple_of(4) {
        return Err(format!(
            "stencil ladder: side {side} must be a positive multiple of 4"
        ));
    }
    let device = &gpu.device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("stencil ladder"),
        source: wgpu::ShaderSource::Wgsl(include_str!("../../shaders/stencil_ladder.wgsl").into()),
    });
    let uses = [
        Use::Read,
        Use::ReadWrite,
        Use::ReadWrite,
        Use::Read,
        Use::ReadWrite,
    ];
    let layout = kit::layout(device, "stencil ladder", &uses);
    let pl = kit::pipeline_layout(device, "stencil ladder", &[&layout]);
    let n = (side as usize) * (side as usize);
    let grid: Vec<f32> = (0..n)
        .map(|i| ((i as u32).wrapping_mul(0x9e37_79b1) >> 8) as f32 * (100.0 / 16_777_216.0))
        .collect();
    let a = kit::buffer_init(
        device,
        "ladder a",
        bytemuck::cast_slice(&grid),
        kit::STORAGE_RW,
    );
    let b = kit::buffer_init(device, "ladder b", &vec![0u8; n * 4], kit::STORAGE_RW);
    let count = kit::buffer_init(device, "ladder count", &[0u8; 256], kit::STORAGE_RW);
    let a_to_b = kit::bind_group(device, "ladder a→b", &layout, &[&a, &b, &count, &a, &b]);
    let b_to_a = kit::bind_group(device, "ladder b→a", &layout, &[&b, &a, &count, &b, &a]);
    let expected = cpu_stencil(&grid, side as usize);
    // workgroups of 256 for `threads` threads, as (x, y) within the 65,535 limit
    let flat = |threads: u64| {
        let g = threads.div_ceil(256);
        let x = g.min(4096);
        (x as u32, g.div_ceil(x) as u32)
    };
    let strip_groups = (side.div_ceil(256), side.div_ceil(10));
    let mut rungs = Vec::new();
    for kernel in STENCIL_RUNGS {
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(kernel),
            layout: Some(&pl),
            module: &module,
            entry_point: Some(kernel),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &[("SIDE", f64::from(side))],
                ..Default::default()
            },
            cache: None,
        });
        let groups = match kernel {
            "strip" | "strip_count" => strip_groups,
            "quad" => flat(n as u64 / 4),
            _ => flat(n as u64),
        };
        let run = |passes: u32, enc: &mut wgpu::CommandEncoder| {
            encode_chain(enc, &pipeline, [&a_to_b, &b_to_a], groups, passes)
        };
        // one pass from the initial grid, checked
        gpu.queue.write_buffer(&a, 0, bytemuck::cast_slice(&grid));
        let mut enc = device.create_command_encoder(&Default::default());
        run(1, &mut enc);
        gpu.queue.submit([enc.finish()]);
        let out = kit::read_buffers(gpu, &[&b]).map_err(|e| e.to_string())?;
        let got: &[f32] = bytemuck::cast_slice(&out[0]);
        let want = if kernel == "copy1" { &grid } else { &expected };
        if let Some(i) = (0..n).find(|&i| (got[i] - want[i]).abs() > 1e-3) {
            return Err(format!(
                "stencil ladder {kernel}: cell {i} is {} where the CPU step gives {}",
                got[i], want[i]
            ));
        }
        let t = median_seconds(gpu, repeats, &|enc| run(chain, enc))?;
        rungs.push(StencilRung {
            kernel,
            us: t * 1e6 / f64::from(chain),
        });
    }
    Ok(rungs)
}

/// The ladder's step on the CPU: the five-point update with the boundary 100 outside.
fn cpu_stencil(grid: &[f32], side: usize) -> Vec<f32> {
    let at = |r: isize, c: isize| {
        if r < 0 || c < 0 || r >= side as isize || c >= side as isize {
            100.0
        } else {
            grid[r as usize * side + c as usize]
        }
    };
    let (ax, ay) = (0.1f32, 0.1f32);
    (0..side * side)
        .map(|i| {
            let (r, c) = ((i / side) as isize, (i % side) as isize);
            let m = at(r, c);
            m + (ax * ((at(r, c - 1) + at(r, c + 1)) - 2.0 * m)
                + ay * ((at(r - 1, c) + at(r + 1, c)) - 2.0 * m))
        })
        .collect()
}
