//! What a network run on the GPU is made of before its first step: the parameter and
//! control blocks and the records (as in net_common.wgsl), the memory plan, the buffers
//! uploaded from the CPU twin's state at time 0 ([`Buffers::upload`]) and the passes
//! ([`build_pipelines`]). `mod.rs` steps them.

use crate::network::config::NetworkConfig;
use crate::network::state::{NONE, NetState};
use bytemuck::{Pod, Zeroable};
use pdes_core::rng::LN_TABLE;
use pdes_core::time::to_ticks;
use pdes_gpu::Gpu;
use pdes_gpu::kit::{self, Part, Region, Use, split};
use pdes_gpu::shaders::{self as gpu_shaders, Reductions};
use pdes_gpu::stepped::{LOG_BYTES, LOG_LEN, ScanItems, StepCtl, StepPipelines};
use rayon::prelude::*;

/// Stations per segment (SEG in stepped.wgsl at its default ITEMS).
pub(super) const SEG: u64 = ScanItems::EIGHT.segment();
/// Bytes of one token record (Token in net_common.wgsl: two 32-byte sectors).
pub(super) const TOKEN_BYTES: u64 = 64;
/// Words of one station's record (ST_* in net_common.wgsl: 8 vec4, one 128-byte line:
/// queue and times, the departures' sums, the constants, the first server).
pub(super) const STATION_WORDS: usize = 32;
/// Words of one station's cold record (CO_* in net_common.wgsl: 4 vec4).
pub(super) const COLD_WORDS: usize = 16;
/// Words of one server's record (two vec4: one 32-byte sector; set_server in
/// net_common.wgsl). A station's first server is in the station's record; the others are in
/// an array of their own.
pub(super) const SERVER_WORDS: usize = 8;
/// Where the alias columns start in their binding: after the ln table.
const ROUTE_BASE: usize = 1032;
/// The depart pass's shape: threads per workgroup and workgroups per segment (DEPART_WG and
/// DEPART_SPLIT in net_depart.wgsl, written by [`pass`]). 256 × 8 is a thread for every
/// station of a segment (SEG = 2,048): no thread takes a second station, not even in the
/// first steps, when every station is busy and a segment lists a thousand departures or
/// more. On an H200 (10⁶ stations, T = 2,000) the engine took 0.593–0.594 s with it against
/// 0.620–0.627 s at 256 × 4 and 0.693–0.702 s at 128 × 4, the default before
/// (bench/results/2026-11-30-h200-network-finish). `PDES_NET_DEPART`
/// (`THREADSxSPLIT`, e.g. `64x8`) overrides it for a bench experiment; anything else there
/// is ignored.
fn depart_shape() -> (u32, u32) {
    const DEFAULT: (u32, u32) = (256, 8);
    let Some(v) = std::env::var_os("PDES_NET_DEPART") else {
        return DEFAULT;
    };
    let v = v.to_string_lossy();
    let parsed = v
        .split_once('x')
        .and_then(|(t, n)| Some((t.parse().ok()?, n.parse().ok()?)));
    match parsed {
        Some((t, n)) if [32, 64, 128, 256].contains(&t) && (1..=16).contains(&n) => (t, n),
        _ => DEFAULT,
    }
}

/// Workgroups of the count, depart and arrive passes per segment.
fn spread() -> [u32; 3] {
    [1, depart_shape().1, 1]
}
/// The network's own phase (PHASE_FULL in net_common.wgsl).
pub(super) const PHASE_FULL: u32 = 4;

/// The shaders (`../shaders/`): bindings and handlers, the departures (and the count of a
/// step's external arrivals), the arrivals, the plan.
const COMMON: &str = include_str!("../shaders/net_common.wgsl");
const DEPART: &str = include_str!("../shaders/net_depart.wgsl");
const ARRIVE: &str = include_str!("../shaders/net_arrive.wgsl");
const PLAN: &str = include_str!("../shaders/net_plan.wgsl");

