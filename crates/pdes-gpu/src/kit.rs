//! Small host-side pieces every GPU engine uses: 64-bit values as WGSL `vec2<u32>` words,
//! whole-buffer readback, one bind group over a list of buffers, compute pipelines by
//! entry point.

use super::{Gpu, read_ranges};
use pdes_core::sim::SimError;

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

/// [`read_buffers`] for an engine whose latest batch of work is `work` (see
/// [`crate::read_ranges_since`]).
pub fn read_buffers_since(
    gpu: &Gpu,
    sources: &[&wgpu::Buffer],
    work: u64,
) -> Result<Vec<Vec<u8>>, SimError> {
    let ranges: Vec<(&wgpu::Buffer, u64, u64)> =
        sources.iter().map(|b| (*b, 0, b.size())).collect();
    crate::read_ranges_since(gpu, &ranges, work)
}

/// Bytes `offset .. offset + size` of `buffer`: one of the arrays [`packed`] put in one
/// binding.
#[derive(Clone, Debug)]
pub struct Region {
    /// The binding's buffer.
    pub buffer: wgpu::Buffer,
    /// Where the array starts.
    pub offset: u64,
    /// Its bytes.
    pub size: u64,
}

impl Region {
    /// As a readback range.
    pub fn range(&self) -> (&wgpu::Buffer, u64, u64) {
        (&self.buffer, self.offset, self.size)
    }

    /// Bytes `at .. at + size` of the region, as a readback range.
    pub fn part(&self, at: u64, size: u64) -> (&wgpu::Buffer, u64, u64) {
        (&self.buffer, self.offset + at, size)
    }
}

/// One storage binding holding `parts` one after the other (uploaded), and where each lies.
/// A browser's WebGPU allows a shader stage 10 storage buffers: arrays of one type share a
/// binding this way, the shader reading each at its base.
pub fn packed<const N: usize>(
    device: &wgpu::Device,
    label: &str,
    parts: [&[u8]; N],
) -> (wgpu::Buffer, [Region; N]) {
    let buffer = buffer_init(device, label, &parts.concat(), STORAGE_RW);
    let regions = regions(&buffer, parts.map(|p| p.len() as u64));
    (buffer, regions)
}

/// One part of [`packed_parts`]: bytes to upload, or zeros (uploading nothing: a new
/// buffer is zero, cleared on the device).
#[derive(Clone, Copy, Debug)]
pub enum Part<'a> {
    /// These bytes.
    Bytes(&'a [u8]),
    /// This many zero bytes.
    Zeros(u64),
}

impl Part<'_> {
    fn len(&self) -> u64 {
        match self {
            Part::Bytes(b) => b.len() as u64,
            Part::Zeros(n) => *n,
        }
    }
}

/// [`packed`] with parts that may be zeros, and each part's bytes copied once, by the
/// queue, without a concatenation first (for a sweep's replicas, hundreds of MB on the
/// host: the mailboxes and lists of millions of facilities start as zeros). Every part's
/// length is a multiple of 4 bytes.
pub fn packed_parts<const N: usize>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    label: &str,
    parts: [Part<'_>; N],
) -> (wgpu::Buffer, [Region; N]) {
    let sizes = parts.map(|p| p.len());
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: sizes.iter().sum::<u64>().max(4),
        usage: STORAGE_RW,
        mapped_at_creation: false,
    });
    let regions = regions(&buffer, sizes);
    for (part, region) in parts.iter().zip(&regions) {
        if let Part::Bytes(b) = part
            && !b.is_empty()
        {
            queue.write_buffer(&buffer, region.offset, b);
        }
    }
    (buffer, regions)
}

/// Where parts of `sizes` bytes lie one after the other in `buffer`.
fn regions<const N: usize>(buffer: &wgpu::Buffer, sizes: [u64; N]) -> [Region; N] {
    let mut offsets = [0u64; N];
    for i in 1..N {
        offsets[i] = offsets[i - 1] + sizes[i - 1];
    }
    std::array::from_fn(|i| Region {
        buffer: buffer.clone(),
        offset: offsets[i],
        size: sizes[i],
    })
}

/// Storage a pass reads and writes that the host can also upload to and read back.
pub const STORAGE_RW: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

/// An out-of-memory error scope around a run's buffer creation: [`OomScope::check`] turns
/// the device's refusal into one error naming what was being allocated, instead of a
/// validation panic at the first use of a buffer that does not exist.
pub struct OomScope(wgpu::ErrorScopeGuard);

impl OomScope {
    /// Opens the scope on `device`; create the buffers, then [`OomScope::check`].
    pub fn push(device: &wgpu::Device) -> Self {
        Self(device.push_error_scope(wgpu::ErrorFilter::OutOfMemory))
    }

