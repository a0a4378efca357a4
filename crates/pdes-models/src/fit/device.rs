//! Whole Nelder–Mead minimizations on the GPU (issue 32, item 2): each minimization is one
//! workgroup that runs its iterations to the end (`nelder_mead.wgsl`), so a fit of
//! k = 1..10 is a handful of dispatches rather than one round trip per iteration. The
//! order of the work is [`super::Fits`]'s: every fixed start of every k in the first
//! dispatch, then per k the start split from the fit of k − 1 ([`super::search::split_start`]),
//! one dispatch each (it needs k − 1's result).
//!
//! Its arithmetic is f32, so its path is not the host's: the CPU twin of what it computes
//! is the same method on the host ([`super::Fits`], f64), and the two are compared by the
//! maximum they reach (tests, `pdes-lab verify`), not step by step. What it reports is
//! exact for what it reports: each start's first point and the device's best point are
//! evaluated again in f64 on the host and the better kept, so the ln L printed is the f64
//! log-likelihood of the parameters printed, and a k started from k − 1's fit never ends
//! below it.

use super::search::{End, UNUSABLE, best_of, initial_simplex, split_start, starts};
use super::{Data, Fit, Mixture, Search};
use bytemuck::{Pod, Zeroable};
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, Use};
use std::sync::Arc;

/// Most distinct values for which a minimization per workgroup is the faster way: above
/// it one evaluation is enough work for the whole GPU, and the host's rounds
/// ([`super::gpu::GpuLoglik`]) use every multiprocessor on it (bench/NOTES.md, "Nelder–Mead
/// on the device").
pub const MOST_DISTINCT: usize = 1 << 17;
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
    pad0: u32,
    total: f32,
    min_log_sd: f32,
    tolerance: f32,
    pad1: f32,
}

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
}

/// One minimization for the device: k components from `simplex` (3k vertices of 3k − 1
/// parameters), at most `max_iterations`.
#[derive(Clone, Debug)]
pub struct Start {
    /// Components.
    pub k: usize,
    /// The initial simplex ([`initial_simplex`]).
    pub simplex: Vec<Vec<f64>>,
    /// Nelder–Mead's iteration limit.
    pub max_iterations: u64,
}