/// The full source of one pass (`name` is its file: `PDES_WGSL_DIR` may replace it and
/// net_common.wgsl for an attribution experiment, bench/experiments/network-attribution).
pub fn pass(name: &str, src: &'static str, reductions: Reductions) -> String {
    let common = gpu_shaders::part("net_common.wgsl", COMMON);
    let own = gpu_shaders::part(name, src);
    let (threads, split) = depart_shape();
    let geometry = format!(
        "// written by setup.rs: stations per segment, the depart pass's shape\n\
         const NET_SEG: u32 = {SEG}u;\nconst DEPART_WG: u32 = {threads}u;\nconst DEPART_SPLIT: u32 = {split}u;\n"
    );
    gpu_shaders::compose(
        reductions,
        &[
            &geometry,
            &common,
            gpu_shaders::PHILOX,
            gpu_shaders::STEPPED,
            &own,
        ],
    )
}

/// Every pass, by name (for the shader validation tests).
pub fn modules(reductions: Reductions) -> Vec<(String, String)> {
    [
        ("scan", "stepped_scan.wgsl", gpu_shaders::STEPPED_SCAN),
        ("depart", "net_depart.wgsl", DEPART),
        ("arrive", "net_arrive.wgsl", ARRIVE),
        ("plan", "net_plan.wgsl", PLAN),
    ]
    .iter()
    .map(|(n, file, src)| (n.to_string(), pass(file, src, reductions)))
    .collect()
}

/// Params in net_common.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(super) struct Params {
    pub(super) k: u32,
    pub(super) n_wg: u32,
    pub(super) rule: u32,
    pub(super) log_len: u32,
    pub(super) seed_lo: u32,
    pub(super) seed_hi: u32,
    pub(super) servers: u32,
    pub(super) sources: u32,
    pub(super) cold_base: u32,
    pub(super) route_base: u32,
    pub(super) src_base: u32,
    pub(super) st_base: u32,
    pub(super) sv_base: u32,
    pub(super) free_base: u32,
    pub(super) scale: u32,
    pub(super) pad0: u32,
    pub(super) d: [u32; 2],
    pub(super) end_t: [u32; 2],
    pub(super) warmup: [u32; 2],
    pub(super) population: [u32; 2],
    pub(super) shift: [u32; 2],
    pub(super) pad: [u32; 2],
}

/// Ctl in net_common.wgsl: the shared head, then the pool's state.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(super) struct Ctl {
    pub(super) head: StepCtl,
    pub(super) pool_used: u32,
    pub(super) pool_cap: u32,
    pub(super) pool_short: u32,
    pub(super) available: u32,
}

/// A token record as the GPU stores it (Token in net_common.wgsl).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(super) struct GpuToken {
    pub(super) id: [u32; 2],
    pub(super) arrived: [u32; 2],
    pub(super) visits: u32,
    pub(super) next: u32,
    pub(super) link: u32,
    pub(super) sender: u32,
    pub(super) entered: [u32; 2],
    pub(super) pad: [u32; 6],
}

/// The slots a fresh engine's pool starts with: the population and twice the exact mean
/// number in the network where it is known (else 64 per source), at least 256, a power of
/// two, at most a quarter of one buffer of `gpu` (the pool grows if the network fills).
pub fn initial_pool(cfg: &NetworkConfig, gpu: &Gpu) -> u32 {
    let net = &cfg.network;
    let sources = net.stations.iter().filter(|s| s.arrival_rate > 0.0).count() as f64;
    let expected = cfg
        .exact()
        .as_ref()
        .map_or(64.0 * sources, |v| v.mean_tokens);
    let cap = (gpu.max_storage_buffer() / TOKEN_BYTES / 4).max(256);
    ((net.population() as f64 + 2.0 * expected) as u64 + 64)
        .next_power_of_two()
        .min(cap)
        .max(net.population())
        .clamp(256, 1 << 30) as u32
}

