//! One GPU setup used by headless runs, tests and the app: adapter, device, queue.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::deferred::{Deferred, Freshness, staging_buffer};

/// Optional features PDES Lab uses when the adapter has them: GPU timestamps for
/// `bench --profile`, subgroup operations for the workgroup reductions, 64-bit integers in
/// shaders for the M/M/c/k replications' products (`shaders::Products`).
pub const WANTED_FEATURES: wgpu::Features = wgpu::Features::TIMESTAMP_QUERY
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES)
    .union(wgpu::Features::SUBGROUP)
    .union(wgpu::Features::SHADER_INT64);

/// The backends PDES Lab computes on (GL has no storage buffers in compute on many drivers).
#[cfg(not(target_arch = "wasm32"))]
const COMPUTE_BACKENDS: wgpu::Backends = wgpu::Backends::VULKAN
    .union(wgpu::Backends::METAL)
    .union(wgpu::Backends::DX12);

/// In a browser tab: the browser's WebGPU (`navigator.gpu`).
#[cfg(target_arch = "wasm32")]
const COMPUTE_BACKENDS: wgpu::Backends = wgpu::Backends::BROWSER_WEBGPU;

/// The process's instance for the compute backends, made once: each instance loads and
/// asks the drivers again (`--devices 0,1` made three, two of them at once).
fn instance() -> &'static wgpu::Instance {
    static INSTANCE: OnceLock<wgpu::Instance> = OnceLock::new();
    INSTANCE.get_or_init(|| {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = COMPUTE_BACKENDS;
        wgpu::Instance::new(desc)
    })
}

/// The high-performance adapter of the compute backends.
async fn best_adapter() -> Result<wgpu::Adapter, wgpu::RequestAdapterError> {
    instance()
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        })
        .await
}

/// Why device `index` cannot be opened on a host of `count` adapters, in words.
pub fn no_device(index: usize, count: usize) -> String {
    match count {
        0 => "this host has no GPU adapter with Vulkan, Metal or DX12".to_string(),
        1 => format!("there is no device {index}: this host has one, device 0"),
        _ => format!(
            "there is no device {index}: this host has {count}, numbered 0 to {}",
            count - 1
        ),
    }
}

/// A wgpu device and queue with what PDES Lab needs to know about them.
#[derive(Debug)]
pub struct Gpu {
    /// The adapter's description (name, backend, driver).
    pub info: wgpu::AdapterInfo,
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The limits the device was created with (the adapter's own).
    pub limits: wgpu::Limits,
    /// Objects built once per device and shared by every engine on it (compiled
    /// pipelines: see [`Gpu::cached`]).
    cache: Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>,
    /// Readbacks are asked for, never waited for (a browser tab's device): see
    /// [`crate::deferred`]. None: a readback waits for the device.
    deferred: Option<Deferred>,
}

impl std::fmt::Debug for Deferred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Deferred")
    }
}

impl Gpu {
    /// Opens the best adapter with compute support (Vulkan, Metal or DX12; GL has no
    /// storage buffers in compute on many drivers), asking for the adapter's full limits.
    pub fn new() -> Result<Self, String> {
        Self::with_limits(|l| l)
    }

    /// The compute adapters of this host, in the order `--devices` numbers them: every
    /// hardware GPU; a software one (Mesa's lavapipe) only where there is no hardware GPU.
    /// Enumerated once per process: the check of `--devices`, its opening and every
    /// device's thread ask the same list.
    pub fn adapters() -> Vec<wgpu::Adapter> {
        static ADAPTERS: OnceLock<Vec<wgpu::Adapter>> = OnceLock::new();
        ADAPTERS
            .get_or_init(|| {
                let all = pollster::block_on(instance().enumerate_adapters(COMPUTE_BACKENDS));
                let software =
                    |a: &wgpu::Adapter| a.get_info().device_type == wgpu::DeviceType::Cpu;
                if all.iter().all(software) {
                    all
                } else {
                    all.into_iter().filter(|a| !software(a)).collect()
                }
            })
            .clone()
    }

    /// Opens adapter `index` of [`Gpu::adapters`] as a device of its own.
    pub fn open(index: usize) -> Result<Self, String> {
        let mut adapters = Self::adapters();
        if index >= adapters.len() {
            return Err(no_device(index, adapters.len()));
        }
        pollster::block_on(Self::on(adapters.swap_remove(index)))
    }

    /// A device of its own on `adapter`, beside any other opened there (the window's): the
    /// start-up check runs on it, so that its submissions and waits never hold the
    /// renderer's queue — a frame, or a resize's wait for the window's device to go idle.
    pub fn open_beside(adapter: &wgpu::Adapter) -> Result<Self, String> {
        pollster::block_on(Self::on(adapter.clone()))
    }

