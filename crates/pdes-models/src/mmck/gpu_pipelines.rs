//! The M/M/c/k replications' shader specialised to a run (its c, k, the way its draws are
//! made and its times held, its products) and the passes built from it.

use crate::mmck::RunShape;
use crate::mmck::draws::{DrawsMadeBy, STATES_IN_WORKGROUP};
use crate::mmck::times::Times;
use pdes_core::sim::heap::NEVER;
use pdes_core::time::Ticks;
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, Use};
use pdes_gpu::shaders::Products;

/// The constants the shader is specialised to: WGSL sizes a thread's arrays only with
/// constants, and loops of a constant count unroll, so the servers' arrays — and a waiting
/// ring of up to 8 slots, read and written by selects over every slot — are indexed by
/// constants and stay in registers; up to [`STATES_IN_WORKGROUP`] state times are kept in
/// workgroup memory (`STATE_WORDS` of them a workgroup; one word where none are).
fn shape_constants(servers: u32, capacity: u32, draws: DrawsMadeBy, times: Times) -> String {
    let states = capacity + 1;
    let state_words = if states <= STATES_IN_WORKGROUP {
        states * draws.replications_per_group()
    } else {
        1
    };
    format!(
        "const C: u32 = {servers}u;\nconst K: u32 = {capacity}u;\nconst K1: u32 = {states}u;\nconst RING: u32 = {}u;\nconst STATES_IN_WORKGROUP: u32 = {STATES_IN_WORKGROUP}u;\nconst STATE_WORDS: u32 = {state_words}u;\n{}",
        (capacity - servers).max(1),
        draws.constants(times)
    )
}

/// The module of the replications' passes for `servers` servers and capacity `capacity`
/// (validated: 1 ≤ servers ≤ capacity), its draws made by `draws`, its times held as
/// `times` (the laws must allow it: [`Times::every`]), its 32×32 products by
/// `products` (native 64-bit
/// multiplies where the device has them: 12% faster at paper 003's 7,168 replications on an
/// H100, 24% at 10⁶; bench/NOTES.md, "Native 64-bit products for M/M/c/k").
pub fn module_source(
    servers: u32,
    capacity: u32,
    draws: DrawsMadeBy,
    times: Times,
    products: Products,
) -> String {
    pdes_gpu::shaders::compose_with(
        pdes_gpu::shaders::Reductions::Portable,
        products,
        &[
            &shape_constants(servers, capacity, draws, times),
            &times.source(),
            pdes_gpu::shaders::PHILOX,
            &common_source(),
            &pdes_gpu::shaders::part("mmck.wgsl", include_str!("shaders/mmck.wgsl")),
        ],
    )
}

/// `mmck_common.wgsl`: the parameters, records and draws both modules share.
fn common_source() -> std::borrow::Cow<'static, str> {
    pdes_gpu::shaders::part("mmck_common.wgsl", include_str!("shaders/mmck_common.wgsl"))
}

/// The module of the books' passes (records at time 0, the summary's sums: any c and k).
pub fn books_source(products: Products) -> String {
    pdes_gpu::shaders::compose_with(
        pdes_gpu::shaders::Reductions::Portable,
        products,
        &[
            pdes_gpu::shaders::PHILOX,
            &common_source(),
            &pdes_gpu::shaders::part("mmck_books.wgsl", include_str!("shaders/mmck_books.wgsl")),
        ],
    )
}

/// The shapes whose modules the shader checks compile: the papers' and the extremes, with
/// either kind of product, the draws made and the times held every way.
pub fn checked_modules() -> Vec<(String, String)> {
    let shapes = [
        (3, 5),
        (1, 1),
        (64, 64),
        (
            crate::mmck::config::MAX_SERVERS,
            crate::mmck::config::MAX_CAPACITY,
        ),
    ];
    let mut modules = Vec::new();
    for p in [Products::Emulated, Products::Native] {
        modules.push((format!("mmck books {p:?}"), books_source(p)));
        for (c, k) in shapes {
            for d in DrawsMadeBy::all() {
                for t in [Times::Offsets, Times::Ticks] {
                    let name = format!(
                        "mmck c={c} k={k} draws {} times {} {p:?}",
                        d.name(),
                        t.name()
                    );
                    modules.push((name, module_source(c, k, d, t, p)));
                }
            }
        }
    }
    modules
}

