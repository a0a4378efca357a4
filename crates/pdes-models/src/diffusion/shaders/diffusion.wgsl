// diffusion.wgsl — timestepped and hybrid steps of the diffusion grid (paper 001 Figs. 3
// and 8), after u64.wgsl and one of reduce_portable.wgsl / reduce_subgroup.wgsl. Twin of
// crates/pdes-models/src/diffusion/mod.rs and crates/pdes-models/src/diffusion/cpu/synchronous.rs: the same f32 operations in
// the same order.
//
// The whole loop on the device, a workgroup per 256 × STRIP tile (one column strip per
// thread). A step reads its start time from t slot (n mod 2) and, for hybrid, its length
// from dt slot (n mod 3), which hybrid's `plan` pass fills just before the step: the
// largest |rate| of the grid the step starts from. A cell's time to move one quantum falls
// as its rate grows, so the minimum over cells is quantum_ticks(max |rate|): one division
// per step. The slot holds the complement of the rate's bits (non-negative floats order like
// their bits), so the reduction is an integer minimum and the empty slot, all ones, means
// rate 0. Workgroup 0 of the step writes the next start time into t slot (n+1 mod 2) and
// resets dt slot (n+2 mod 3), which nobody reads or writes during step n or plan n+1.
// On grids of whole vec4 rows the quad kernels below run instead (`step4`; for hybrid the
// fused `step4h`, which also reduces the new grid's largest |rate| into dt slot (n+1 mod 3),
// with `plan4` once, before step 0). The scalar hybrid keeps its plan pass: its old fused
// form, with the new values' halo in workgroup memory, was slower than a second read of the
// L2-resident grid, and its workgroup array weighed on the timestepped pipeline too
// (bench/NOTES.md). The slots of step n arrive in a dynamic-offset uniform, one entry per
// step of a batch, which also names the step's log entry.

// The grid's size, fixed when the pipelines are built (DParams.rows/cols hold the same
// values): as constants they cost the stencil's index and bounds arithmetic nothing —
// measured on the H100 as uniforms: 3 µs of a 2048² step, bench/experiments/diffusion-ladder.
override ROWS: u32;
override COLS: u32;

struct DParams {
    rows: u32, cols: u32, cells: u32, zero: u32, // zero: always 0 (see unfused)
    ax: f32, ay: f32, beta: f32, boundary: f32,
    quantum_scaled: f32, cap: u32, fixed_dt: u32, groups_x: u32,
    end_t: vec2<u32>, limit_t: vec2<u32>, // steps start only before limit_t (≤ end_t)
    zero_below: f32, pad2: u32, pad3: u32, pad4: u32, // Stencil::zero_below
}

struct Phase {
    entry: u32, t_slot: u32, dt_read: u32, dt_write: u32,
    dt_reset: u32, pad0: u32, pad1: u32, pad2: u32,
}

struct DLog {
    t: vec2<u32>,
    dt: u32,
    cells: atomic<u32>,
}

// ctl words: [0..4) t slots (lo, hi) × 2, [4..7) dt slots
@group(0) @binding(0) var<uniform> D: DParams;
@group(0) @binding(1) var<storage, read_write> dctl: array<atomic<u32>, 8>;
@group(0) @binding(2) var<storage, read_write> dlog: array<DLog>;
@group(0) @binding(3) var<storage, read> q_in: array<f32>;
@group(0) @binding(4) var<storage, read_write> q_out: array<f32>;
@group(1) @binding(0) var<uniform> PH: Phase;

// Temperature of cell (r, c) of the old grid; the ring outside holds the boundary.
// Branch-free: the load always happens (cell 0 outside the grid), so the compiler can
// issue a thread's loads together instead of one per branch (memory-level parallelism is
// what a stencil's bandwidth depends on).
fn at(r: i32, c: i32) -> f32 {
    let inside = r >= 0 && c >= 0 && r < i32(ROWS) && c < i32(COLS);
    let v = q_in[select(0u, u32(r) * COLS + u32(c), inside)];
    return select(D.boundary, v, inside);
}

// A product that no compiler can contract with the add that follows it. SPIR-V lets a
// driver fuse a*b + c into one fma (rounded once); the CPU rounds the product and the sum
// separately, and NVIDIA's compiler does fuse (measured: cell counts off by a few in 30 M).
// WGSL has no `precise`, so the product's bits pass through an xor with a uniform the
// compiler cannot know is zero: an integer op between the multiply and the add.
fn unfused(p: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(p) ^ D.zero);
}

