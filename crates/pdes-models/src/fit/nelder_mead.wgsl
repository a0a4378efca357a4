// nelder_mead.wgsl — whole Nelder–Mead minimizations of the mixture's mean negative
// log-likelihood on the GPU (paper 003 §3), one workgroup per minimization, no round trip
// to the host between iterations. The method is the host's (fit/nelder_mead.rs: argmin's
// coefficients — reflection 1, expansion 2, contraction ½ towards the worst vertex, shrink
// ½ towards the best — a stable sort of the simplex each iteration, the stop on the costs'
// standard deviation or an iteration limit), asking for one candidate at a time as the
// textbook does; its arithmetic is f32, so its path is its own.
//
// Shape: one loop whose every pass is the same three steps at the top level — thread 0
// plans (takes the costs just computed, moves the simplex's order, picks what to evaluate
// next), the threads write and gather the points the plan names, the workgroup evaluates
// them — so every barrier is in uniform control flow by construction, on every driver
// (a first version with barriers inside the branches of a decision lost its loop on
// lavapipe). The vertices stay in their slots; `ord` lists the slots by cost. Loops over
// components run to MAXK with a test of k inside, so that a compiler can unroll them:
// llvmpipe counts every pass of every loop it did not unroll against one limit of 65,535
// per invocation, and ends the loops there (fit/device.rs refuses such a search). The costs are those of
// mixture.wgsl (the largest term factored out, a tree sum in shared memory). The host
// (fit/device.rs) re-evaluates each minimization's start and best point in f64 and keeps
// the better: what it reports is an f64 likelihood of the parameters it reports.

struct Params {
    n: u32,            // distinct values
    runs: u32,         // minimizations: the fixed starts (one workgroup each), then the split ones
    trace_stride: u32, // f32 per run in `trace`: its longest iteration limit + 1
    ks: u32,           // entries of `kinfo`: k = runs' smallest k + index
    total: f32,        // Σ counts: the cost is −Σ count · ln f(x) / total
    min_log_sd: f32,   // a log sd below this makes a mixture unusable (the host's min sd)
    tolerance: f32,    // stop when the costs' standard deviation is below this
    mean_step: f32,    // the initial simplex's step in a mean (0.1 · the data's sd)
}

struct Run {
    k: u32,
    dims: u32,            // 3k − 1
    max_iterations: u32,
    pad: u32,
}

struct Outcome {
    cost: f32,
    iterations: u32,
    evaluations: u32,
    finished: u32,      // 1: the loop ended by its rule (DONE)
    passes: u32,        // passes over the data (each up to MAXP points)
    pad0: u32, pad1: u32, pad2: u32,
    theta: array<f32, 32>,  // the best vertex (dims used)
    start: array<f32, 32>,  // the first vertex (for a split start: the one built here)
}