/// Bytes of GPU memory a run of `cfg` needs with a pool of `pool` slots: one entry per
/// binding, in binding order (net_common.wgsl), so that `stepped::check_fits` refuses a
/// network whose largest binding exceeds the adapter's limit before anything is created
/// (the tests compare it with the buffers a run makes).
pub fn memory_plan(cfg: &NetworkConfig, pool: u32) -> Vec<(&'static str, u64)> {
    let net = &cfg.network;
    let k = net.stations.len() as u64;
    let servers = net.servers();
    let n_wg = k.div_ceil(SEG);
    let pool = u64::from(pool);
    let columns = net.distinct_routes();
    vec![
        ("parameters", std::mem::size_of::<Params>() as u64),
        ("control block", std::mem::size_of::<Ctl>() as u64),
        (
            "segment counts, stations and servers",
            16 * u64::from(Bases::station_base(n_wg as u32))
                + 4 * (STATION_WORDS + COLD_WORDS) as u64 * k
                + 4 * SERVER_WORDS as u64 * (servers - k),
        ),
        ("token pool", TOKEN_BYTES * pool),
        ("next events", 8 * k),
        ("departure lists and free stack", 4 * n_wg * SEG + 4 * pool),
        ("announcement heads", 4 * (k + 3)),
        ("segment minima", 8 * n_wg),
        ("arrivals' minima", 16 * u64::from(spread()[2]) * n_wg),
        (
            "ln table, routes and sources",
            4 * (ROUTE_BASE as u64 + 2 * k + 3 * columns),
        ),
        ("step log", LOG_BYTES),
    ]
}

/// Buffers in binding order (net_common.wgsl).
pub(super) struct Buffers {
    pub(super) params: wgpu::Buffer,
    pub(super) ctl: wgpu::Buffer,
    /// Segment counts, then the stations, then the servers.
    pub(super) seg_count: wgpu::Buffer,
    pub(super) tok: wgpu::Buffer,
    /// Each station's next event.
    pub(super) dep: wgpu::Buffer,
    /// Departure lists, then the free stack (last: it grows).
    pub(super) lists: wgpu::Buffer,
    pub(super) heads: wgpu::Buffer,
    pub(super) scan_min: wgpu::Buffer,
    pub(super) part_min: wgpu::Buffer,
    pub(super) consts: wgpu::Buffer,
    pub(super) steplog: wgpu::Buffer,
    /// The arrays the host reads inside the shared bindings.
    pub(super) stations: Region,
    pub(super) cold: Region,
    pub(super) servers: Region,
    pub(super) free_stack: Region,
}

impl Buffers {
    /// The bindings in the order of net_common.wgsl.
    pub(super) fn all(&self) -> [&wgpu::Buffer; 11] {
        [
            &self.params,
            &self.ctl,
            &self.seg_count,
            &self.tok,
            &self.dep,
            &self.lists,
            &self.heads,
            &self.scan_min,
            &self.part_min,
            &self.consts,
            &self.steplog,
        ]
    }
}

/// How the passes use the bindings, in order.
const USES: [Use; 11] = {
    let mut u = [Use::ReadWrite; 11];
    u[0] = Use::Uniform;
    u[9] = Use::Read;
    u
};

/// The passes of a step and their layout.
pub(super) struct Pipelines {
    pub(super) layout: wgpu::BindGroupLayout,
    pub(super) step: StepPipelines,
}