    /// [`Gpu::new`] with the adapter's limits changed by `limit` first: the desktop's tests
    /// open a device with a browser's limits (10 storage buffers per shader stage, say), so
    /// that what the page will refuse is refused here too.
    pub fn with_limits(limit: impl FnOnce(wgpu::Limits) -> wgpu::Limits) -> Result<Self, String> {
        pollster::block_on(async {
            let adapter = best_adapter()
                .await
                .map_err(|e| format!("no GPU adapter with Vulkan, Metal or DX12 ({e})"))?;
            Self::on_with(adapter, limit).await
        })
    }

    async fn on(adapter: wgpu::Adapter) -> Result<Self, String> {
        Self::on_with(adapter, |l| l).await
    }

    async fn on_with(
        adapter: wgpu::Adapter,
        limit: impl FnOnce(wgpu::Limits) -> wgpu::Limits,
    ) -> Result<Self, String> {
        let t0 = web_time::Instant::now();
        let limits = limit(adapter.limits());
        let wanted = WANTED_FEATURES;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("pdes-lab"),
                required_features: adapter.features() & wanted,
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| format!("could not open the GPU device: {e}"))?;
        #[cfg(not(target_arch = "wasm32"))]
        first_readback_beside(&device, &queue);
        if std::env::var_os("PDES_GPU_PROFILE").is_some() {
            eprintln!(
                "set-up: device opened in {:.1} ms",
                t0.elapsed().as_secs_f64() * 1e3
            );
        }
        Ok(Self {
            info: adapter.get_info(),
            device,
            queue,
            limits,
            cache: Mutex::default(),
            deferred: None,
        })
    }

    /// Opens the browser's WebGPU adapter for a page: a device whose readbacks are deferred
    /// ([`Gpu::deferring`]). Fails with the reason where the browser offers none.
    pub async fn for_page() -> Result<Self, String> {
        let adapter = best_adapter()
            .await
            .map_err(|e| format!("this browser offers no WebGPU adapter ({e})"))?;
        Ok(Self::on(adapter).await?.deferring())
    }

    /// The same device with deferred readbacks: a readback starts a copy and answers
    /// [`pdes_core::sim::SimError::NotYet`] until its bytes are back (a browser tab's device
    /// must never be waited on; the desktop uses this to test the page's path).
    pub fn deferring(mut self) -> Self {
        self.deferred = Some(Deferred::default());
        self
    }

    /// True where readbacks are deferred ([`Gpu::deferring`]).
    pub fn defers_readbacks(&self) -> bool {
        self.deferred.is_some()
    }

    /// Notes that an engine is about to submit a batch of work, and numbers it: the
    /// engine's deferred readbacks must then be taken after it ([`read_ranges_since`]).
    /// (0 on a device that waits: there every readback is taken after all work.)
    pub fn note_work(&self) -> u64 {
        self.deferred.as_ref().map_or(0, Deferred::note_work)
    }

    /// Wraps a device someone else opened (the window's renderer), so that the simulation
    /// and the UI share it.
    pub fn from_parts(info: wgpu::AdapterInfo, device: wgpu::Device, queue: wgpu::Queue) -> Self {
        Self {
            info,
            limits: device.limits(),
            device,
            queue,
            cache: Mutex::default(),
            deferred: None,
        }
    }

    /// The object stored under `key` on this device, built by `build` the first time.
    /// Engines keep their compiled pipelines here, so that the second engine of a kind
    /// (a sweep builds dozens) does not compile its shaders again (what that costs:
    /// bench/NOTES.md, Sweeps).
    pub fn cached<T: Any + Send + Sync>(&self, key: &str, build: impl FnOnce() -> T) -> Arc<T> {
        let mut map = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = map.get(key).and_then(|v| v.clone().downcast::<T>().ok()) {
            return v;
        }
        let v = Arc::new(build());
        map.insert(key.to_string(), v.clone());
        v
    }

    /// One shared device per process (tests and the command line open it once).
    pub fn shared() -> Result<Arc<Gpu>, String> {
        static GPU: OnceLock<Result<Arc<Gpu>, String>> = OnceLock::new();
        GPU.get_or_init(|| Self::new().map(Arc::new)).clone()
    }

    /// "name (backend)", for status lines and results.
    pub fn describe(&self) -> String {
        // a browser names no adapter (its WebGPU hides the hardware)
        if self.info.name.is_empty() {
            return "the browser's WebGPU adapter".to_string();
        }
        format!(
            "{} ({:?}, {})",
            self.info.name, self.info.backend, self.info.driver_info
        )
    }

    /// Largest size one storage buffer may have on this device.
    pub fn max_storage_buffer(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
    }
}