// Stencil::rate (2c is exact, so whether (w + e) - 2c is fused does not matter). With every
// cell 0 or at least D.zero_below in magnitude no operation here can be subnormal
// (Stencil::zero_below_for says why), so NVIDIA's flushing of subnormals never applies.
fn rate(c: f32, w: f32, e: f32, n: f32, s: f32) -> f32 {
    return unfused(D.ax * ((w + e) - 2.0 * c)) + unfused(D.ay * ((n + s) - 2.0 * c)) + D.beta;
}

// Stencil::advance: magnitudes below D.zero_below become 0 (the same rule as the CPU).
fn advance(v: f32, f: f32, h: f32) -> f32 {
    let x = v + unfused(f * h);
    return select(x, 0.0, abs(x) < D.zero_below);
}

// model::diffusion::quantum_ticks (of the largest |rate|): the largest n in [1, cap] with
// f32(n) * a <= quantum_scaled. The division only estimates n (Vulkan allows 2.5 ulp of
// error in a divide); the products, rounded exactly as on the CPU, decide.
fn quantum_ticks(a: f32) -> u32 {
    if a == 0.0 { return D.cap; }
    let t = D.quantum_scaled / a;
    var n = D.cap;
    if t < f32(D.cap) { n = clamp(u32(t), 1u, D.cap); }
    for (var i = 0u; i < 16u; i++) {
        if n > 1u && unfused(f32(n) * a) > D.quantum_scaled { n -= 1u; }
        else if n < D.cap && unfused(f32(n + 1u) * a) <= D.quantum_scaled { n += 1u; }
        else { break; }
    }
    return n;
}

fn cell_of(wid: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * D.groups_x + wid.x) * WG + lid;
}

fn slot_t(s: u32) -> vec2<u32> {
    return vec2<u32>(atomicLoad(&dctl[2u * s]), atomicLoad(&dctl[2u * s + 1u]));
}

const STRIP: u32 = 10u;   // rows per thread in `step`: a workgroup updates a 256 × 10 tile
// The algorithm, fixed when the pipeline is built: where the step's length comes from.
override HYBRID: bool;
// The step's start time and length in ticks (t.lo, t.hi, dt), read and worked out by thread
// 0 and shared (dctl is atomic, so every thread's loads of it would go to L2).
var<workgroup> sh_step: vec3<u32>;

fn step_start(lid: u32) -> vec3<u32> {
    if lid == 0u {
        let t = slot_t(PH.t_slot);
        let left = sub64(D.end_t, t);
        let fastest = bitcast<f32>(~atomicLoad(&dctl[4u + PH.dt_read]));
        let want = select(D.fixed_dt, quantum_ticks(fastest), HYBRID);
        var dt = select(want, left.x, left.y == 0u && left.x < want); // min(want, end - t)
        if !lt64(t, D.limit_t) { dt = 0u; } // past the budget: a no-op step (the grid is copied)
        sh_step = vec3<u32>(t, dt);
    }
    return workgroupUniformLoad(&sh_step);
}

// Thread 0's fold of its workgroup's reduced `next` (see step_end) into dt slot `slot`;
// most workgroups are not the fastest, so the slot is read before the (serialising) atomic.
fn fold_fastest(slot: u32, next: u32) {
    if next != NONE && next < atomicLoad(&dctl[4u + slot]) { atomicMin(&dctl[4u + slot], next); }
}

// The step's bookkeeping once a workgroup's cells are written: its count of changed cells
// into the step's log; workgroup 0 also the next start time, the log entry's time and
// length, and the reset of the dt slot two steps ahead.
// `next` is the complement of the largest |rate| of the new grid over the thread's cells
// (the fused hybrid step) or NONE (the others); it goes into dt slot PH.dt_write.
fn step_end(wid: vec3<u32>, lid: u32, sw: vec3<u32>, next: u32, changed: u32) {
    let red = wg_min_sum32(lid, next, changed);
    if lid == 0u {
        fold_fastest(PH.dt_write, red.x);
        if red.y > 0u { atomicAdd(&dlog[PH.entry].cells, red.y); }
        if wid.x == 0u && wid.y == 0u {
            let t1 = add64(sw.xy, vec2<u32>(sw.z, 0u));
            let o = 2u * (1u - PH.t_slot);
            atomicStore(&dctl[o], t1.x);
            atomicStore(&dctl[o + 1u], t1.y);
            atomicStore(&dctl[4u + PH.dt_reset], NONE);
            dlog[PH.entry].t = sw.xy;
            dlog[PH.entry].dt = sw.z;
        }
    }
}