    /// Closes the scope: an error when the device ran out of memory while allocating
    /// `what` ("1048576 bytes", "the token pool of 4096 slots").
    ///
    /// In a browser tab the scope's answer is a promise the page cannot wait for: the scope
    /// is closed unread there, and an allocation the browser refuses surfaces as the
    /// device's uncaptured error instead.
    pub fn check(self, what: impl std::fmt::Display) -> Result<(), SimError> {
        #[cfg(target_arch = "wasm32")]
        {
            drop(self.0.pop());
            let _ = what;
            Ok(())
        }
        #[cfg(not(target_arch = "wasm32"))]
        match pollster::block_on(self.0.pop()) {
            Some(e) => Err(SimError::Gpu(format!(
                "out of GPU memory allocating {what}: {e}"
            ))),
            None => Ok(()),
        }
    }
}

/// An empty buffer of `size` bytes (zeroed by wgpu before first use).
pub fn buffer(
    device: &wgpu::Device,
    label: &str,
    size: u64,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// A buffer created with `contents` (every engine's uploads of its initial state).
pub fn buffer_init(
    device: &wgpu::Device,
    label: &str,
    contents: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    use wgpu::util::DeviceExt;
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage,
    })
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

/// A layout of one uniform binding read at a dynamic offset: a batch's per-step (or
/// per-block) parameters written once, each dispatch pointed at its own.
pub fn dynamic_uniform_layout(device: &wgpu::Device, label: &str) -> wgpu::BindGroupLayout {
    let mut entry = layout_entry(0, Use::Uniform);
    if let wgpu::BindingType::Buffer {
        has_dynamic_offset, ..
    } = &mut entry.ty
    {
        *has_dynamic_offset = true;
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &[entry],
    })
}

/// The bind group of a [`dynamic_uniform_layout`]: `size` bytes of `buffer` from the
/// offset each dispatch gives.
pub fn dynamic_uniform_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffer: &wgpu::Buffer,
    size: u64,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer,
                offset: 0,
                size: wgpu::BufferSize::new(size),
            }),
        }],
    })
}

/// Which of the checks wgpu injects into compiled shaders an experiment turned off
/// (`PDES_GPU_CHECKS_OFF`, a comma list of `bounds`, `loops`, `div`, `zero`): the index
/// clamps, the iteration counter added to every loop, the guards around integer `/` and
/// `%`, and the zeroing of workgroup memory at every workgroup's start. For measuring what
/// each costs on a device (bench/NOTES.md); with none named, every check stays. It reaches
/// the modules built by [`compute_module`] (the torus passes) and, for `zero`, every
/// pipeline built by [`pipeline_with_constants`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChecksOff {
    /// Index clamps (and buffer checks where the driver has no robust access of its own).
    pub bounds: bool,
    /// The loop counter that bounds every loop.
    pub loops: bool,
    /// The division guards.
    pub div: bool,
    /// The workgroup-memory zeroing.
    pub zero: bool,
}

impl ChecksOff {
    /// Parses a comma list (`bounds`, `loops`, `div`, `zero`, or `all`).
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut off = Self::default();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "bounds" => off.bounds = true,
                "loops" => off.loops = true,
                "div" => off.div = true,
                "zero" => off.zero = true,
                "all" => {
                    off = Self {
                        bounds: true,
                        loops: true,
                        div: true,
                        zero: true,
                    }
                }
                _ => {
                    return Err(format!(
                        "PDES_GPU_CHECKS_OFF: {name:?} (valid: bounds, loops, div, zero, all)"
                    ));
                }
            }
        }
        Ok(off)
    }

    /// The process's setting (read once; an unknown name is reported and ignored).
    pub fn from_env() -> Self {
        static OFF: std::sync::OnceLock<ChecksOff> = std::sync::OnceLock::new();
        *OFF.get_or_init(|| {
            let Ok(list) = std::env::var("PDES_GPU_CHECKS_OFF") else {
                return Self::default();
            };
            match Self::parse(&list) {
                Ok(off) => {
                    if off != Self::default() {
                        eprintln!(
                            "warning: shader checks off ({list}; PDES_GPU_CHECKS_OFF): an experiment, not a result"
                        );
                    }
                    off
                }
                Err(e) => {
                    eprintln!("warning: {e}; every check stays");
                    Self::default()
                }
            }
        })
    }
}

/// A compute module from WGSL `source`, compiled with wgpu's checks except those the
/// process turned off ([`ChecksOff::from_env`]).
pub fn compute_module(device: &wgpu::Device, label: &str, source: String) -> wgpu::ShaderModule {
    let desc = wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    };
    let off = ChecksOff::from_env();
    if !(off.bounds || off.loops || off.div) {
        return device.create_shader_module(desc);
    }
    let mut checks = wgpu::ShaderRuntimeChecks::checked();
    checks.bounds_checks = !off.bounds;
    checks.force_loop_bounding = !off.loops;
    checks.int_div_checks = !off.div;
    // SAFETY: only reached when a person asked for it by name, for a measurement; the
    // project's shaders index in range, bound their loops and never divide by zero
    // (`pdes-lab verify`, run first in every device call, compares them with the CPU).
    unsafe { device.create_shader_module_trusted(desc, checks) }
}