/// Builds the passes; `open` adds the count of a step's external arrivals.
pub(super) fn build_pipelines(gpu: &Gpu, reductions: Reductions, open: bool) -> Pipelines {
    let device = &gpu.device;
    let layout = kit::layout(device, "network", &USES);
    let pl = kit::pipeline_layout(device, "network", &[&layout]);
    let module = |file: &str, src| kit::compute_module(device, file, pass(file, src, reductions));
    let scan = module("stepped_scan.wgsl", gpu_shaders::STEPPED_SCAN);
    let depart = module("net_depart.wgsl", DEPART);
    let arrive = module("net_arrive.wgsl", ARRIVE);
    let plan = module("net_plan.wgsl", PLAN);
    let mut step = StepPipelines::new(device, &pl, [&scan, &depart, &arrive, &plan]);
    step.spread = spread();
    if open {
        step.count = Some(kit::pipeline(device, &pl, &depart, "count"));
    }
    Pipelines { layout, step }
}

/// Where each array lies inside its binding, from the sizes.
struct Bases {
    route: u32,
    src: u32,
    st: u32,
    cold: u32,
    sv: u32,
    free: u32,
}

impl Bases {
    /// Where the stations start in `seg_count` (in vec4), after the depart workgroups'
    /// counts: on a 128-byte line, so that each station's record is one (8 vec4).
    fn station_base(n_wg: u32) -> u32 {
        (spread()[1] * n_wg).next_multiple_of(8)
    }

    fn of(state: &NetState, n_wg: u32) -> Self {
        let k = state.stations.len() as u32;
        let route = ROUTE_BASE as u32;
        let st = Self::station_base(n_wg);
        let cold = st + (STATION_WORDS / 4) as u32 * k;
        Self {
            route,
            src: route + 3 * state.routes.outcome.len() as u32,
            st,
            cold,
            sv: cold + (COLD_WORDS / 4) as u32 * k,
            free: n_wg * SEG as u32,
        }
    }
}

impl Params {
    /// The parameters of a run of `cfg` from `state` stepping by `rule` (StepRule::gpu_code).
    pub(super) fn of(cfg: &NetworkConfig, state: &NetState, rule: u32) -> Self {
        let k = state.stations.len() as u64;
        let n_wg = k.div_ceil(SEG) as u32;
        let b = Bases::of(state, n_wg);
        Self {
            k: k as u32,
            n_wg,
            rule,
            log_len: LOG_LEN,
            seed_lo: cfg.run.seed as u32,
            seed_hi: (cfg.run.seed >> 32) as u32,
            servers: state.servers.len() as u32,
            sources: state.sources.len() as u32,
            cold_base: b.cold,
            route_base: b.route,
            src_base: b.src,
            st_base: b.st,
            sv_base: b.sv,
            free_base: b.free,
            scale: 0,
            pad0: 0,
            d: split(to_ticks(cfg.run.d)),
            end_t: split(cfg.end_ticks()),
            warmup: split(cfg.run.warmup_ticks()),
            population: split(state.population),
            shift: [0; 2],
            pad: [0; 2],
        }
    }
}

/// One server's record as the GPU holds it (set_server in net_common.wgsl): server `k`
/// of station `s`, with the destination of its token in service.
fn server_words(state: &NetState, s: usize, k: usize) -> [u32; SERVER_WORDS] {
    let v = &state.servers[k];
    let (d, since) = (split(v.departure), split(v.since));
    let to = state.destination(s as u32, k);
    [d[0], d[1], since[0], since[1], v.token, 0, 0, to]
}

/// One station's record as the GPU holds it (ST_* in net_common.wgsl): its queue, times
/// and sums, its constants (S_*) and its first server.
pub(super) fn station_words(
    state: &NetState,
    s: usize,
    source: Option<usize>,
) -> [u32; STATION_WORDS] {
    let st = &state.stations[s];
    let src_next = source.map_or(u64::MAX, |i| state.sources[i].next);
    let (first, end) = (state.first_server[s], state.first_server[s + 1]);
    let (r, law) = (&state.routes, state.service[s]);
    let has_source = if source.is_some() { 1 << 31 } else { 0 };
    let done = split(st.completions);
    let mut w = [0u32; STATION_WORDS];
    w[..4].copy_from_slice(&[st.head, st.tail, done[0], st.present]);
    w[4..8].copy_from_slice(&[split(st.last_arrival), split(src_next)].concat());
    w[8..12].copy_from_slice(&[split(st.busy), split(st.sojourn)].concat());
    w[12..16].copy_from_slice(&w128(st.area_done));
    let base = split(law.base);
    w[16..24].copy_from_slice(&[
        first,
        end - first,
        r.first[s],
        r.count[s],
        law.kind | (law.phases << 8) | has_source,
        law.scale,
        base[0],
        base[1],
    ]);
    if end > first {
        w[24..32].copy_from_slice(&server_words(state, s, first as usize));
    }
    w
}

