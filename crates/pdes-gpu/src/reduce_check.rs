//! A direct check of the workgroup reductions (`shaders/reduce_check.wgsl`): known inputs,
//! one result per workgroup, compared with the same reductions computed on the CPU. The
//! engines' results depend on these reductions; checking them alone names the culprit when
//! an adapter's compiler gets them wrong (the subgroup sums on NVIDIA did, see
//! bench/NOTES.md), and gives `pdes-lab verify` a check that fails for that reason only.

use super::Gpu;
use super::read_ranges;
use super::shaders::{self, Reductions};
use pdes_core::sim::SimError;
use wgpu::util::DeviceExt;

/// Threads per workgroup of the reductions (WG in u64.wgsl).
const WG: usize = 256;

/// One thread's inputs (layout of `CheckIn` in reduce_check.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct CheckIn {
    m: [u32; 2],
    a: [u32; 2],
    b: [u32; 2],
    small: [u32; 2],
}

/// One workgroup's results (layout of `CheckOut`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
struct CheckOut {
    min: [u32; 2],
    a: [u32; 2],
    b: [u32; 2],
    min_only: [u32; 2],
    min32: u32,
    sum32: u32,
    pad: [u32; 2],
}

fn join(w: [u32; 2]) -> u64 {
    u64::from(w[0]) | (u64::from(w[1]) << 32)
}

fn split(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// SplitMix64: enough to spread test inputs (not the simulation's generator).
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Inputs for `groups` workgroups. The minima's high words come from a small set, so that
/// many lanes tie on the high word and the low word decides; the sums' terms are below
/// 2^55 (256 of them cannot overflow) and use every limb, so carries between limbs and
/// words happen; a and b are independent. Some runs of 32 lanes (whole subgroups at any
/// width up to 32) hold zero sums, as a step's idle threads do, with one lone lane among
/// them that does not (a reduction that skips zero subgroups, as one tried, must still sum
/// that lane).
fn inputs(seed: u64, groups: usize) -> Vec<CheckIn> {
    let mut s = seed;
    (0..groups * WG)
        .map(|i| {
            let lane = i % WG;
            let mut v = CheckIn {
                m: split((splitmix(&mut s) % 3 + 7) << 32 | (splitmix(&mut s) & 0xffff_ffff)),
                a: split(splitmix(&mut s) >> 9),
                b: split(splitmix(&mut s) >> 9),
                small: [splitmix(&mut s) as u32, (splitmix(&mut s) as u32) >> 8],
            };
            match lane / 32 {
                1 => (v.a, v.b) = ([0, 0], [0, 0]),
                2 => v.b = [0, 0],
                4 if lane != 150 => (v.a, v.b) = ([0, 0], [0, 0]),
                _ => {}
            }
            v
        })
        .collect()
}

/// What every workgroup must produce, computed on the CPU.
fn expected(inputs: &[CheckIn]) -> Vec<CheckOut> {
    inputs
        .chunks(WG)
        .map(|g| {
            let min = g.iter().map(|v| join(v.m)).min().unwrap_or(u64::MAX);
            CheckOut {
                min: split(min),
                a: split(g.iter().map(|v| join(v.a)).fold(0, u64::wrapping_add)),
                b: split(g.iter().map(|v| join(v.b)).fold(0, u64::wrapping_add)),
                min_only: split(min),
                min32: g.iter().map(|v| v.small[0]).min().unwrap_or(u32::MAX),
                sum32: g.iter().map(|v| v.small[1]).fold(0, u32::wrapping_add),
                pad: [0; 2],
            }
        })
        .collect()
}

/// Runs the reduction check with `reductions` over `groups` workgroups of inputs drawn
/// from `seed`. Returns one line per wrong field (empty when the GPU agrees).
pub fn run(
    gpu: &Gpu,
    reductions: Reductions,
    seed: u64,
    groups: usize,
) -> Result<Vec<String>, SimError> {
    let input = inputs(seed, groups);
    let out = dispatch(gpu, reductions, &input)?;
    Ok(compare(&expected(&input), &out))
}

/// Names every field where `got` differs from `want`, with both values.
fn compare(want: &[CheckOut], got: &[CheckOut]) -> Vec<String> {
    let mut diffs = Vec::new();
    for (g, (w, o)) in want.iter().zip(got).enumerate() {
        let fields = [
            ("wg_reduce min", join(w.min), join(o.min)),
            ("wg_reduce sum a", join(w.a), join(o.a)),
            ("wg_reduce sum b", join(w.b), join(o.b)),
            ("wg_min", join(w.min_only), join(o.min_only)),
            ("wg_min_sum32 min", w.min32.into(), o.min32.into()),
            ("wg_min_sum32 sum", w.sum32.into(), o.sum32.into()),
        ];
        for (name, want, got) in fields {
            if want != got {
                diffs.push(format!("workgroup {g}: {name}: CPU {want}, GPU {got}"));
            }
        }
    }
    diffs
}

fn dispatch(
    gpu: &Gpu,
    reductions: Reductions,
    input: &[CheckIn],
) -> Result<Vec<CheckOut>, SimError> {
    let device = &gpu.device;
    let groups = input.len() / WG;
    let src = shaders::reduce_check_module(reductions);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("reduce_check"),
        source: wgpu::ShaderSource::Wgsl(src.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("reduce_check"),
        layout: None,
        module: &module,
        entry_point: Some("check"),
        compilation_options: Default::default(),
        cache: None,
    });
    let in_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("reduce_check in"),
        contents: bytemuck::cast_slice(input),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let out_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("reduce_check out"),
        contents: bytemuck::cast_slice(&vec![CheckOut::default(); groups]),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("reduce_check"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: in_buf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: out_buf.as_entire_binding(),
            },
        ],
    });
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(groups as u32, 1, 1);
    }
    gpu.queue.submit([enc.finish()]);
    let size = (groups * std::mem::size_of::<CheckOut>()) as u64;
    let bytes = read_ranges(gpu, &[(&out_buf, 0, size)])?;
    Ok(bytemuck::pod_collect_to_vec(&bytes[0]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_names_the_field_and_both_values() {
        let input = inputs(3, 2);
        let want = expected(&input);
        let mut got = want.clone();
        got[1].b = got[1].a; // the NVIDIA symptom: b's sum replaced by a's
        let diffs = compare(&want, &got);
        assert_eq!(diffs.len(), 1, "{diffs:?}");
        assert!(
            diffs[0].starts_with("workgroup 1: wg_reduce sum b: CPU "),
            "{}",
            diffs[0]
        );
        assert!(compare(&want, &want).is_empty());
    }

    #[test]
    fn inputs_exercise_ties_and_carries() {
        let input = inputs(11, 4);
        // ties on the minimum's high word
        let highs: std::collections::BTreeSet<u32> = input.iter().map(|v| v.m[1]).collect();
        assert!(highs.len() <= 3);
        // a workgroup's sum of a carries out of the low word
        let e = expected(&input);
        assert!(e.iter().all(|o| join(o.a) > u64::from(u32::MAX)));
        // whole subgroups of zero sums, and a lone non-zero lane among zeros
        assert!(input[32..64].iter().all(|v| v.a == [0, 0] && v.b == [0, 0]));
        assert!(input[128..160].iter().filter(|v| v.a != [0, 0]).count() == 1);
    }
}
