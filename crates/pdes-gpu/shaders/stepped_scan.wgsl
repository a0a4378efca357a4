// stepped_scan.wgsl — the only pass of a queueing model's step that touches every
// facility (shared by the torus and the network, after stepped.wgsl). Workgroup w
// owns segment w (SEG facilities). It reads each departure time once: those within the
// step's bound are listed in the segment's part of `dep_list` (compacted in shared
// memory; no global atomics), the others feed the segment's minimum (their departure
// cannot change this step unless they receive a token, and receivers are reduced again
// by the arrive pass).

var<workgroup> sh_list: array<u32, SEG_MAX>;
var<workgroup> sh_count: atomic<u32>;

fn reduce_min_to(wg: u32, lid: u32, m: vec2<u32>) {
    let r = wg_min(lid, m);
    if lid == 0u { scan_min[wg] = r; }
}

// Departure time of facility f, or NEVER past the last facility.
fn load_dep(f: u32) -> vec2<u32> {
    return select(never(), dep[min(f, P.k - 1u)], f < P.k);
}

// Lists f if it departs within the bound; otherwise folds its departure into the minimum.
fn classify(f: u32, t: vec2<u32>, bound: vec2<u32>, m: vec2<u32>) -> vec2<u32> {
    if le64(t, bound) {
        sh_list[atomicAdd(&sh_count, 1u)] = f;
        return m;
    }
    return min64(m, t);
}

// Lists the departures of segment wg within `bound` in sh_list (their number is sh_count,
// to be read after the barrier this function ends with) and returns this thread's least
// departure time among the segment's other facilities. Every thread of the workgroup calls
// it, after sh_count was zeroed and a barrier.
fn list_departures(wg: u32, lid: u32, bound: vec2<u32>) -> vec2<u32> {
    var m = never();
    // Eight loads at a time, into named registers, so they are in flight together (a local
    // array would live in zero-initialised local memory). ITEMS is a multiple of 8.
    for (var g = 0u; g < ITEMS; g += 8u) {
        let t0 = load_dep(item_facility(wg, lid, g));
        let t1 = load_dep(item_facility(wg, lid, g + 1u));
        let t2 = load_dep(item_facility(wg, lid, g + 2u));
        let t3 = load_dep(item_facility(wg, lid, g + 3u));
        let t4 = load_dep(item_facility(wg, lid, g + 4u));
        let t5 = load_dep(item_facility(wg, lid, g + 5u));
        let t6 = load_dep(item_facility(wg, lid, g + 6u));
        let t7 = load_dep(item_facility(wg, lid, g + 7u));
        m = classify(item_facility(wg, lid, g), t0, bound, m);
        m = classify(item_facility(wg, lid, g + 1u), t1, bound, m);
        m = classify(item_facility(wg, lid, g + 2u), t2, bound, m);
        m = classify(item_facility(wg, lid, g + 3u), t3, bound, m);
        m = classify(item_facility(wg, lid, g + 4u), t4, bound, m);
        m = classify(item_facility(wg, lid, g + 5u), t5, bound, m);
        m = classify(item_facility(wg, lid, g + 6u), t6, bound, m);
        m = classify(item_facility(wg, lid, g + 7u), t7, bound, m);
    }
    workgroupBarrier();
    return m;
}

// The scan pass of a model whose departures run in a pass of their own (the network;
// the torus departs in the same workgroup, torus_depart.wgsl): the list goes to dep_list.
@compute @workgroup_size(WG)
fn scan(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    let rep = segment_replica(wg);
    if uniform_phase(lid, rep) != PHASE_PLANNED { return; }
    if wg == 0u { step_start(lid); } // the model's hook (common.wgsl), every thread of workgroup 0
    if lid == 0u { atomicStore(&sh_count, 0u); }
    workgroupBarrier();
    let m = list_departures(wg, lid, ctl[rep].bound);
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