pub(super) struct Pipelines {
    pub(super) layout: wgpu::BindGroupLayout,
    pub(super) display_layout: wgpu::BindGroupLayout,
    /// `advance` that tests every event against the budget's time limit (TIME_LIMITED: the
    /// window's steps, `run`'s first chunks), and `advance` for a limit of `never`, which
    /// tests none (5% of an event at 7,168 replications). Both made with the engine, so
    /// that no run's time holds a pipeline's creation.
    pub(super) advance_limited: wgpu::ComputePipeline,
    pub(super) advance_to_end: wgpu::ComputePipeline,
    pub(super) clear: wgpu::ComputePipeline,
    pub(super) display: wgpu::ComputePipeline,
}

/// The books' passes (`mmck_books.wgsl`): the records at time 0 from a template (binding
/// 3), and each workgroup's sums for the summary (into binding 3). One set per device,
/// whatever the run's c and k: the module does not depend on them.
pub(super) struct Books {
    pub(super) layout: wgpu::BindGroupLayout,
    pub(super) init: wgpu::ComputePipeline,
    pub(super) reduce: wgpu::ComputePipeline,
}

/// `gpu`'s [`Books`], built at its first use.
pub(super) fn books(gpu: &Gpu) -> std::sync::Arc<Books> {
    gpu.cached("mmck books", || {
        let device = &gpu.device;
        let layout = kit::layout(
            device,
            "mmck books",
            &[Use::Uniform, Use::ReadWrite, Use::Read, Use::ReadWrite],
        );
        let pl = kit::pipeline_layout(device, "mmck books", &[&layout]);
        // SAFETY: the books' loops count to the record's stride, the block's words, 96
        // bits, four digits, eight columns and the states (k + 1): each a bound from the
        // parameters.
        let module = unsafe {
            kit::compute_module_bounded_loops(
                device,
                "mmck books",
                books_source(Products::for_device(device)),
            )
        };
        Books {
            init: kit::pipeline(device, &pl, &module, "init"),
            reduce: kit::pipeline(device, &pl, &module, "reduce"),
            layout,
        }
    })
}

impl Pipelines {
    /// `advance` for a budget whose time limit is `limit`. `PDES_MMCK_ALWAYS_LIMITED=1`
    /// takes the limited one whatever the limit, for measurements.
    pub(super) fn advance(&self, limit: Ticks) -> &wgpu::ComputePipeline {
        let forced = std::env::var_os("PDES_MMCK_ALWAYS_LIMITED").is_some_and(|v| v == "1");
        if limit != NEVER || forced {
            &self.advance_limited
        } else {
            &self.advance_to_end
        }
    }
}

pub(super) fn build_pipelines(
    gpu: &Gpu,
    shape: &RunShape,
    draws: DrawsMadeBy,
    times: Times,
) -> Pipelines {
    let device = &gpu.device;
    let layout = kit::layout(
        device,
        "mmck",
        &[Use::Uniform, Use::ReadWrite, Use::Read, Use::ReadWrite],
    );
    let display_layout = kit::layout(device, "mmck display", &[Use::ReadWrite]);
    let pl = kit::pipeline_layout(device, "mmck", &[&layout]);
    let pl_display = kit::pipeline_layout(device, "mmck display", &[&layout, &display_layout]);
    // SAFETY: every loop of mmck.wgsl ends by its own bound: the loops over the servers,
    // the state times and the ring count to constants (C, K1, RING), Philox's to 10, a
    // phase's event loop stops when its count of events, raised by one every iteration,
    // reaches the phase's length (at most P.max_events), and the phases are counted to
    // P.max_events / PHASE + 2.
    let module = unsafe {
        kit::compute_module_bounded_loops(
            device,
            "mmck",
            module_source(
                shape.servers,
                shape.capacity,
                draws,
                times,
                Products::for_device(device),
            ),
        )
    };
    Pipelines {
        clear: kit::pipeline(device, &pl, &module, "clear_status"),
        display: kit::pipeline(device, &pl_display, &module, "display_main"),
        advance_limited: kit::pipeline_with_constants(
            device,
            &pl,
            &module,
            "advance",
            &[("TIME_LIMITED", 1.0)],
        ),
        advance_to_end: kit::pipeline_with_constants(
            device,
            &pl,
            &module,
            "advance",
            &[("TIME_LIMITED", 0.0)],
        ),
        layout,
        display_layout,
    }
}