// The runs of one k: its fixed starts (contiguous), its split start's run (NONE for the
// first k, or without the chain), and how many runs must end before k + 1's split begins.
struct KInfo {
    fixed_begin: u32,
    fixed_count: u32,
    split_slot: u32,
    tasks: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> xs: array<f32>;       // distinct values (standard units)
@group(0) @binding(2) var<storage, read> counts: array<f32>;   // their counts (exact below 2^24)
@group(0) @binding(3) var<storage, read> runs: array<Run>;
@group(0) @binding(4) var<storage, read> simplexes: array<f32>; // [run][vertex < 30][32]
@group(0) @binding(5) var<storage, read_write> outcomes: array<Outcome>;
@group(0) @binding(6) var<storage, read_write> trace: array<f32>; // [run][iteration]: best cost
@group(0) @binding(7) var<storage, read> kinfo: array<KInfo>;
@group(0) @binding(8) var<storage, read_write> done: array<atomic<u32>>; // runs ended, per k

const WG: u32 = 256u;
const MAXK: u32 = 10u;
const STRIDE: u32 = 32u;          // f32 per vertex (dims ≤ 29)
const MAXV: u32 = 30u;            // vertices (dims + 1)
const MAXP: u32 = 8u;             // points evaluated in one pass over the data
const LN_SQRT_2PI: f32 = 0.9189385332;
const LN_1E_MINUS_300: f32 = -690.7755; // the host refuses weights ≤ 1e-300
const LOG_SD_FINITE: f32 = 88.0;        // σ = exp(log sd) stays finite in f32
// larger than any real cost: Nelder–Mead moves away (the host's UNUSABLE)
const UNUSABLE: f32 = 3.0e38;
// what the points in `pts` are, so what the plan does with their costs
const VERTICES: u32 = 0u;   // vertices at positions cursor .. cursor + npts (first, or shrunk)
const REFLECTED: u32 = 1u;
const EXPANDED: u32 = 2u;
const CONTRACTED: u32 = 3u;
const DONE: u32 = 4u;
const NONE: u32 = 0xffffffffu;
const LN2: f32 = 0.6931471806;
// the device's own stop: every vertex within this of the best in every coordinate, relative
// to (|x| + 1) — about 32 f32 ulps, where a reflection no longer moves and ties in the costs
// make Nelder–Mead shrink again and again (the host's f64 geometry does not get there)
const COLLAPSED: f32 = 3.8e-6;

var<workgroup> vx: array<f32, 960>;       // the simplex: slot s at s · STRIDE
var<workgroup> cost: array<f32, MAXV>;    // by slot
var<workgroup> ord: array<u32, MAXV>;     // slots by cost (stable)
var<workgroup> cen: array<f32, STRIDE>;   // this iteration's centroid
var<workgroup> dir: array<f32, STRIDE>;   // and direction: centroid − worst
var<workgroup> pts: array<f32, MAXP * STRIDE>; // points to evaluate, STRIDE apart
var<workgroup> pcost: array<f32, MAXP>;
var<workgroup> terms: array<vec4<f32>, MAXP * MAXK>; // [point][component]: (a, 1/σ, μ, usable)
var<workgroup> red: array<f32, MAXP * WG>; // [point][thread]: the tree sums
// the plan, written by thread 0
var<workgroup> phase: u32;     // what `pts` holds (and DONE)
var<workgroup> npts: u32;      // how many points
var<workgroup> cursor: u32;    // VERTICES: the first position
var<workgroup> write_slot: u32; // an accepted candidate goes here: centroid + write_t · dir
var<workgroup> write_t: f32;
var<workgroup> writing: u32;   // 1: write it; 2: shrink every vertex but the best
var<workgroup> reflected_cost: f32;
var<workgroup> iterations: u32;
var<workgroup> wide: atomic<u32>; // coordinates in which the simplex is wider than COLLAPSED
var<workgroup> evaluations: u32;
var<workgroup> next_run: u32;   // the run this workgroup takes next (NONE: it stops)
var<workgroup> split_from: u32; // the best run of the k being split
var<workgroup> split_heavy: u32;
var<workgroup> split_lse: f32;

fn finite(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// Costs of pts[0 .. count) (count ≤ MAXP) into pcost: decode θ, one pass over the data per
// point, a tree sum per point.
fn evaluate(count: u32, k: u32, lid: u32) {
    if lid < count * MAXK {
        let p = lid / MAXK;
        let j = lid % MAXK;
        if j < k {
            let th = p * STRIDE;
            // ln w_j = z_j − ln Σ_i exp(z_i), z_k = 0 (softmax of the logits)
            var zmax = 0.0;
            for (var i = 0u; i + 1u < MAXK; i++) {
                if i + 1u < k { zmax = max(zmax, pts[th + i]); }
            }
            var s = exp(-zmax);
            for (var i = 0u; i + 1u < MAXK; i++) {
                if i + 1u < k { s += exp(pts[th + i] - zmax); }
            }
            var z = 0.0;
            if j + 1u < k { z = pts[th + j]; }
            let lnw = z - zmax - log(s);
            let lsd = pts[th + 2u * k - 1u + j];
            let usable = lsd >= P.min_log_sd && lsd <= LOG_SD_FINITE && lnw > LN_1E_MINUS_300;
            terms[p * MAXK + j] = vec4<f32>(lnw - lsd - LN_SQRT_2PI, exp(-lsd), pts[th + k - 1u + j],
                                            select(0.0, 1.0, usable));
        } else {
            // unused components: finite terms the value loop computes and never adds
            terms[p * MAXK + j] = vec4<f32>(0.0, 0.0, 0.0, 1.0);
        }
    }
    workgroupBarrier();
    for (var p = 0u; p < count; p++) {
        // the point's terms in registers (the loops over MAXK unroll), then each value's
        // terms computed once and kept for the sum
        var tm: array<vec4<f32>, MAXK>;
        for (var j = 0u; j < MAXK; j++) { tm[j] = terms[p * MAXK + j]; }
        var acc = 0.0;
        for (var i = lid; i < P.n; i += WG) {
            let x = xs[i];
            var t: array<f32, MAXK>;
            var m = -3.0e38;
            for (var j = 0u; j < MAXK; j++) {
                let z = (x - tm[j].z) * tm[j].y;
                t[j] = tm[j].x - 0.5 * z * z;
                if j < k { m = max(m, t[j]); }
            }
            var s = 0.0;
            for (var j = 0u; j < MAXK; j++) {
                if j < k { s += exp(t[j] - m); }
            }
            acc += counts[i] * (m + log(s));
        }
        red[p * WG + lid] = acc;
    }
    workgroupBarrier();
    for (var half = WG / 2u; half > 0u; half >>= 1u) {
        for (var at = lid; at < count * half; at += WG) {
            let p = at / half;
            let l = at % half;
            red[p * WG + l] += red[p * WG + l + half];
        }
        workgroupBarrier();
    }
    if lid < count {
        var usable = true;
        for (var j = 0u; j < MAXK; j++) { usable = usable && (j >= k || terms[lid * MAXK + j].w > 0.5); }
        let c = -red[lid * WG] / P.total;
        pcost[lid] = select(UNUSABLE, c, usable && finite(c) && c < UNUSABLE);
    }
    workgroupBarrier();
}

// Thread 0, at the start of an iteration: the trace, the stop (the costs' standard
// deviation in sorted order, or the limit), else the reflection next.
fn begin_iteration(r: u32, nv: u32, max_iterations: u32) {
    var mean = 0.0;
    for (var j = 0u; j < nv; j++) { mean += cost[ord[j]]; }
    mean /= f32(nv);
    var ss = 0.0;
    for (var j = 0u; j < nv; j++) {
        let d = cost[ord[j]] - mean;
        ss += d * d;
    }
    let sd = sqrt(ss / f32(nv));
    if iterations < P.trace_stride { trace[r * P.trace_stride + iterations] = cost[ord[0]]; }
    if iterations >= max_iterations || sd < P.tolerance {
        phase = DONE;
        npts = 0u;
    } else {
        phase = REFLECTED;
        npts = 1u;
        atomicStore(&wide, 0u);
    }
}

// Thread 0: a stable insertion sort of `ord` by cost, from position `first` on (the
// positions before it are in order).
fn sort_from(first: u32, nv: u32) {
    for (var i = max(first, 1u); i < nv; i++) {
        let s = ord[i];
        let c = cost[s];
        var j = i;
        while j > 0u && c < cost[ord[j - 1u]] {
            ord[j] = ord[j - 1u];
            j--;
        }
        ord[j] = s;
    }
}

// Thread 0: the worst vertex becomes centroid + t · dir, of cost c; the next iteration.
fn accept(t: f32, c: f32, r: u32, nv: u32, max_iterations: u32) {
    let slot = ord[nv - 1u];
    write_slot = slot;
    write_t = t;
    writing = 1u;
    cost[slot] = c;
    iterations++;
    sort_from(nv - 1u, nv);
    begin_iteration(r, nv, max_iterations);
}

// Thread 0: takes the costs of the points just evaluated and plans the next pass.
fn plan(r: u32, nv: u32, max_iterations: u32) {
    writing = 0u;
    let was = phase;
    if was == VERTICES {
        for (var p = 0u; p < npts; p++) { cost[ord[cursor + p]] = pcost[p]; }
        evaluations += npts;
        cursor += npts;
        if cursor < nv {
            npts = min(MAXP, nv - cursor);
        } else {
            sort_from(1u, nv);
            begin_iteration(r, nv, max_iterations);
        }
        return;
    }
    evaluations++;
    let c = pcost[0];
    let best = cost[ord[0]];
    if was == REFLECTED {
        if atomicLoad(&wide) == 0u {
            // collapsed: the reflection is not used, the search ends where it is
            evaluations--;
            phase = DONE;
            npts = 0u;
            return;
        }
        reflected_cost = c;
        if c < best {
            phase = EXPANDED;
        } else if c < cost[ord[nv - 2u]] {
            accept(1.0, c, r, nv, max_iterations);
        } else {
            phase = CONTRACTED;
        }
    } else if was == EXPANDED {
        if c < reflected_cost {
            accept(2.0, c, r, nv, max_iterations);
        } else {
            accept(1.0, reflected_cost, r, nv, max_iterations);
        }
    } else if was == CONTRACTED {
        if c < cost[ord[nv - 1u]] {
            accept(-0.5, c, r, nv, max_iterations);
        } else {
            // shrink: every vertex but the best half way towards it, then their costs
            writing = 2u;
            iterations++;
            phase = VERTICES;
            cursor = 1u;
            npts = min(MAXP, nv - 1u);
        }
    }
}

// One minimization, from the simplex in `vx` (vertices 0 ..= dims), to its end; writes its
// outcome and trace.
fn minimize(r: u32, lid: u32) {
    let k = runs[r].k;
    let dims = runs[r].dims;
    let nv = dims + 1u;
    let max_iterations = runs[r].max_iterations;
    if lid < STRIDE { outcomes[r].start[lid] = vx[lid]; }
    if lid < nv { ord[lid] = lid; }
    if lid == 0u {
        phase = VERTICES;
        cursor = 0u;
        npts = min(MAXP, nv);
        writing = 0u;
        iterations = 0u;
        evaluations = 0u;
    }
    workgroupBarrier();
    var passes = 0u;
    loop {
        // the plan's writes into the simplex
        let w = writing;
        if w == 1u && lid < dims {
            vx[write_slot * STRIDE + lid] = cen[lid] + write_t * dir[lid];
        } else if w == 2u {
            for (var at = STRIDE + lid; at < nv * STRIDE; at += WG) {
                let slot = ord[at / STRIDE];
                let b = vx[ord[0] * STRIDE + at % STRIDE];
                vx[slot * STRIDE + at % STRIDE] = b + 0.5 * (vx[slot * STRIDE + at % STRIDE] - b);
            }
        }
        let next = workgroupUniformLoad(&phase);
        if next == DONE { break; }
        // the points of the plan
        if next == VERTICES {
            for (var at = lid; at < npts * STRIDE; at += WG) {
                pts[at] = vx[ord[cursor + at / STRIDE] * STRIDE + at % STRIDE];
            }
        } else if lid < dims {
            if next == REFLECTED {
                // the worst vertex reflected through the others' centroid (summed in order)
                var sum = 0.0;
                let b = vx[ord[0] * STRIDE + lid];
                var spread = 0.0;
                for (var j = 0u; j + 1u < nv; j++) {
                    let v = vx[ord[j] * STRIDE + lid];
                    sum += v;
                    spread = max(spread, abs(v - b));
                }
                spread = max(spread, abs(vx[ord[nv - 1u] * STRIDE + lid] - b));
                if spread > COLLAPSED * (abs(b) + 1.0) { atomicAdd(&wide, 1u); }
                let c = sum / f32(nv - 1u);
                let d = c - vx[ord[nv - 1u] * STRIDE + lid];
                cen[lid] = c;
                dir[lid] = d;
                pts[lid] = c + d;
            } else if next == EXPANDED {
                pts[lid] = cen[lid] + 2.0 * dir[lid];
            } else {
                pts[lid] = cen[lid] - 0.5 * dir[lid];
            }
        }
        evaluate(workgroupUniformLoad(&npts), k, lid);
        passes++;
        if lid == 0u { plan(r, nv, max_iterations); }
        workgroupBarrier();
    }
    if lid < STRIDE { outcomes[r].theta[lid] = vx[ord[0] * STRIDE + lid]; }
    if lid == 0u {
        outcomes[r].cost = cost[ord[0]];
        outcomes[r].iterations = iterations;
        outcomes[r].evaluations = evaluations;
        // 1 only where the loop ended by its own rule: llvmpipe (lavapipe) stops a shader's
        // loops after 65,535 passes of them in all, and the host must not take that for an end
        outcomes[r].finished = select(0u, 1u, phase == DONE);
        outcomes[r].passes = passes;
    }
}

// The simplex of run `slot` (k + 1 components, kinfo entry ki + 1) into `vx`: the best run
// of k (the earlier on a tie: fixed starts in order, then the split one) with its heaviest
// component split in two halves — the same density — and the host's steps (0.5 in a logit
// or a log sd, mean_step in a mean). The host's split_start and initial_simplex, in f32.
fn build_split(ki: u32, slot: u32, lid: u32) {
    if lid == 0u {
        let info = kinfo[ki];
        var best = info.fixed_begin;
        var bc = outcomes[best].cost;
        for (var i = 1u; i < info.fixed_count; i++) {
            let c = outcomes[info.fixed_begin + i].cost;
            if c < bc { bc = c; best = info.fixed_begin + i; }
        }
        if info.split_slot != NONE && outcomes[info.split_slot].cost < bc { best = info.split_slot; }
        split_from = best;
    }
    let src = workgroupUniformLoad(&split_from);
    let k = runs[src].k;
    if lid < STRIDE { pts[lid] = outcomes[src].theta[lid]; }
    workgroupBarrier();
    if lid == 0u {
        // ln Σ exp(z) over the logits (z of the last component 0); the heaviest component
        // is the largest logit, the last of equals (the host's max_by)
        var zmax = 0.0;
        for (var i = 0u; i + 1u < k; i++) { zmax = max(zmax, pts[i]); }
        var s = exp(-zmax);
        for (var i = 0u; i + 1u < k; i++) { s += exp(pts[i] - zmax); }
        split_lse = zmax + log(s);
        var heavy = 0u;
        var hz = -3.0e38;
        for (var j = 0u; j < k; j++) {
            var z = 0.0;
            if j + 1u < k { z = pts[j]; }
            if z >= hz { hz = z; heavy = j; }
        }
        split_heavy = heavy;
    }
    workgroupBarrier();
    let k2 = k + 1u;
    let dims2 = 3u * k2 - 1u;
    let heavy = split_heavy;
    if lid < dims2 {
        var v = 0.0;
        if lid < k {
            // logit i of k + 1: ln w'_i − ln w'_k, the new last component w_heavy / 2
            var z = 0.0;
            if lid + 1u < k { z = pts[lid]; }
            var hz = 0.0;
            if heavy + 1u < k { hz = pts[heavy]; }
            let lnw = z - split_lse - select(0.0, LN2, lid == heavy);
            v = lnw - (hz - split_lse - LN2);
        } else if lid < 2u * k2 - 1u {
            let j = lid - k;
            v = pts[k - 1u + select(heavy, j, j < k)];
        } else {
            let j = lid - (2u * k2 - 1u);
            v = pts[2u * k - 1u + select(heavy, j, j < k)];
        }
        vx[lid] = v;
    }
    workgroupBarrier();
    for (var at = STRIDE + lid; at < (dims2 + 1u) * STRIDE; at += WG) {
        let d = at % STRIDE;
        var x = vx[d];
        if d + 1u == at / STRIDE {
            x += select(0.5, P.mean_step, d >= k2 - 1u && d < 2u * k2 - 1u);
        }
        vx[at] = x;
    }
    workgroupBarrier();
}

@compute @workgroup_size(WG)
fn search(@builtin(local_invocation_id) lid3: vec3<u32>,
          @builtin(workgroup_id) wid: vec3<u32>) {
    let lid = lid3.x;
    var r = wid.x;
    let nv = runs[r].dims + 1u;
    for (var at = lid; at < nv * STRIDE; at += WG) { vx[at] = simplexes[r * MAXV * STRIDE + at]; }
    workgroupBarrier();
    // The chain of k without a wait: the workgroup that ends the last run of k goes on to
    // k + 1's split start, so no workgroup ever waits for another.
    loop {
        minimize(r, lid);
        // release this run's outcome to every workgroup before it is counted
        storageBarrier();
        let ki = runs[r].k - runs[0].k;
        if lid == 0u {
            let ended = atomicAdd(&done[ki], 1u) + 1u;
            next_run = NONE;
            if ended == kinfo[ki].tasks && ki + 1u < P.ks { next_run = kinfo[ki + 1u].split_slot; }
        }
        let next = workgroupUniformLoad(&next_run);
        if next == NONE { break; }
        // acquire the other runs' outcomes of k
        storageBarrier();
        build_split(ki, next, lid);
        r = next;
    }
}