/// Copies `(buffer, offset, size)` ranges (4-byte aligned) to mappable staging buffers,
/// waits, and returns their bytes. On a device with deferred readbacks: bytes taken after
/// all the device's work, or [`pdes_core::sim::SimError::NotYet`] ([`crate::deferred`]).
pub fn read_ranges(
    gpu: &Gpu,
    ranges: &[(&wgpu::Buffer, u64, u64)],
) -> Result<Vec<Vec<u8>>, pdes_core::sim::SimError> {
    if let Some(d) = &gpu.deferred {
        return d.read(
            (&gpu.device, &gpu.queue),
            ranges,
            Freshness::Since(d.work()),
        );
    }
    read_ranges_with(gpu, ranges, |bytes| {
        bytes.iter().map(|b| b.to_vec()).collect()
    })
}

/// [`read_ranges`] handing the bytes to `use_bytes` where they lie (the mapped staging
/// buffers), not copied first: a large read-back (a sweep's replicas, hundreds of MB)
/// decoded straight from them. On a device with deferred readbacks, as [`read_ranges`]
/// (bytes taken after all the device's work, or not yet).
pub fn read_ranges_with<T>(
    gpu: &Gpu,
    ranges: &[(&wgpu::Buffer, u64, u64)],
    use_bytes: impl FnOnce(&[&[u8]]) -> T,
) -> Result<T, pdes_core::sim::SimError> {
    if let Some(d) = &gpu.deferred {
        let owned = d.read(
            (&gpu.device, &gpu.queue),
            ranges,
            Freshness::Since(d.work()),
        )?;
        let slices: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        return Ok(use_bytes(&slices));
    }
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    let staging: Vec<wgpu::Buffer> = ranges
        .iter()
        .map(|(src, offset, size)| {
            let dst = staging_buffer(&gpu.device, *size);
            enc.copy_buffer_to_buffer(src, *offset, &dst, 0, *size);
            dst
        })
        .collect();
    gpu.queue.submit([enc.finish()]);
    for s in &staging {
        s.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    }
    gpu.device
        .poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: None,
        })
        .map_err(|e| pdes_core::sim::SimError::Gpu(format!("waiting for the GPU: {e}")))?;
    let views = staging
        .iter()
        .map(|s| {
            s.slice(..)
                .get_mapped_range()
                .map_err(|e| pdes_core::sim::SimError::Gpu(format!("readback: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let slices: Vec<&[u8]> = views.iter().map(|v| &v[..]).collect();
    let out = use_bytes(&slices);
    drop(views);
    for s in &staging {
        s.unmap();
    }
    Ok(out)
}

/// [`read_ranges`] for an engine whose latest batch of work [`Gpu::note_work`] numbered
/// `work`: on a device with deferred readbacks, bytes taken after that batch (other engines'
/// later work does not make them stale); elsewhere the same as [`read_ranges`].
pub fn read_ranges_since(
    gpu: &Gpu,
    ranges: &[(&wgpu::Buffer, u64, u64)],
    work: u64,
) -> Result<Vec<Vec<u8>>, pdes_core::sim::SimError> {
    match &gpu.deferred {
        Some(d) => d.read((&gpu.device, &gpu.queue), ranges, Freshness::Since(work)),
        None => read_ranges(gpu, ranges),
    }
}

/// [`read_ranges`] for what is only shown (a heatmap, a hover): on a device with deferred
/// readbacks, the newest bytes that came back, possibly from before the latest work (see
/// [`Freshness::Latest`]); elsewhere the same as [`read_ranges`].
pub fn read_ranges_latest(
    gpu: &Gpu,
    ranges: &[(&wgpu::Buffer, u64, u64)],
) -> Result<Vec<Vec<u8>>, pdes_core::sim::SimError> {
    match &gpu.deferred {
        Some(d) => d.read((&gpu.device, &gpu.queue), ranges, Freshness::Latest),
        None => read_ranges(gpu, ranges),
    }
}

/// Waits for a first 4-byte readback on a thread of its own, beside the caller's set-up: a
/// process's first submit-and-readback costs ~17–27 ms on an H100 whatever it carries
/// (bench/NOTES.md, "The cold run"), and the engine's pipelines take ~100 ms to build
/// meanwhile. `PDES_GPU_EARLY_READBACK=0` leaves it out (to measure what it saves).
#[cfg(not(target_arch = "wasm32"))]
fn first_readback_beside(device: &wgpu::Device, queue: &wgpu::Queue) {
    if std::env::var("PDES_GPU_EARLY_READBACK").is_ok_and(|v| v == "0") {
        return;
    }
    let (device, queue) = (device.clone(), queue.clone());
    std::thread::spawn(move || {
        let t0 = web_time::Instant::now();
        let buf = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("first readback"),
            size: 4,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut enc = device.create_command_encoder(&Default::default());
        enc.clear_buffer(&buf, 0, None);
        queue.submit([enc.finish()]);
        buf.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        // nothing to report: a device lost here is reported by the engine's own calls
        let _ = device.poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: None,
        });
        if std::env::var_os("PDES_GPU_PROFILE").is_some() {
            eprintln!(
                "set-up: the first readback, beside, in {:.1} ms",
                t0.elapsed().as_secs_f64() * 1e3
            );
        }
    });
}