/// One station's cold record (CO_* in net_common.wgsl): its source's count, the
/// completions' high word and its causality errors (the exits' sums start at zero: the
/// twin keeps them network-wide; the queue's length and the live sum follow from the
/// queue and the tokens, download_state).
pub(super) fn cold_words(state: &NetState, s: usize, source: Option<usize>) -> [u32; COLD_WORDS] {
    let st = &state.stations[s];
    let count = split(source.map_or(0, |i| state.sources[i].count));
    let mut w = [0u32; COLD_WORDS];
    w[..4].copy_from_slice(&[count[0], count[1], 0, split(st.completions)[1]]);
    w[12..14].copy_from_slice(&split(st.causality_errors));
    w
}

/// A 128-bit sum as four words, low first.
fn w128(v: u128) -> [u32; 4] {
    let (lo, hi) = (split(v as u64), split((v >> 64) as u64));
    [lo[0], lo[1], hi[0], hi[1]]
}

/// Each station's source index, if it has one.
pub(super) fn source_of(state: &NetState) -> Vec<Option<usize>> {
    let mut of = vec![None; state.stations.len()];
    for (i, src) in state.sources.iter().enumerate() {
        of[src.station as usize] = Some(i);
    }
    of
}

/// The alias columns and the sources (index, mean gap), after the ln table.
fn constants(state: &NetState, sources: &[Option<usize>]) -> Vec<u32> {
    let k = state.stations.len();
    let r = &state.routes;
    let mut w = Vec::with_capacity(ROUTE_BASE + 2 * k + 3 * r.outcome.len());
    w.extend_from_slice(&LN_TABLE[..]);
    w.resize(ROUTE_BASE, 0);
    for c in 0..r.outcome.len() {
        w.extend_from_slice(&[r.outcome[c], r.alias[c], r.threshold[c]]);
    }
    for &source in sources.iter().take(k) {
        w.extend_from_slice(&source.map_or([NONE, 0], |i| [i as u32, state.sources[i].gap]));
    }
    w
}