/// Where a device minimization ended.
#[derive(Clone, Debug)]
pub struct Outcome {
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
    /// and reads back where each ended.
    pub fn run(&self, starts: &[Start]) -> Result<Vec<Outcome>, String> {
        if starts.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(s) = starts.iter().find(|s| {
            s.k == 0
                || s.k > super::gpu::MAX_COMPONENTS
                || s.simplex.len() != 3 * s.k
                || s.simplex.iter().any(|v| v.len() != 3 * s.k - 1)
        }) {
            return Err(format!(
                "a device minimization of {} components needs 1 to {} components and 3k vertices of 3k − 1 parameters",
                s.k,
                super::gpu::MAX_COMPONENTS
            ));
        }
        let most = u64::from(u32::MAX - 1);
        let longest = starts.iter().map(|s| s.max_iterations).max().unwrap_or(0);
        if longest > most {
            return Err(format!(
                "{longest} iterations: the device counts at most {most}"
            ));
        }
        let trace_stride = longest as u32 + 1;
        let device = &self.gpu.device;
        let params = Params {
            n: self.data.values.len() as u32,
            runs: starts.len() as u32,
            trace_stride,
            pad0: 0,
            total: self.data.n() as f32,
            min_log_sd: (self.data.moments().1 * 1e-4).ln() as f32,
            tolerance: SD_TOLERANCE,
            pad1: 0.0,
        };
        let runs: Vec<RunWords> = starts
            .iter()
            .map(|s| RunWords {
                k: s.k as u32,
                dims: (3 * s.k - 1) as u32,
                max_iterations: s.max_iterations as u32,
                pad: 0,
            })
            .collect();
        let mut simplexes = vec![0f32; starts.len() * MAXV * STRIDE];
        for (r, s) in starts.iter().enumerate() {
            for (v, vertex) in s.simplex.iter().enumerate() {
                for (d, x) in vertex.iter().enumerate() {
                    simplexes[(r * MAXV + v) * STRIDE + d] = *x as f32;
                }
            }
        }
        let init = |label: &str, bytes: &[u8], usage| kit::buffer_init(device, label, bytes, usage);
        let params = init(
            "nelder-mead params",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM,
        );
        let runs = init(
            "nelder-mead runs",
            bytemuck::cast_slice(&runs),
            wgpu::BufferUsages::STORAGE,
        );
        let simplexes = init(
            "nelder-mead simplexes",
            bytemuck::cast_slice(&simplexes),
            wgpu::BufferUsages::STORAGE,
        );
        let copied = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        let outcomes = kit::buffer(
            device,
            "nelder-mead outcomes",
            (starts.len() * std::mem::size_of::<OutcomeWords>()) as u64,
            copied,
        );
        let trace = kit::buffer(
            device,
            "nelder-mead trace",
            starts.len() as u64 * u64::from(trace_stride) * 4,
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
                &runs,
                &simplexes,
                &outcomes,
                &trace,
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
        if let Some((s, w)) = starts.iter().zip(&words).find(|(_, w)| w.finished != 1) {
            return Err(format!(
                "k = {}: the GPU driver ({}) ended a minimization's loop after {} iterations, before its rule did (llvmpipe stops a shader's loops after 65,535 passes): fit with the host's rounds (--iterate-on host)",
                s.k, self.gpu.info.name, w.iterations
            ));
        }
        let traces: Vec<f32> = bytemuck::pod_collect_to_vec(&back[1]);
        if std::env::var_os("PDES_GPU_PROFILE").is_some() {
            // the dispatch's wall time against its longest minimization's passes
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            let longest = words.iter().map(|w| w.passes).max().unwrap_or(0);
            let ks: Vec<usize> = starts.iter().map(|s| s.k).collect();
            eprintln!(
                "device search: {} minimizations (k {ks:?}) in {ms:.1} ms; the longest {longest} passes, {:.2} µs a pass; iterations {:?}, evaluations {:?}",
                starts.len(),
                ms * 1e3 / longest.max(1) as f64,
                words.iter().map(|w| w.iterations).collect::<Vec<_>>(),
                words.iter().map(|w| w.evaluations).collect::<Vec<_>>()
            );
        }
        Ok(starts
            .iter()
            .zip(words)
            .zip(traces.chunks(trace_stride as usize))
            .map(|((s, w), trace)| {
                let iterations = u64::from(w.iterations);
                Outcome {
                    theta: w.theta[..3 * s.k - 1]
                        .iter()
                        .map(|&x| f64::from(x))
                        .collect(),
                    cost: f64::from(w.cost),
                    iterations,
                    evaluations: u64::from(w.evaluations),
                    passes: u64::from(w.passes),
                    trace: trace[..=(iterations as usize).min(trace.len() - 1)]
                        .iter()
                        .map(|&c| f64::from(c))
                        .collect(),
                }
            })
            .collect())
    }

    /// Where a start's minimization ended, as the host reports it: the better in f64 of
    /// the start's first point and the device's best point.
    fn end_of(&self, start: &Start, outcome: &Outcome) -> End {
        let n = self.data.n() as f64;
        let first = &start.simplex[0];
        let points = [first.clone(), outcome.theta.clone()];
        let mixes: Vec<Mixture> = points
            .iter()
            .map(|t| Mixture::from_theta(t, start.k))
            .collect();
        let costs: Vec<f64> = self
            .data
            .logliks(&mixes)
            .into_iter()
            .map(|ll| {
                let c = -ll / n;
                if c.is_finite() { c } else { UNUSABLE }
            })
            .collect();
        // the device's point on a tie: it is where the search ended
        let at = usize::from(costs[1] <= costs[0]);
        End {
            theta: points[at].clone(),
            cost: costs[at],
            iterations: outcome.iterations,
        }
    }
}

/// The fits of every k of a range on the device, in the order [`super::Fits`] makes them;
/// a caller may stop between any two dispatches ([`DeviceFits::step`]).
pub struct DeviceFits {
    search: DeviceSearch,
    ks: std::ops::RangeInclusive<usize>,
    sd: f64,
    limit_per_parameter: u64,
    /// Per k: its fixed starts and their outcomes, once the first dispatch is back.
    fixed: Vec<Vec<(Start, Outcome)>>,
    fits: Vec<Fit>,
    progress: Vec<(usize, Vec<f64>)>,
    rounds: u64,
}

impl DeviceFits {
    /// The fits of `ks` to `data` (in standard units) on `gpu`, not yet begun.
    pub fn new(
        gpu: Arc<Gpu>,
        data: &Data,
        ks: std::ops::RangeInclusive<usize>,
        search: Search,
    ) -> Result<Self, String> {
        Ok(Self {
            search: DeviceSearch::new(gpu, data)?,
            ks,
            sd: data.moments().1,
            limit_per_parameter: search.iterations_per_parameter,
            fixed: Vec::new(),
            fits: Vec::new(),
            progress: Vec::new(),
            rounds: 0,
        })
    }