@compute @workgroup_size(256)
fn step(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let c = i32(wid.x * WG + lid);
    let r0 = i32(wid.y * STRIP);
    let sw = step_start(lid);
    let h = f32(sw.z) * (1.0 / 1048576.0); // exact: dt < 2^24
    // The thread's column: the rows above and below slide through registers, three loads
    // per cell instead of five.
    let col_in = c < i32(COLS);
    var changed = 0u;
    var up = at(r0 - 1, c);
    var mid = at(r0, c);
    for (var k = 0u; k < STRIP; k++) {
        let r = r0 + i32(k);
        let down = at(r + 1, c);
        if col_in && r < i32(ROWS) {
            let v = advance(mid, rate(mid, at(r, c - 1), at(r, c + 1), up, down), h);
            q_out[u32(r) * COLS + u32(c)] = v;
            changed += select(0u, 1u, v != mid);
        }
        up = mid;
        mid = down;
    }
    step_end(wid, lid, sw, NONE, changed);
}

// Hybrid, before step n: the largest |rate| of the grid step n starts from (q_in), into the
// dt slot the step reads (PH.dt_read). The step's tiles and column strips; max is exact, so
// the result is the CPU's maximum over all cells whatever the order.
@compute @workgroup_size(256)
fn plan(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let c = i32(wid.x * WG + lid);
    let r0 = i32(wid.y * STRIP);
    var fastest = 0.0;
    var up = at(r0 - 1, c);
    var mid = at(r0, c);
    for (var k = 0u; k < STRIP; k++) {
        let r = r0 + i32(k);
        let down = at(r + 1, c);
        if c < i32(COLS) && r < i32(ROWS) {
            fastest = max(fastest, abs(rate(mid, at(r, c - 1), at(r, c + 1), up, down)));
        }
        up = mid;
        mid = down;
    }
    let red = wg_min_sum32(lid, ~bitcast<u32>(fastest), 0u);
    if lid == 0u { fold_fastest(PH.dt_read, red.x); }
}

// Heatmap words of the current grid (q_in): the temperature's f32 bits and 0.
@group(2) @binding(0) var<storage, read_write> display: array<vec2<u32>>;

@compute @workgroup_size(256)
fn show(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = cell_of(wid, lid);
    if i < D.cells { display[i] = vec2<u32>(bitcast<u32>(q_in[i]), 0u); }
}

// The app's plot inputs without reading the grid back: the sum, minimum and maximum of the
// current grid (q_in), one partial per workgroup; a grid-stride loop keeps the workgroups
// (and so the readback) to at most a few hundred. f32 is enough for a plot: each thread adds
// at most cells / 65,536 values, then a tree of 256; the host adds the partials in f64.
@group(2) @binding(1) var<storage, read_write> partials: array<vec4<f32>>;
var<workgroup> st_sum: array<f32, 256>;
var<workgroup> st_min: array<f32, 256>;
var<workgroup> st_max: array<f32, 256>;

@compute @workgroup_size(256)
fn stats(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
         @builtin(num_workgroups) nwg: vec3<u32>) {
    var s = 0.0;
    var lo = 3.4e38;
    var hi = -3.4e38;
    for (var i = wid.x * WG + lid; i < D.cells; i += nwg.x * WG) {
        let v = q_in[i];
        s += v;
        lo = min(lo, v);
        hi = max(hi, v);
    }
    st_sum[lid] = s;
    st_min[lid] = lo;
    st_max[lid] = hi;
    workgroupBarrier();
    for (var k = WG / 2u; k > 0u; k >>= 1u) {
        if lid < k {
            st_sum[lid] += st_sum[lid + k];
            st_min[lid] = min(st_min[lid], st_min[lid + k]);
            st_max[lid] = max(st_max[lid], st_max[lid + k]);
        }
        workgroupBarrier();
    }
    if lid == 0u { partials[wid.x] = vec4<f32>(st_sum[0], st_min[0], st_max[0], 0.0); }
}

