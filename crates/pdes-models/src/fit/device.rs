//! Whole Nelder–Mead minimizations on the GPU (issue 32, item 2): each minimization is one
//! workgroup that runs its iterations to the end (`nelder_mead.wgsl`), and the chain of k
//! stays on the device too — the workgroup that ends the last run of k builds k + 1's start
//! (k's best split in two) and runs it — so a fit of k = 1..10 is one dispatch and one
//! readback. The fits themselves: [`super::device_fits`].
//!
//! Its arithmetic is f32, so its path is not the host's: the CPU twin of what it computes
//! is the same method on the host ([`super::Fits`], f64), and the two are compared by the
//! maximum they reach (tests, `pdes-lab verify`), not step by step.

use super::search::{End, mean_cost};
use super::{Data, Mixture, SearchLoop};
use bytemuck::{Pod, Zeroable};
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, Use};
use std::sync::Arc;

/// Most distinct values the device search takes: at 131,072 it is no faster than the
/// host's rounds ([`super::gpu::GpuLoglik`]), which use every multiprocessor on one
/// evaluation (bench/NOTES.md, "Nelder–Mead on the device", "Where auto leaves the
/// device").
pub const MOST_DISTINCT: usize = 1 << 17;
/// Most distinct values `--iterate-on auto` gives the device. Measured on an H100 (k =
/// 1..10, the device against the host's rounds on the same data): 1.25× faster at 65,536
/// values and as good; 1.12× at 98,304; no faster at 131,072, where its k = 5 (a maximum
/// one start in four finds on every engine) ended 418 below the rounds' and BIC chose
/// k = 6 (bench/NOTES.md, "Where auto leaves the device"). Up to [`MOST_DISTINCT`] on
/// request (`--iterate-on device`).
pub const AUTO_MOST_DISTINCT: usize = 1 << 16;
/// Whether a GPU fit of `distinct` values on `gpu` runs its minimizations on the device
/// ([`SearchLoop::on_device`]: a hardware GPU, at most [`AUTO_MOST_DISTINCT`] values,
/// unless `iterate_on` says otherwise).
pub fn chosen_for(gpu: &Gpu, distinct: usize, iterate_on: SearchLoop) -> bool {
    let software = gpu.info.device_type == wgpu::DeviceType::Cpu;
    iterate_on.on_device(distinct, software)
}

/// The device's stop, the host's rule: the simplex's costs within this standard deviation
/// (in f32 that is all of them equal), or the iteration limit. A tolerance of a few f32
/// ulps was tried and stopped searches that were still descending a flat valley (one at
/// 126 iterations and 2e-3 above the optimum the same path reached by 494).
pub const SD_TOLERANCE: f32 = 1e-12;
/// Vertices and words per vertex as the shader lays them out.
const MAXV: usize = 30;
const STRIDE: usize = 32;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Params {
    n: u32,
    runs: u32,
    trace_stride: u32,
    ks: u32,
    total: f32,
    min_log_sd: f32,
    tolerance: f32,
    mean_step: f32,
}

/// Where the runs of one k are (`KInfo` in nelder_mead.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct KInfo {
    fixed_begin: u32,
    fixed_count: u32,
    split_slot: u32,
    tasks: u32,
}

/// No split start (`NONE` in the shader).
const NONE: u32 = u32::MAX;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct RunWords {
    k: u32,
    dims: u32,
    max_iterations: u32,
    pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct OutcomeWords {
    cost: f32,
    iterations: u32,
    evaluations: u32,
    finished: u32,
    passes: u32,
    pad: [u32; 3],
    theta: [f32; STRIDE],
    start: [f32; STRIDE],
}

/// One minimization for the device: k components from `simplex` (3k vertices of 3k − 1
/// parameters), at most `max_iterations`.
#[derive(Clone, Debug)]
pub struct Start {
    /// Components.
    pub k: usize,
    /// The initial simplex ([`super::search::initial_simplex`]).
    pub simplex: Vec<Vec<f64>>,
    /// Nelder–Mead's iteration limit.
    pub max_iterations: u64,
}

/// Where a device minimization ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Components.
    pub k: usize,
    /// Its first vertex (for a split start, the one the device built).
    pub start: Vec<f64>,
    /// The best vertex.
    pub theta: Vec<f64>,
    /// Its f32 cost as the device computed it.
    pub cost: f64,
    /// Iterations run.
    pub iterations: u64,
    /// Cost evaluations.
    pub evaluations: u64,
    /// The best cost at the start of each iteration.
    pub trace: Vec<f64>,
    /// Passes over the data (each evaluating up to eight points).
    pub passes: u64,
}

