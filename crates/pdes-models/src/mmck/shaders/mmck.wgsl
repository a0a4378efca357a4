// mmck.wgsl — M/M/c/k replications, one per thread (paper 003 §4). Twin of
// Replication::advance in crates/pdes-models/src/mmck/mod.rs: the same events in the same order,
// the same random draws, the same integer tallies, so every replication ends bit for bit
// as on the CPU. Composed after u64.wgsl and philox.wgsl (which uses P.scale for the
// mean service and P.shift = 0).
//
// Replication r owns words [r·stride, (r+1)·stride) of `rep` (the layout of crates/pdes-models/src/mmck/gpu.rs):
//   0 t, 2 next arrival, 4 n, 5 queue head, 6 queue length, 8 gaps drawn, 10 services drawn,
//   12 departures, 14 events; 16.. the tally (t_start, area, busy, arrivals, blocked,
//   departures, sojourn, wait, starts: two words each); state_off.. the time with n
//   customers, n = 0..=k; server_off.. per server (departure, its customer's arrival);
//   queue_off.. the waiting customers' arrival times, a ring of k − c slots.

struct Params {
    reps: u32, stride: u32, servers: u32, capacity: u32,
    seed_lo: u32, seed_hi: u32, arr_scale: u32, scale: u32,
    shift: vec2<u32>, customers: vec2<u32>,
    warmup: vec2<u32>, limit: vec2<u32>,
    max_events: u32, state_off: u32, server_off: u32, queue_off: u32,
    first: u32, pad0: u32, pad1: u32, pad2: u32, // replication `first + r` is thread r's
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> rep: array<u32>;
@group(0) @binding(2) var<storage, read> ln_table: array<u32>;
@group(0) @binding(3) var<storage, read_write> status: array<atomic<u32>>; // [0]: replications stopped by max_events

const T_START: u32 = 16u;
const AREA: u32 = 18u;
const BUSY: u32 = 20u;
const ARRIVALS: u32 = 22u;
const BLOCKED: u32 = 24u;
const DEPARTURES: u32 = 26u;
const SOJOURN: u32 = 28u;
const WAIT: u32 = 30u;
const STARTS: u32 = 32u;

fn get64(i: u32) -> vec2<u32> { return vec2<u32>(rep[i], rep[i + 1u]); }
fn put64(i: u32, v: vec2<u32>) { rep[i] = v.x; rep[i + 1u] = v.y; }
fn bump64(i: u32, v: vec2<u32>) { put64(i, add64(get64(i), v)); }

// Draw `index` of `stream` of thread r's replication, first + r: an exponential with mean
// `mean` ticks (draw() in crates/pdes-models/src/mmck/mod.rs). The replication's number,
// not the thread's, keys the stream, so that a run split over several GPUs draws what one
// GPU draws.
fn draw(r: u32, stream: u32, index: vec2<u32>, mean: u32) -> vec2<u32> {
    let w = philox4x32_10(vec4<u32>(index.x, index.y, P.seed_hi, stream), vec2<u32>(P.first + r, P.seed_lo));
    let p = mul32x32(neg_ln_q27(w.x), mean);
    return vec2<u32>((p.x >> 27u) | (p.y << 5u), p.y >> 27u);
}

const ONE: vec2<u32> = vec2<u32>(1u, 0u);

@compute @workgroup_size(64)
fn advance(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    if r >= P.reps { return; }
    let b = r * P.stride;
    var t = get64(b);
    var next_arr = get64(b + 2u);
    var n = rep[b + 4u];
    var qhead = rep[b + 5u];
    var qlen = rep[b + 6u];
    var gaps = get64(b + 8u);
    var services = get64(b + 10u);
    var deps = get64(b + 12u);
    var events = get64(b + 14u);
    let c = P.servers;
    let k = P.capacity;
    let qcap = max(k - c, 1u);
    var done_here = 0u;
    loop {
        if !lt64(deps, P.customers) { break; } // its last departure is behind it
        if done_here >= P.max_events {
            atomicAdd(&status[0], 1u);
            break;
        }
        // the earliest departure (the lowest-numbered server of equal ones)
        var server = 0u;
        var dep = never();
        for (var i = 0u; i < c; i++) {
            let d = get64(b + P.server_off + 4u * i);
            if lt64(d, dep) { dep = d; server = i; }
        }
        let departs = le64(dep, next_arr);
        let te = select(next_arr, dep, departs);
        if !lt64(te, P.limit) { break; }
        let dt = sub64(te, t);
        bump64(b + AREA, mul64(dt, vec2<u32>(n, 0u)));
        bump64(b + BUSY, mul64(dt, vec2<u32>(min(n, c), 0u)));
        bump64(b + P.state_off + 2u * n, dt);
        t = te;
        if departs {
            let so = b + P.server_off + 4u * server;
            let arrived = get64(so + 2u);
            put64(so, never());
            n -= 1u;
            deps = add64(deps, ONE);
            bump64(b + DEPARTURES, ONE);
            bump64(b + SOJOURN, sub64(t, arrived));
            if qlen > 0u {
                let a = get64(b + P.queue_off + 2u * qhead);
                qhead = (qhead + 1u) % qcap;
                qlen -= 1u;
                let s = draw(r, 1u, services, P.scale);
                services = add64(services, ONE);
                put64(so, add64(t, s));
                put64(so + 2u, a);
                bump64(b + STARTS, ONE);
                bump64(b + WAIT, sub64(t, a));
            }
            if all(deps == P.warmup) {
                // the warm-up ends: the tally starts again from here
                put64(b + T_START, t);
                for (var w = AREA; w < P.state_off + 2u * (k + 1u); w++) { rep[b + w] = 0u; }
            }
        } else {
            bump64(b + ARRIVALS, ONE);
            if n == k {
                bump64(b + BLOCKED, ONE);
            } else {
                n += 1u;
                var free = c;
                for (var i = 0u; i < c; i++) {
                    if free == c && all(get64(b + P.server_off + 4u * i) == never()) { free = i; }
                }
                if free < c {
                    let so = b + P.server_off + 4u * free;
                    let s = draw(r, 1u, services, P.scale);
                    services = add64(services, ONE);
                    put64(so, add64(t, s));
                    put64(so + 2u, t);
                    bump64(b + STARTS, ONE);
                } else {
                    put64(b + P.queue_off + 2u * ((qhead + qlen) % qcap), t);
                    qlen += 1u;
                }
            }
            next_arr = add64(t, draw(r, 0u, gaps, P.arr_scale));
            gaps = add64(gaps, ONE);
        }
        events = add64(events, ONE);
        done_here += 1u;
    }
    put64(b, t);
    put64(b + 2u, next_arr);
    rep[b + 4u] = n;
    rep[b + 5u] = qhead;
    rep[b + 6u] = qlen;
    put64(b + 8u, gaps);
    put64(b + 10u, services);
    put64(b + 12u, deps);
    put64(b + 14u, events);
}

// Between two `advance` dispatches: the count is of the last one only.
@compute @workgroup_size(1)
fn clear_status() {
    atomicStore(&status[0], 0u);
}

@group(1) @binding(0) var<storage, read_write> display: array<vec2<u32>>;

// The heatmap's words: customers in system of every replication (cells past the last
// replication show 0).
@compute @workgroup_size(64)
fn display_main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= arrayLength(&display) { return; }
    display[i] = vec2<u32>(select(0u, rep[i * P.stride + 4u], i < P.reps), 0u);
}