// ---------------------------------------------------------------------------------------
// The same step and plan on grids whose rows are whole vec4s (COLS a multiple of 4, chosen
// by the host): a thread owns four neighbouring cells of a row and a strip of QSTRIP rows,
// and moves 16 bytes per load — three loads per four cells (its row's quad and the quads
// either side; the rows above and below slide through registers) instead of twelve. The
// arithmetic is the scalar kernel's, component by component (rate4/advance4 are rate/advance
// on vectors), so the grid, the counts and the step lengths are the same bits. Measured in
// `bench --suite floor`'s stencil ladder: a scalar strip 14.5 µs, the vec4 stencil 10.7.
// A workgroup is 64 quads (256 columns) by 4 strips (4 × QSTRIP rows).
@group(0) @binding(3) var<storage, read> q_in4: array<vec4<f32>>; // q_in, by quads
@group(0) @binding(4) var<storage, read_write> q_out4: array<vec4<f32>>; // q_out, by quads

override QUADS: u32; // COLS / 4 (given by the host)
const QSTRIP: u32 = 4u;

fn unfused4(p: vec4<f32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(bitcast<vec4<u32>>(p) ^ vec4<u32>(D.zero));
}

fn rate4(c: vec4<f32>, w: vec4<f32>, e: vec4<f32>, n: vec4<f32>, s: vec4<f32>) -> vec4<f32> {
    return unfused4(D.ax * ((w + e) - 2.0 * c)) + unfused4(D.ay * ((n + s) - 2.0 * c)) + D.beta;
}

fn advance4(v: vec4<f32>, f: vec4<f32>, h: f32) -> vec4<f32> {
    let x = v + unfused4(f * h);
    return select(x, vec4<f32>(0.0), abs(x) < vec4<f32>(D.zero_below));
}

// Quad q of row r of the old grid; outside the grid, the boundary.
fn at4(r: i32, q: i32) -> vec4<f32> {
    let inside = r >= 0 && q >= 0 && r < i32(ROWS) && q < i32(QUADS);
    let v = q_in4[select(0u, u32(r) * QUADS + u32(q), inside)];
    return select(vec4<f32>(D.boundary), v, inside);
}

// The rate of each cell of quad q in row r, given the quads above and below and its own.
fn quad_rate(r: i32, q: i32, up: vec4<f32>, mid: vec4<f32>, down: vec4<f32>) -> vec4<f32> {
    let l = at4(r, q - 1);
    let rt = at4(r, q + 1);
    let w = vec4<f32>(l.w, mid.xyz);
    let e = vec4<f32>(mid.yzw, rt.x);
    return rate4(mid, w, e, up, down);
}

@compute @workgroup_size(256)
fn step4(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let q = i32(wid.x * 64u + lid % 64u);
    let r0 = i32((wid.y * 4u + lid / 64u) * QSTRIP);
    let sw = step_start(lid);
    let h = f32(sw.z) * (1.0 / 1048576.0); // exact: dt < 2^24
    let col_in = q < i32(QUADS);
    var changed = 0u;
    var up = at4(r0 - 1, q);
    var mid = at4(r0, q);
    for (var k = 0u; k < QSTRIP; k++) {
        let r = r0 + i32(k);
        let down = at4(r + 1, q);
        if col_in && r < i32(ROWS) {
            let v = advance4(mid, quad_rate(r, q, up, mid, down), h);
            q_out4[u32(r) * QUADS + u32(q)] = v;
            let moved = select(vec4<u32>(0u), vec4<u32>(1u), v != mid);
            changed += moved.x + moved.y + moved.z + moved.w;
        }
        up = mid;
        mid = down;
    }
    step_end(wid, lid, sw, NONE, changed);
}

@compute @workgroup_size(256)
fn plan4(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let q = i32(wid.x * 64u + lid % 64u);
    let r0 = i32((wid.y * 4u + lid / 64u) * QSTRIP);
    var fastest = vec4<f32>(0.0);
    var up = at4(r0 - 1, q);
    var mid = at4(r0, q);
    for (var k = 0u; k < QSTRIP; k++) {
        let r = r0 + i32(k);
        let down = at4(r + 1, q);
        if q < i32(QUADS) && r < i32(ROWS) {
            fastest = max(fastest, abs(quad_rate(r, q, up, mid, down)));
        }
        up = mid;
        mid = down;
    }
    let m = max(max(fastest.x, fastest.y), max(fastest.z, fastest.w));
    let red = wg_min_sum32(lid, ~bitcast<u32>(m), 0u);
    if lid == 0u { fold_fastest(PH.dt_read, red.x); }
}