struct Pipeline {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

/// The data on the device, ready for minimizations.
pub struct DeviceSearch {
    gpu: Arc<Gpu>,
    data: Data,
    xs: wgpu::Buffer,
    counts: wgpu::Buffer,
    pipeline: Arc<Pipeline>,
}

/// The shader's source (validation tests).
pub fn module_source() -> String {
    include_str!("nelder_mead.wgsl").to_string()
}

impl DeviceSearch {
    /// Uploads `data` (in standard units: [`super::Standardized`]). Refuses more distinct
    /// values than [`MOST_DISTINCT`] or counts f32 cannot hold exactly.
    pub fn new(gpu: Arc<Gpu>, data: &Data) -> Result<Self, String> {
        let n = data.values.len();
        if n > MOST_DISTINCT {
            return Err(format!(
                "{} distinct values: Nelder–Mead on the device takes at most {} (the host's rounds take any number: --iterate-on host)",
                crate::keys::grouped(n as u64),
                crate::keys::grouped(MOST_DISTINCT as u64)
            ));
        }
        if data.n() >= 1 << 24 {
            return Err(format!(
                "{} observations: Nelder–Mead on the device counts at most 16,777,215 (the host's rounds take any number: --iterate-on host)",
                crate::keys::grouped(data.n())
            ));
        }
        let xs: Vec<f32> = data.values.iter().map(|&x| x as f32).collect();
        let counts: Vec<f32> = data.counts.iter().map(|&c| c as f32).collect();
        let device = &gpu.device;
        let xs = kit::buffer_init(
            device,
            "nelder-mead values",
            bytemuck::cast_slice(&xs),
            wgpu::BufferUsages::STORAGE,
        );
        let counts = kit::buffer_init(
            device,
            "nelder-mead counts",
            bytemuck::cast_slice(&counts),
            wgpu::BufferUsages::STORAGE,
        );
        let pipeline = gpu.cached("nelder-mead pipeline", || {
            let layout = kit::layout(
                device,
                "nelder-mead",
                &[
                    Use::Uniform,
                    Use::Read,
                    Use::Read,
                    Use::Read,
                    Use::Read,
                    Use::ReadWrite,
                    Use::ReadWrite,
                    Use::Read,
                    Use::ReadWrite,
                ],
            );
            let pl = kit::pipeline_layout(device, "nelder-mead", &[&layout]);
            // SAFETY: every loop of nelder_mead.wgsl ends by its own bound: the loops over
            // components, points, the tree's levels and a vertex's words count to constants
            // or to counts ≤ 30; the values' loops to n; the insertion sort's inner loop
            // lowers its index to 0; and the search's loop makes an iteration at least every
            // six passes (a step's two evaluations, a shrink's four batches and its
            // reflection), each counted against the run's iteration limit.
            let module = unsafe {
                kit::compute_module_bounded_loops(device, "nelder-mead", module_source())
            };
            Pipeline {
                pipeline: kit::pipeline(device, &pl, &module, "search"),
                layout,
            }
        });
        Ok(Self {
            gpu,
            data: data.clone(),
            xs,
            counts,
            pipeline,
        })
    }

