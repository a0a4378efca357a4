// common.wgsl — bindings and torus geometry shared by every torus pass (after u64.wgsl).
// Twin of crates/pdes-models/src/torus/mod.rs and crates/pdes-models/src/torus/state.rs.

const TOKEN_MASK: u32 = 0x3fffffffu; // serving word: token id in the low 30 bits, route in the top 2

struct Params {
    rows: u32, cols: u32, k: u32, n_wg: u32,
    seed_lo: u32, seed_hi: u32, rule: u32, log_len: u32,
    d: vec2<u32>, end_t: vec2<u32>,
    shift: vec2<u32>, scale: u32,
    k1: u32, n_wg1: u32, tok1: u32, replicas: u32, pad0: u32, // per replica: facilities, segments, tokens
    warmup: vec2<u32>, pad1: vec2<u32>, // statistics from this time on (run.warmup)
}

struct Ctl {
    t_min: vec2<u32>, bound: vec2<u32>,
    exec_at: vec2<u32>, limit: vec2<u32>,
    events: vec2<u32>, errors: vec2<u32>,
    step: u32, phase: u32, max_events: u32,
    executed: u32, // 1: the planned step has run and is not closed yet (torus_plan.wgsl)
    seed: vec2<u32>, // the replica's run.seed (lo, hi)
    d: vec2<u32>,    // the replica's run.d in ticks (a sweep's replicas differ in it)
    shift: vec2<u32>, scale: u32, pad2: u32, // its service law (shift = d when shifted)
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> ctl: array<Ctl>;             // 2 per replica: [r] the host's, [R + r] the step the scan planned (torus_plan.wgsl)
@group(0) @binding(2) var<storage, read_write> dep: array<vec2<u32>>;       // departure time, NEVER when idle; then last_arr (largest arrival time seen, interval/original only)
@group(0) @binding(3) var<storage, read_write> recv_list: array<u32>;       // per segment: facilities its departures send to (each once); then err_step (step of the latest causality error, 0: none)
@group(0) @binding(4) var<storage, read_write> fac: array<vec4<u32>>;       // two per facility, one 32-byte record: see Fac; then tok (per token: arrival time u64, next in queue — stale while in service —, visits)
@group(0) @binding(5) var<storage, read_write> mail: array<atomic<u32>>;     // eight words per facility, one 32-byte sector: see MAIL; then step_acc (acc_word)
@group(0) @binding(6) var<storage, read_write> scan_min: array<vec2<u32>>;  // per step parity and segment ([p·n_wg + wg]): min departure after the segment's departures
@group(0) @binding(7) var<storage, read_write> seg_count: array<vec4<u32>>; // per segment: (departures, receivers, causality errors, -) of this step; then wg_acc
@group(0) @binding(8) var<storage, read_write> part_min: array<vec4<u32>>; // per step parity and segment: (NEVER — the torus departs in the scan's pass, whose minimum is scan_min —, arrive min u64)
@group(0) @binding(9) var<storage, read> ln_table: array<u32>;
@group(0) @binding(10) var<storage, read_write> steplog: array<LogEntry>;
// declared for the shared scan module's `scan` entry point, which the torus never builds
// (its scan departs in the same workgroup): in no layout
@group(0) @binding(11) var<storage, read_write> dep_list: array<u32>;

// Arrays that share a binding with another of their type, each after it at a base taken
// from the sizes in P: a browser's WebGPU allows 10 storage buffers per shader stage
// (Chromium's, SwiftShader's), and the passes had 16. The host's regions: gpu_setup.rs.
fn tok_base() -> u32 { return 2u * P.k; }        // in fac, after two records per facility
fn step_acc_base() -> u32 { return MAIL * P.k; } // in mail, after eight words per facility
fn wg_acc_base() -> u32 { return P.n_wg; }       // in seg_count, after one per segment:
                                                 // per segment, cumulative: [2wg] (busy u64, sojourn u64), [2wg+1] (completions u64, -)
fn last_arr_base() -> u32 { return P.k; }        // in dep, after one per facility
fn err_step_base() -> u32 { return P.k; }        // in recv_list, after one per facility

// The step's next t_min without a second reduction: every pass's workgroups fold their
// minimum into one atomic word per replica, as an offset from the step's t_min (every
// pending departure is at or after it). An offset that does not fit in 32 bits (or no
// departure at all) leaves the word at NONE, and the step's closing (torus_plan.wgsl) then
// reduces the per-segment minima, so the result is exact either way. `t_min` is the step's,
// loaded by the caller at the start of its pass, so that its latency is not on the pass's
// tail; `par` is the step's parity (its number's lowest bit).
fn note_min(par: u32, rep: u32, t_min: vec2<u32>, m: vec2<u32>) {
    let rel = sub64(m, t_min);
    if rel.y == 0u && rel.x != NONE && !lt64(m, t_min) {
        atomicMin(&mail[step_acc_base() + (acc_word(par, rep, 0u))], rel.x);
    }
}

// Word i (0: least offset, 1: departures, 2: causality errors) of replica rep's step
// accumulators for steps of parity `par`. Two sets, because a step's scan closes the step
// before it (reads its words) while writing its own (torus_plan.wgsl).
fn acc_word(par: u32, rep: u32, i: u32) -> u32 {
    return 4u * (par * P.replicas + rep) + i;
}

// Clears replica rep's accumulators of parity `par` for the next step that uses them.
fn clear_acc(par: u32, rep: u32) {
    atomicStore(&mail[step_acc_base() + (acc_word(par, rep, 0u))], NONE);
    atomicStore(&mail[step_acc_base() + (acc_word(par, rep, 1u))], 0u);
    atomicStore(&mail[step_acc_base() + (acc_word(par, rep, 2u))], 0u);
}

// A facility's mailbox, mail[MAIL·g ..]: word 4 (MAIL_MASK) has bit dir set when a token
// reaches g this step by moving in direction dir (from sources(g)[dir], its only possible
// sender), and word dir then holds that token; the first announcement (the mask was 0)
// lists g for the arrive pass. The arrive pass reads the mask, then only the words it
// flags, and clears the mask alone: a word whose bit is clear is never read, so it need
// not be emptied. One sector per receiver.
const MAIL: u32 = 8u;
const MAIL_MASK: u32 = 4u;

// A facility's record: everything the departure and arrival of an event read or write at
// the facility but its departure time (which the scan streams, so it stays in `dep`), in
// one 32-byte sector: fac[2f] = (service start u64 — when idle: free since —, serving |
// route << 30, queue head), fac[2f + 1] = (queue tail, the serving token's arrival time
// u64 and visit count). The last two copy the serving token's record when it starts
// service, so its departure need not read that record. (Measured: no faster than three
// arrays, bench/NOTES.md; kept as the simpler layout.)
struct Fac {
    start: vec2<u32>,
    serving: u32,
    head: u32,
    tail: u32,
    arrived: vec2<u32>,
    visits: u32,
}

fn load_fac(f: u32) -> Fac {
    let a = fac[2u * f];
    let b = fac[2u * f + 1u];
    return Fac(a.xy, a.z, a.w, b.x, b.yz, b.w);
}

fn store_fac(f: u32, s: Fac) {
    fac[2u * f] = vec4<u32>(s.start, s.serving, s.head);
    fac[2u * f + 1u] = vec4<u32>(s.tail, s.arrived, s.visits);
}

// Replicas: R independent tori (one per seed) side by side. Replica r owns facilities
// [r·k1, (r+1)·k1), segments [r·n_wg1, (r+1)·n_wg1) (k1 is a multiple of SEG when R > 1)
// and tokens [r·tok1, (r+1)·tok1); tokens never leave their replica.

// The first facility of g's replica.
fn replica_base(g: u32) -> u32 {
    if P.replicas == 1u { return 0u; }
    return (g / P.k1) * P.k1;
}

// The stepped scan's replica of a segment.
fn segment_replica(wg: u32) -> u32 {
    return wg / P.n_wg1;
}

// A token's random words, keyed as in its replica's own run (its seed, its token number).
// `seed` is the replica's (its control block's), passed in: the arrive pass must not read
// the host's control block, which one of its workgroups rewrites.
fn replica_words(token: u32, visit: u32, rep: u32, seed: vec2<u32>) -> vec4<u32> {
    return seeded_token_words(seed, token - rep * P.tok1, visit);
}

// The sources of the four directions of facility g: component dir holds the neighbour
// that reaches g by moving in direction dir (its neighbour in direction dir ^ 1).
// One division instead of one per neighbour.
fn sources(g: u32) -> vec4<u32> {
    let base = replica_base(g);
    let r = (g - base) / P.cols;
    let c = (g - base) - r * P.cols;
    let up = select(r - 1u, P.rows - 1u, r == 0u) * P.cols + c;
    let down = select(r + 1u, 0u, r + 1u == P.rows) * P.cols + c;
    let left = r * P.cols + select(c - 1u, P.cols - 1u, c == 0u);
    let right = r * P.cols + select(c + 1u, 0u, c + 1u == P.cols);
    // moving up (0) reaches g from below, down (1) from above, left (2) from the right...
    return vec4<u32>(down, up, right, left) + base;
}

// The stepped scan's hook (stepped.wgsl): a torus step has nothing to do before the scan.
fn step_start(lid: u32) {}
