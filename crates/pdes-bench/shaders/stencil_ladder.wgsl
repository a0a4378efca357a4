// stencil_ladder.wgsl — a five-point stencil step built up from a plain copy, one feature at
// a time, so that the gap between the diffusion step (crates/pdes-models/src/diffusion/shaders/
// diffusion.wgsl) and the copy floor can be attributed by construction rather than by
// removal (`pdes-lab bench --suite floor`, `floor::stencil_ladder`). Every kernel maps the
// SIDE × SIDE f32 grid `gin` to `gout` (or their vec4 views); the stencil kernels compute
// the same update, so their outputs agree (the host checks them against a CPU step).

override SIDE: u32;
const STRIP: u32 = 10u; // rows per thread in the strip kernels, as in diffusion.wgsl
const BOUNDARY: f32 = 100.0;
const AX: f32 = 0.1;
const AY: f32 = 0.1;

@group(0) @binding(0) var<storage, read> gin: array<f32>;
@group(0) @binding(1) var<storage, read_write> gout: array<f32>;
@group(0) @binding(2) var<storage, read_write> gcount: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read> gin4: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> gout4: array<vec4<f32>>;

var<workgroup> wcount: atomic<u32>;

fn ld(r: i32, c: i32) -> f32 {
    let inside = r >= 0 && c >= 0 && r < i32(SIDE) && c < i32(SIDE);
    let v = gin[select(0u, u32(r) * SIDE + u32(c), inside)];
    return select(BOUNDARY, v, inside);
}

fn upd(c: f32, w: f32, e: f32, n: f32, s: f32) -> f32 {
    return c + (AX * ((w + e) - 2.0 * c) + AY * ((n + s) - 2.0 * c));
}

fn flat(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * 256u + lid;
}

// 1. one f32 read and written per thread
@compute @workgroup_size(256)
fn copy1(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = flat(wid, nwg, lid);
    if i < SIDE * SIDE { gout[i] = gin[i]; }
}

// 2. one cell per thread, its five loads bounds-checked as in diffusion.wgsl's at()
@compute @workgroup_size(256)
fn point5(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let i = flat(wid, nwg, lid);
    if i >= SIDE * SIDE { return; }
    let r = i32(i / SIDE);
    let c = i32(i % SIDE);
    gout[i] = upd(ld(r, c), ld(r, c - 1), ld(r, c + 1), ld(r - 1, c), ld(r + 1, c));
}

// 3. diffusion.wgsl's layout: a 256 × STRIP tile per workgroup, a column strip per thread,
// the rows above and below sliding through registers (three loads per cell)
fn strip_cells(wid: vec3<u32>, lid: u32) -> u32 {
    let c = i32(wid.x * 256u + lid);
    let r0 = i32(wid.y * STRIP);
    var changed = 0u;
    var up = ld(r0 - 1, c);
    var mid = ld(r0, c);
    for (var k = 0u; k < STRIP; k++) {
        let r = r0 + i32(k);
        let down = ld(r + 1, c);
        if r < i32(SIDE) && c < i32(SIDE) {
            let v = upd(mid, ld(r, c - 1), ld(r, c + 1), up, down);
            gout[u32(r) * SIDE + u32(c)] = v;
            changed += select(0u, 1u, v != mid);
        }
        up = mid;
        mid = down;
    }
    return changed;
}

@compute @workgroup_size(256)
fn strip(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    _ = strip_cells(wid, lid);
}

// 4. the strip plus the step's count of changed cells: a workgroup sum, one global atomic
@compute @workgroup_size(256)
fn strip_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if lid == 0u { atomicStore(&wcount, 0u); }
    workgroupBarrier();
    atomicAdd(&wcount, strip_cells(wid, lid));
    workgroupBarrier();
    if lid == 0u { atomicAdd(&gcount[0], atomicLoad(&wcount)); }
}

// 5. four neighbouring cells of a row per thread: three vec4 loads (the row, above, below)
// and the two scalars beside them
@compute @workgroup_size(256)
fn quad(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = flat(wid, nwg, lid);
    let q_row = SIDE / 4u;
    if i >= SIDE * q_row { return; }
    let r = i / q_row;
    let q = i % q_row;
    let b = vec4<f32>(BOUNDARY);
    let mid = gin4[i];
    let up = select(b, gin4[select(0u, i - q_row, r > 0u)], r > 0u);
    let down = select(b, gin4[select(0u, i + q_row, r + 1u < SIDE)], r + 1u < SIDE);
    let left = ld(i32(r), i32(4u * q) - 1);
    let right = ld(i32(r), i32(4u * q + 4u));
    let w = vec4<f32>(left, mid.xyz);
    let e = vec4<f32>(mid.yzw, right);
    gout4[i] = mid + (AX * ((w + e) - 2.0 * mid) + AY * ((up + down) - 2.0 * mid));
}