    /// Runs every minimization of `starts` to its end in one dispatch (a workgroup each)
    /// and reads back where each ended, in order. The starts go by k, every k from the
    /// first to the last at least once. With `chain` (iterations per parameter), every k
    /// after the first also gets a start split from the best run of k − 1, made and run on
    /// the device by the workgroup that ends k − 1's last run; their outcomes follow, by k.
    pub fn run(&self, starts: &[Start], chain: Option<u64>) -> Result<Vec<Outcome>, String> {
        if starts.is_empty() {
            return Ok(Vec::new());
        }
        let (kinfo, runs) = plan(starts, chain)?;
        let longest = runs.iter().map(|r| r.max_iterations).max().unwrap_or(0);
        let trace_stride = longest + 1;
        let device = &self.gpu.device;
        let params = Params {
            n: self.data.values.len() as u32,
            runs: runs.len() as u32,
            trace_stride,
            ks: kinfo.len() as u32,
            total: self.data.n() as f32,
            min_log_sd: (self.data.moments().1 * 1e-4).ln() as f32,
            tolerance: SD_TOLERANCE,
            mean_step: (0.1 * self.data.moments().1) as f32,
        };
        let mut simplexes = vec![0f32; starts.len() * MAXV * STRIDE];
        for (r, s) in starts.iter().enumerate() {
            for (v, vertex) in s.simplex.iter().enumerate() {
                for (d, x) in vertex.iter().enumerate() {
                    simplexes[(r * MAXV + v) * STRIDE + d] = *x as f32;
                }
            }
        }
        let init = |label: &str, bytes: &[u8], usage| kit::buffer_init(device, label, bytes, usage);
        let storage = wgpu::BufferUsages::STORAGE;
        let params = init(
            "nelder-mead params",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM,
        );
        let runs_buf = init("nelder-mead runs", bytemuck::cast_slice(&runs), storage);
        let simplexes = init(
            "nelder-mead simplexes",
            bytemuck::cast_slice(&simplexes),
            storage,
        );
        let kinfo_buf = init("nelder-mead ks", bytemuck::cast_slice(&kinfo), storage);
        // zeroed at creation: no run of any k has ended
        let done = kit::buffer(
            device,
            "nelder-mead runs ended",
            4 * kinfo.len() as u64,
            storage,
        );
        let copied = storage | wgpu::BufferUsages::COPY_SRC;
        let outcomes = kit::buffer(
            device,
            "nelder-mead outcomes",
            (runs.len() * std::mem::size_of::<OutcomeWords>()) as u64,
            copied,
        );
        let trace = kit::buffer(
            device,
            "nelder-mead trace",
            runs.len() as u64 * u64::from(trace_stride) * 4,
            copied,
        );
        let bind_group = kit::bind_group(
            device,
            "nelder-mead",
            &self.pipeline.layout,
            &[
                &params,
                &self.xs,
                &self.counts,
                &runs_buf,
                &simplexes,
                &outcomes,
                &trace,
                &kinfo_buf,
                &done,
            ],
        );
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.pipeline.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(starts.len() as u32, 1, 1);
        }
        let t0 = web_time::Instant::now();
        self.gpu.queue.submit([enc.finish()]);
        let back = kit::read_buffers(&self.gpu, &[&outcomes, &trace])
            .map_err(|e| format!("reading the minimizations back: {e}"))?;
        let words: Vec<OutcomeWords> = bytemuck::pod_collect_to_vec(&back[0]);
        let traces: Vec<f32> = bytemuck::pod_collect_to_vec(&back[1]);
        if let Some((run, w)) = runs.iter().zip(&words).find(|(_, w)| w.finished != 1) {
            return Err(format!(
                "k = {}: the GPU driver ({}) ended a minimization's loop after {} iterations, before its rule did (llvmpipe stops a shader's loops after 65,535 passes): fit with the host's rounds (--iterate-on host)",
                run.k, self.gpu.info.name, w.iterations
            ));
        }
        if std::env::var_os("PDES_GPU_PROFILE").is_some() {
            let passes: Vec<u32> = words.iter().map(|w| w.passes).collect();
            eprintln!(
                "device search: {} minimizations in {:.1} ms, one dispatch; passes {passes:?}",
                runs.len(),
                t0.elapsed().as_secs_f64() * 1e3
            );
        }
        Ok(runs
            .iter()
            .zip(words)
            .zip(traces.chunks(trace_stride as usize))
            .map(|((run, w), trace)| {
                let dims = run.dims as usize;
                let iterations = u64::from(w.iterations);
                Outcome {
                    k: run.k as usize,
                    start: w.start[..dims].iter().map(|&x| f64::from(x)).collect(),
                    theta: w.theta[..dims].iter().map(|&x| f64::from(x)).collect(),
                    cost: f64::from(w.cost),
                    iterations,
                    evaluations: u64::from(w.evaluations),
                    trace: trace[..=(iterations as usize).min(trace.len() - 1)]
                        .iter()
                        .map(|&c| f64::from(c))
                        .collect(),
                    passes: u64::from(w.passes),
                }
            })
            .collect())
    }

