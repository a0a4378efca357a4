// torus_scan.wgsl — the only pass that touches every facility each step. Workgroup w
// owns segment w (SEG facilities). It reads each departure time once: those within the
// step's bound are listed in the segment's part of `dep_list` (compacted in shared
// memory; no global atomics), the others feed the segment's minimum (their departure
// cannot change this step unless they receive a token, and receivers are reduced again
// by the arrive pass).

var<workgroup> sh_min: array<vec2<u32>, WG>;
var<workgroup> sh_list: array<u32, WG * ITEMS>;
var<workgroup> sh_count: atomic<u32>;

fn reduce_min_to(wg: u32, lid: u32, m: vec2<u32>) {
    sh_min[lid] = m;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if lid < s { sh_min[lid] = min64(sh_min[lid], sh_min[lid + s]); }
        workgroupBarrier();
    }
    if lid == 0u { scan_min[wg] = sh_min[0]; }
}

@compute @workgroup_size(WG)
fn scan(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    if uniform_phase(lid) != PHASE_PLANNED { return; }
    if lid == 0u { atomicStore(&sh_count, 0u); }
    workgroupBarrier();
    let bound = ctl.bound;
    // All loads first (a constant-trip loop unrolls into registers) so they are in flight
    // together.
    var ts: array<vec2<u32>, ITEMS>;
    for (var i = 0u; i < ITEMS; i++) {
        let f = item_facility(wg, lid, i);
        ts[i] = select(never(), dep[min(f, P.k - 1u)], f < P.k);
    }
    var m = never();
    for (var i = 0u; i < ITEMS; i++) {
        if le64(ts[i], bound) {
            sh_list[atomicAdd(&sh_count, 1u)] = item_facility(wg, lid, i);
        } else {
            m = min64(m, ts[i]);
        }
    }
    workgroupBarrier();
    let n = atomicLoad(&sh_count);
    for (var j = lid; j < n; j += WG) {
        dep_list[wg * SEG + j] = sh_list[j];
    }
    if lid == 0u { seg_count[wg].x = n; }
    reduce_min_to(wg, lid, m);
}

@compute @workgroup_size(WG)
fn initial_min(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    var m = never();
    for (var i = 0u; i < ITEMS; i++) {
        let f = item_facility(wg, lid, i);
        if f < P.k { m = min64(m, dep[f]); }
    }
    reduce_min_to(wg, lid, m);
}