    fn start(&self, k: usize, mix: &Mixture) -> Start {
        let simplex = initial_simplex(self.sd, k, mix);
        Start {
            k,
            max_iterations: self.limit_per_parameter * (simplex.len() as u64 - 1),
            simplex,
        }
    }

    /// One dispatch: the first runs every fixed start of every k and finishes the first
    /// k; each later one runs k's split start and finishes k. Returns whether any remain.
    pub fn step(&mut self) -> Result<bool, String> {
        let first = *self.ks.start();
        if self.rounds == 0 {
            let data = &self.search.data;
            let starts: Vec<Start> = self
                .ks
                .clone()
                .flat_map(|k| starts(data, k).into_iter().map(move |m| (k, m)))
                .map(|(k, m)| self.start(k, &m))
                .collect();
            let mut outcomes = self.search.run(&starts)?.into_iter();
            let mut by_k: Vec<Vec<(Start, Outcome)>> =
                self.ks.clone().map(|_| Vec::new()).collect();
            for s in starts {
                let o = outcomes
                    .next()
                    .ok_or("the device returned fewer minimizations than it ran")?;
                by_k[s.k - first].push((s, o));
            }
            self.fixed = by_k;
            self.rounds += 1;
            self.finish(first, Vec::new())?;
        } else {
            let k = first + self.fits.len();
            let Some(previous) = self.fits.last() else {
                return Err("the device fit lost its previous k".into());
            };
            let split = self.start(k, &split_start(previous));
            let outcome = self
                .search
                .run(std::slice::from_ref(&split))?
                .pop()
                .ok_or("the device returned no minimization")?;
            self.rounds += 1;
            self.finish(k, vec![(split, outcome)])?;
        }
        Ok(first + self.fits.len() <= *self.ks.end())
    }

    /// Makes the fit of k from its fixed starts and `more` (its split start).
    fn finish(&mut self, k: usize, more: Vec<(Start, Outcome)>) -> Result<(), String> {
        let first = *self.ks.start();
        let runs: Vec<&(Start, Outcome)> = self.fixed[k - first].iter().chain(&more).collect();
        let ends: Vec<End> = runs.iter().map(|(s, o)| self.search.end_of(s, o)).collect();
        let evaluations = runs.iter().map(|(_, o)| o.evaluations).sum();
        let n = self.search.data.n() as f64;
        self.fits.push(best_of(k, n, &ends, evaluations)?);
        // best cost after each iteration over the k's runs (a run that stopped keeps its last)
        let longest = runs.iter().map(|(_, o)| o.trace.len()).max().unwrap_or(0);
        let curve = (0..longest)
            .map(|i| {
                runs.iter()
                    .filter_map(|(_, o)| o.trace.get(i).or(o.trace.last()))
                    .fold(f64::INFINITY, |a, &b| a.min(b))
            })
            .collect();
        self.progress.push((k, curve));
        Ok(())
    }

    /// The fits done so far, in increasing k (standard units).
    pub fn done(&self) -> &[Fit] {
        &self.fits
    }

    /// Per k done: the best mean negative log-likelihood after each iteration (f32).
    pub fn progress(&self) -> &[(usize, Vec<f64>)] {
        &self.progress
    }

    /// Dispatches so far, each with its readback.
    pub fn rounds(&self) -> u64 {
        self.rounds
    }

    /// Every fit, once [`DeviceFits::step`] has returned false.
    pub fn into_fits(self) -> Result<Vec<Fit>, String> {
        if self.fits.len() != self.ks.clone().count() {
            return Err("the device fit did not finish".into());
        }
        Ok(self.fits)
    }
}
