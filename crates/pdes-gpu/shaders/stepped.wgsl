// stepped.wgsl — what the GPU engines of the queueing models (torus, network) share:
// the segment geometry, the step state machine's phases, the step rules, the bound of a
// step and the reduction of the per-segment partials. Twin of StepRule::bound in
// crates/pdes-core/src/sim/mod.rs. A model's common.wgsl declares the bindings these functions use, under
// these names: P (k, n_wg, rule, d, end_t), ctl (an array of control blocks, one per
// replica: phase, bound, ...), dep, scan_min, part_min, seg_count, dep_list; and defines
// `fn step_start(lid: u32)`, what the step does first (every thread of workgroup 0, before
// its scan of segment 0; empty for the torus), and `fn segment_replica(wg: u32) -> u32`,
// the replica that owns segment wg (replicas are independent runs side by side in one set
// of buffers, each with its own control block and step; a network has one).

// Facilities per thread in the scan: a pipeline constant, 8 or 16, chosen per engine by the
// host (crates/pdes-gpu/src/stepped.rs, ScanItems); the network keeps the default.
override ITEMS: u32 = 8u;
const ITEMS_MAX: u32 = 16u;
override SEG: u32 = WG * ITEMS;      // facilities per segment: one scan workgroup's share
const SEG_MAX: u32 = WG * ITEMS_MAX; // the most: the size of the scan's shared list

// Phases of the step state machine (see the model's plan pass).
const PHASE_IDLE: u32 = 0u;
const PHASE_PLANNED: u32 = 1u;
const PHASE_HELD: u32 = 2u;
const PHASE_DONE: u32 = 3u;

const RULE_WINDOW: u32 = 0u;
const RULE_ORIGINAL: u32 = 1u;
const RULE_BOUNDARY: u32 = 2u;

// One step of the GPU step log (LogEntry in crates/pdes-gpu/src/stepped.rs).
struct LogEntry {
    t_min: vec2<u32>, bound: vec2<u32>,
    events: u32, errors: u32, pad0: u32, pad1: u32,
}

// The facility handled by item `i` of thread `lid` in workgroup `wg` (strided so that
// neighbouring threads touch neighbouring facilities).
fn item_facility(wg: u32, lid: u32, i: u32) -> u32 {
    return (wg * ITEMS + i) * WG + lid;
}

var<workgroup> sh_phase: u32;

// ctl[rep].phase, read once per workgroup so that every thread provably sees the same
// value (the WGSL uniformity rules require it before the barriers that follow).
fn uniform_phase(lid: u32, rep: u32) -> u32 {
    if lid == 0u { sh_phase = ctl[rep].phase; }
    return workgroupUniformLoad(&sh_phase);
}

// floor(a / b) for b > 0, by shift and subtract (one thread, once per step).
fn div64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    var q = vec2<u32>(0u, 0u);
    var r = vec2<u32>(0u, 0u);
    for (var i = 63i; i >= 0; i--) {
        // r = (r << 1) | bit i of a
        let bit = select((a.x >> u32(i)) & 1u, (a.y >> u32(i - 32)) & 1u, i >= 32);
        r = vec2<u32>((r.x << 1u) | bit, (r.y << 1u) | (r.x >> 31u));
        if !lt64(r, b) {
            r = sub64(r, b);
            if i >= 32 { q.y |= 1u << u32(i - 32); } else { q.x |= 1u << u32(i); }
        }
    }
    return q;
}

// The step from t_min: (bound, exec_at). Window: every event in [t_min, t_min + d);
// interval: every event up to the next multiple of d at or after t_min, which is also
// when boundary-stamped events happen. Never past the last tick before the end time.
fn step_bound(t_min: vec2<u32>) -> vec4<u32> {
    return step_bound_d(t_min, P.d);
}

// step_bound with the width d given (the torus's replicas each have their own).
fn step_bound_d(t_min: vec2<u32>, d: vec2<u32>) -> vec4<u32> {
    let last = sub64(P.end_t, vec2<u32>(1u, 0u));
    var bound: vec2<u32>;
    var exec_at = vec2<u32>(0u, 0u);
    if P.rule == RULE_WINDOW {
        bound = sub64(add64(t_min, d), vec2<u32>(1u, 0u));
    } else {
        let q = div64(sub64(add64(t_min, d), vec2<u32>(1u, 0u)), d);
        exec_at = mul64(q, d);
        bound = exec_at;
    }
    return vec4<u32>(min64(bound, last), exec_at);
}

// Reduces this step's per-segment minima (scan, depart and arrive) and counts
// (departures, causality errors) of the segments [first, end) (one replica's). Four
// independent loads per iteration keep several memory requests in flight: this one
// workgroup per replica runs alone, so its latency is the cost.
fn reduce_partials(lid: u32, first: u32, end: u32) -> Reduced {
    var m0 = never(); var m1 = never(); var m2 = never(); var m3 = never();
    var n = vec2<u32>(0u, 0u); // (departures, causality errors)
    var w = first + lid;
    for (; w + WG < end; w += 2u * WG) {
        let a = part_min[w];
        let b = part_min[w + WG];
        m0 = min64(m0, scan_min[w]);
        m1 = min64(m1, scan_min[w + WG]);
        m2 = min64(min64(m2, a.xy), a.zw);
        m3 = min64(min64(m3, b.xy), b.zw);
        n += seg_count[w].xz + seg_count[w + WG].xz;
    }
    for (; w < end; w += WG) {
        let a = part_min[w];
        m0 = min64(min64(m0, scan_min[w]), min64(a.xy, a.zw));
        n += seg_count[w].xz;
    }
    // (departures, causality errors) of this step: at most K each, so u32 per thread
    return wg_reduce(lid, min64(min64(m0, m1), min64(m2, m3)), vec2<u32>(n.x, 0u), vec2<u32>(n.y, 0u));
}