/// [`compute_module`] without wgpu's loop counter, for a module whose every loop ends by
/// its own bound: a constant count, or a counter that rises each iteration to a limit from
/// its parameters. The counter wgpu adds to every loop keeps a driver from unrolling even a
/// loop of a constant count, and is paid per iteration: in the M/M/c/k replications'
/// event loop (three loops over the servers per event) it cost 28% of the time per event
/// on an H100 (bench/NOTES.md, "M/M/c/k on registers").
///
/// # Safety
/// Every loop of `source` must end whatever the data: a loop that does not hangs the
/// device (no counter stops it).
pub unsafe fn compute_module_bounded_loops(
    device: &wgpu::Device,
    label: &str,
    source: String,
) -> wgpu::ShaderModule {
    let desc = wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    };
    let off = ChecksOff::from_env();
    let mut checks = wgpu::ShaderRuntimeChecks::checked();
    checks.bounds_checks = !off.bounds;
    checks.force_loop_bounding = false;
    checks.int_div_checks = !off.div;
    // SAFETY: the caller's promise (every loop ends), passed on; the other checks stay
    // unless a person turned them off by name for a measurement.
    unsafe { device.create_shader_module_trusted(desc, checks) }
}

/// `groups` workgroups as a dispatch of (x, y) within the adapter's limit of workgroups in
/// one dimension: (groups, 1) where it fits, else rows of the most it allows (the shader
/// numbers them wid.x + wid.y · x and lets those past `groups` return).
pub fn dispatch_grid(gpu: &Gpu, groups: u32) -> (u32, u32) {
    let most = gpu.limits.max_compute_workgroups_per_dimension.max(1);
    if groups <= most {
        (groups, 1)
    } else {
        (most, groups.div_ceil(most))
    }
}

/// The compute pipeline of `entry` in `module`.
pub fn pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry: &str,
) -> wgpu::ComputePipeline {
    pipeline_with_constants(device, layout, module, entry, &[])
}

/// [`pipeline`] with pipeline constants (WGSL `override` values) set.
pub fn pipeline_with_constants(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry: &str,
    constants: &[(&str, f64)],
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(layout),
        module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants,
            zero_initialize_workgroup_memory: !ChecksOff::from_env().zero,
        },
        cache: None,
    })
}

/// Resolves the first `count` timestamps of `set` into a new buffer the host can copy from
/// (the profiles' per-dispatch stamps).
pub fn resolve_timestamps(
    device: &wgpu::Device,
    enc: &mut wgpu::CommandEncoder,
    set: &wgpu::QuerySet,
    count: u32,
) -> wgpu::Buffer {
    let buf = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("timestamps"),
        size: 8 * u64::from(count),
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    enc.resolve_query_set(set, 0..count, &buf, 0);
    buf
}

/// A pipeline layout over bind groups `groups` (group i = `groups[i]`).
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
/// alone as group 1 under `layout`, over `groups` workgroups — a 2-D grid where one
/// dimension holds fewer ([`dispatch_grid`]: the shader numbers its invocations
/// gid.x + gid.y · x · its workgroup size; a 4096² torus's heatmap is 65,536 workgroups).
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
        let (x, y) = dispatch_grid(gpu, groups);
        pass.dispatch_workgroups(x, y, 1);
    }
    gpu.queue.submit([enc.finish()]);
}

/// Makes an engine's initial uploads (created with their contents, they reach the device
/// with the next submit) and a process's first submit happen in set-up: reads `len` bytes
/// of `buf` back. A run's clock then starts at its first step, as the bench's does; under
/// `PDES_GPU_PROFILE` the time it took is printed (bench/NOTES.md, "The cold run"). A
/// page's device answers later: nothing is waited for there.
pub fn flush_uploads(gpu: &Gpu, label: &str, buf: &wgpu::Buffer, len: u64) -> Result<(), SimError> {
    let t0 = web_time::Instant::now();
    match read_ranges(gpu, &[(buf, 0, len)]) {
        Err(SimError::NotYet) => return Ok(()),
        r => drop(r?),
    }
    if std::env::var_os("PDES_GPU_PROFILE").is_some() {
        eprintln!(
            "set-up {label}: uploads flushed (a submit and a readback) in {:.2} ms",
            t0.elapsed().as_secs_f64() * 1e3
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::ChecksOff;

    #[test]
    fn checks_off_names_each_check_and_refuses_unknown_names() {
        assert_eq!(ChecksOff::parse("").unwrap(), ChecksOff::default());
        let off = ChecksOff::parse("loops, zero").unwrap();
        assert!(off.loops && off.zero && !off.bounds && !off.div);
        let all = ChecksOff::parse("all").unwrap();
        assert!(all.bounds && all.loops && all.div && all.zero);
        let err = ChecksOff::parse("loops,fast").unwrap_err();
        assert!(err.contains("\"fast\"") && err.contains("valid: bounds, loops, div, zero, all"));
    }
}