impl Buffers {
    /// Every buffer of a run with `params` and `ctl`, from the twin's `state` at time 0
    /// (its tokens in slots 0.., its queues and services), with a pool of `pool` slots.
    pub(super) fn upload(
        (device, queue): (&wgpu::Device, &wgpu::Queue),
        params: &Params,
        ctl: &Ctl,
        state: &NetState,
        pool: u32,
    ) -> Self {
        let (k, n_wg) = (state.stations.len(), params.n_wg as usize);
        let sources = source_of(state);
        let storage = kit::STORAGE_RW;
        let init =
            |label: &str, contents: &[u8], usage| kit::buffer_init(device, label, contents, usage);
        // each station's words on its own core (a million stations: about a second on one)
        let stations: Vec<[u32; STATION_WORDS]> = (0..k)
            .into_par_iter()
            .map(|s| station_words(state, s, sources[s]))
            .collect();
        let cold: Vec<[u32; COLD_WORDS]> = (0..k)
            .into_par_iter()
            .map(|s| cold_words(state, s, sources[s]))
            .collect();
        // every server but each station's first (that one is in the station's record), in
        // order: server k of station s at k − s − 1 (sv_at in net_common.wgsl)
        let servers: Vec<[u32; SERVER_WORDS]> = (0..state.servers.len())
            .into_par_iter()
            .filter_map(|i| {
                let s = state.station_of(i) as usize;
                (i != state.first_server[s] as usize).then(|| server_words(state, s, i))
            })
            .collect();
        // (the parts written by the queue, the zeros not at all: at 10⁶ stations the
        // concatenation was another 200 MB copy before the upload's own)
        let (seg_count, [_, stations, cold, servers]) = kit::packed_parts(
            device,
            queue,
            "seg_count, stations, servers",
            [
                Part::Zeros(16 * u64::from(params.st_base)),
                Part::Bytes(bytemuck::cast_slice(&stations)),
                Part::Bytes(bytemuck::cast_slice(&cold)),
                Part::Bytes(bytemuck::cast_slice(&servers)),
            ],
        );
        let next: Vec<[u32; 2]> = (0..k)
            .into_par_iter()
            .map(|s| {
                let (a, b) = (
                    state.first_server[s] as usize,
                    state.first_server[s + 1] as usize,
                );
                let d = state.servers[a..b]
                    .iter()
                    .map(|v| v.departure)
                    .min()
                    .unwrap_or(u64::MAX);
                let src = sources[s].map_or(u64::MAX, |i| state.sources[i].next);
                split(d.min(src))
            })
            .collect();
        let dep = init("next events", bytemuck::cast_slice(&next), storage);
        let (lists, [_, free_stack]) = kit::packed_parts(
            device,
            queue,
            "dep_list, free stack",
            [
                Part::Zeros(4 * n_wg as u64 * SEG),
                Part::Zeros(4 * u64::from(pool)),
            ],
        );
        let mut tokens = vec![GpuToken::default(); pool as usize];
        tokens
            .par_iter_mut()
            .zip(state.tokens.par_iter())
            .for_each(|(g, t)| {
                *g = GpuToken {
                    id: split(t.id),
                    entered: split(t.entered),
                    arrived: split(t.arrived),
                    visits: t.visits,
                    next: t.next,
                    link: NONE,
                    sender: NONE,
                    pad: [0; 6],
                };
            });
        let heads: Vec<u32> = (0..k + 3).map(|i| if i < k { NONE } else { 0 }).collect();
        Self {
            params: init(
                "params",
                bytemuck::bytes_of(params),
                wgpu::BufferUsages::UNIFORM,
            ),
            ctl: init("ctl", bytemuck::bytes_of(ctl), storage),
            seg_count,
            tok: init("token pool", bytemuck::cast_slice(&tokens), storage),
            dep,
            lists,
            heads: init("heads", bytemuck::cast_slice(&heads), storage),
            scan_min: init("scan_min", &vec![0u8; 8 * n_wg], storage),
            // (NEVER, 0, 0): a reduction before the first step must not see a zero minimum
            part_min: init(
                "part_min",
                bytemuck::cast_slice(&vec![[NONE, NONE, 0, 0]; spread()[2] as usize * n_wg]),
                storage,
            ),
            consts: init(
                "ln table, constants, routes",
                bytemuck::cast_slice(&constants(state, &sources)),
                storage,
            ),
            steplog: init("steplog", &vec![0u8; LOG_BYTES as usize], storage),
            stations,
            cold,
            servers,
            free_stack,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest network's passes each fit one dispatch dimension (65,535 workgroups, what
    /// every adapter allows): the depart pass has the most, DEPART_SPLIT a segment.
    #[test]
    fn the_largest_networks_passes_fit_one_dispatch_dimension() {
        let n_wg = (crate::network::spec::MAX_STATIONS as u64).div_ceil(SEG);
        for per_segment in spread() {
            assert!(
                n_wg * u64::from(per_segment) <= 65_535,
                "{n_wg} × {per_segment}"
            );
        }
    }
}
