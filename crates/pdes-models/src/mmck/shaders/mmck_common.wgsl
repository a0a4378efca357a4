// mmck_common.wgsl — what the M/M/c/k passes share (mmck.wgsl's replications, mmck_books.wgsl's
// records at time 0 and sums): the run's parameters, the records (word-major: word w of
// replication r at w · P.reps + r; the layout in mmck.wgsl), the log table of the draws,
// and a replication's Philox blocks. Composed after u64.wgsl and philox.wgsl.

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

const T_START: u32 = 16u;
const AREA: u32 = 18u;
const BUSY: u32 = 20u;
const ARRIVALS: u32 = 22u;
const BLOCKED: u32 = 24u;
const DEPARTURES: u32 = 26u;
const SOJOURN: u32 = 28u;
const WAIT: u32 = 30u;
const STARTS: u32 = 32u;

fn get64(r: u32, w: u32) -> vec2<u32> { return vec2<u32>(rep[w * P.reps + r], rep[(w + 1u) * P.reps + r]); }
fn put64(r: u32, w: u32, v: vec2<u32>) { rep[w * P.reps + r] = v.x; rep[(w + 1u) * P.reps + r] = v.y; }

// Philox block `b` of `stream` of replication `rep_no` as −ln values (Q5.27). The
// replication's number, not the thread's, keys the stream, so that a run split over
// several GPUs draws what one GPU draws.
fn block(rep_no: u32, stream: u32, b: vec2<u32>) -> vec4<u32> {
    let w = philox4x32_10(vec4<u32>(b.x, b.y, P.seed_hi, stream), vec2<u32>(rep_no, P.seed_lo));
    return vec4<u32>(neg_ln_q27(w.x), neg_ln_q27(w.y), neg_ln_q27(w.z), neg_ln_q27(w.w));
}