// The fused hybrid step on grids of whole vec4 rows: step n also computes the largest |rate|
// of the grid it writes, for step n+1, so no plan pass runs between steps. A thread owns
// quad q of HSTRIP rows; the new grid's rates there need the new values of its quad in the
// rows above and below its strip and of the cells either side of its quad (columns 4q − 1
// and 4q + 4), which it computes itself, from the old quads to its left and right, with
// the same functions — so they are the bits their owners write. Registers only: old rows
// slide through three (left, own, right) triples, new rows through two.
const HSTRIP: u32 = 8u;

struct OldRow { l: vec4<f32>, m: vec4<f32>, r: vec4<f32> }
struct NewRow { m: vec4<f32>, l: f32, r: f32 }

fn old_row(r: i32, q: i32) -> OldRow {
    return OldRow(at4(r, q - 1), at4(r, q), at4(r, q + 1));
}

// Row r's new values of quad q and of the cells beside it, from old rows r - 1, r, r + 1;
// the boundary outside the grid (the ring does not move).
fn new_row(r: i32, q: i32, a: OldRow, b: OldRow, c: OldRow, h: f32) -> NewRow {
    let bv = D.boundary;
    if r < 0 || r >= i32(ROWS) { return NewRow(vec4<f32>(bv), bv, bv); }
    let w = vec4<f32>(b.l.w, b.m.xyz);
    let e = vec4<f32>(b.m.yzw, b.r.x);
    let m = advance4(b.m, rate4(b.m, w, e, a.m, c.m), h);
    let l = select(bv, advance(b.l.w, rate(b.l.w, b.l.z, b.m.x, a.l.w, c.l.w), h), q >= 1);
    let rt = select(bv, advance(b.r.x, rate(b.r.x, b.m.w, b.r.y, a.r.x, c.r.x), h), q + 1 < i32(QUADS));
    return NewRow(m, l, rt);
}

@compute @workgroup_size(256)
fn step4h(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let q = i32(wid.x * 64u + lid % 64u);
    let r0 = i32((wid.y * 4u + lid / 64u) * HSTRIP);
    let sw = step_start(lid);
    let h = f32(sw.z) * (1.0 / 1048576.0); // exact: dt < 2^24
    let col_in = q < i32(QUADS);
    var changed = 0u;
    var fastest = vec4<f32>(0.0);
    // old rows r0 - 2, r0 - 1; new row r0 - 1 needs old row r0 too
    var o0 = old_row(r0 - 2, q);
    var o1 = old_row(r0 - 1, q);
    var o2 = old_row(r0, q);
    var n0 = new_row(r0 - 1, q, o0, o1, o2, h);
    o0 = o1;
    o1 = o2;
    o2 = old_row(r0 + 1, q);
    var n1 = new_row(r0, q, o0, o1, o2, h);
    for (var k = 0u; k < HSTRIP; k++) {
        let r = r0 + i32(k); // n1 is new row r; after the shift o0 is old row r
        o0 = o1;
        o1 = o2;
        o2 = old_row(r + 2, q);
        let n2 = new_row(r + 1, q, o0, o1, o2, h);
        if col_in && r < i32(ROWS) {
            q_out4[u32(r) * QUADS + u32(q)] = n1.m;
            let moved = select(vec4<u32>(0u), vec4<u32>(1u), n1.m != o0.m);
            changed += moved.x + moved.y + moved.z + moved.w;
            let w = vec4<f32>(n1.l, n1.m.xyz);
            let e = vec4<f32>(n1.m.yzw, n1.r);
            fastest = max(fastest, abs(rate4(n1.m, w, e, n0.m, n2.m)));
        }
        n0 = n1;
        n1 = n2;
    }
    let m = max(max(fastest.x, fastest.y), max(fastest.z, fastest.w));
    step_end(wid, lid, sw, ~bitcast<u32>(m), changed);
}