    /// Where each minimization of `outcomes` ended, as the host reports it: the better in
    /// f64 of its first point and the device's best point (all of them in one pass over the
    /// data).
    pub fn ends_of(&self, outcomes: &[&Outcome]) -> Vec<End> {
        let mixes: Vec<Mixture> = outcomes
            .iter()
            .flat_map(|o| [&o.start, &o.theta].map(|t| Mixture::from_theta(t, o.k)))
            .collect();
        let n = self.data.n() as f64;
        let costs: Vec<f64> = self
            .data
            .logliks(&mixes)
            .into_iter()
            .map(|ll| mean_cost(ll, n))
            .collect();
        outcomes
            .iter()
            .zip(costs.chunks(2))
            .map(|(o, c)| {
                // the device's point on a tie: it is where the search ended
                let (theta, cost) = if c[1] <= c[0] {
                    (&o.theta, c[1])
                } else {
                    (&o.start, c[0])
                };
                End {
                    theta: theta.clone(),
                    cost,
                    iterations: o.iterations,
                }
            })
            .collect()
    }

    /// The f64 mean negative log-likelihood of the parameters `theta` of k components
    /// (`UNUSABLE`, 1e300, where not finite).
    pub fn cost(&self, theta: &[f64], k: usize) -> f64 {
        let ll = self.data.loglik(&Mixture::from_theta(theta, k));
        mean_cost(ll, self.data.n() as f64)
    }

    /// The data (standard units).
    pub fn data(&self) -> &Data {
        &self.data
    }
}

/// The runs of a dispatch and where each k's are: `starts` (by k, every k from the first
/// to the last at least once), then with `chain` one split run per k after the first.
fn plan(starts: &[Start], chain: Option<u64>) -> Result<(Vec<KInfo>, Vec<RunWords>), String> {
    let Some(first) = starts.first().map(|s| s.k) else {
        return Ok((Vec::new(), Vec::new()));
    };
    let last = starts.last().map_or(first, |s| s.k);
    let most = super::gpu::MAX_COMPONENTS;
    if let Some(s) = starts.iter().find(|s| {
        s.k == 0
            || s.k > most
            || s.simplex.len() != 3 * s.k
            || s.simplex.iter().any(|v| v.len() != 3 * s.k - 1)
    }) {
        return Err(format!(
            "a device minimization of {} components needs 1 to {most} components and 3k vertices of 3k − 1 parameters",
            s.k
        ));
    }
    let ks: Vec<usize> = (first..=last).collect();
    let mut kinfo = Vec::with_capacity(ks.len());
    for &k in &ks {
        let begin = starts.iter().position(|s| s.k == k);
        let count = starts.iter().filter(|s| s.k == k).count();
        let Some(begin) = begin.filter(|&b| starts[b..b + count].iter().all(|s| s.k == k)) else {
            return Err(format!(
                "the device minimizations must go by k, each k from {first} to {last} at least once (k = {k})"
            ));
        };
        kinfo.push(KInfo {
            fixed_begin: begin as u32,
            fixed_count: count as u32,
            split_slot: NONE,
            tasks: count as u32,
        });
    }
    // the split runs: one per k after the first, after the fixed ones
    let mut runs: Vec<RunWords> = starts
        .iter()
        .map(|s| RunWords {
            k: s.k as u32,
            dims: (3 * s.k - 1) as u32,
            max_iterations: s.max_iterations.min(u64::from(u32::MAX - 1)) as u32,
            pad: 0,
        })
        .collect();
    if let Some(per_parameter) = chain {
        for (i, &k) in ks.iter().enumerate().skip(1) {
            kinfo[i].split_slot = runs.len() as u32;
            kinfo[i].tasks += 1;
            let dims = 3 * k - 1;
            runs.push(RunWords {
                k: k as u32,
                dims: dims as u32,
                max_iterations: (per_parameter * dims as u64).min(u64::from(u32::MAX - 1)) as u32,
                pad: 0,
            });
        }
    }
    Ok((kinfo, runs))
}
