// common.wgsl — bindings, token records and random streams shared by every open-network
// pass (after u64.wgsl; before stepped.wgsl, whose names it declares). Twin of
// crates/pdes-models/src/open_network/mod.rs (words, choices, laws) and state.rs (the records).

const PHASE_FULL: u32 = 4u; // the next step's arrivals need more token slots than the pool has

struct Params {
    lines: u32, servers: u32, k: u32, n_wg: u32,
    seed_lo: u32, seed_hi: u32, rule: u32, log_len: u32,
    d: vec2<u32>, end_t: vec2<u32>,
    shift: vec2<u32>, scale: u32, interarrival: u32,
    exit_q32: vec2<u32>, warmup: vec2<u32>, // statistics from this time on (run.warmup)
}

// Written by thread 0 of the plan passes and by the host between batches.
struct Ctl {
    // the head every stepped engine shares (StepCtl in crates/pdes-gpu/src/stepped.rs)
    t_min: vec2<u32>, bound: vec2<u32>,
    exec_at: vec2<u32>, limit: vec2<u32>,
    events: vec2<u32>, errors: vec2<u32>,
    step: u32, phase: u32, max_events: u32, pad0: u32,
    // the source and the pool
    next_arrival: vec2<u32>, arrivals: vec2<u32>,
    entered_sum: vec4<u32>,        // Σ max(entry time, warm-up) of every token ever created (128 bits)
    pool_used: u32,                // slots ever handed out (the rest of the pool is untouched)
    pool_cap: u32,                 // slots in the pool buffers
    pool_short: u32,               // PHASE_FULL: how many slots the planned step lacked
    step_arrivals: u32,            // external arrivals created for the planned step
    src_count: u32,                // receivers the step's arrivals listed (dep_list[recv_list_base() + (K..)])
    pad1: u32, pad2: u32, pad3: u32,
}

// One token of the pool (48 bytes).
struct Token {
    arrival: vec2<u32>,  // which external arrival created it (keys its random words); NEVER when free
    entered: vec2<u32>,  // when it entered the system
    arrived: vec2<u32>,  // when it arrived at its current facility (set by its sender)
    visits: u32,         // services completed
    next: u32,           // next token in the same queue
    link: u32,           // next token announced to the same facility this step
    sender: u32,         // who sent it this step: a facility, or K for the source
    pad0: u32, pad1: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> ctl: array<Ctl, 1>; // one replica (stepped.wgsl)
@group(0) @binding(2) var<storage, read_write> seg_count: array<vec4<u32>>; // per segment: (departures, receivers, causality errors, exits) of this step; then wg_acc, then fac
@group(0) @binding(3) var<storage, read_write> tok: array<Token>;           // the token pool
@group(0) @binding(4) var<storage, read_write> dep: array<vec2<u32>>;       // departure time, NEVER when idle; then start_t, then last_arr
@group(0) @binding(5) var<storage, read_write> dep_list: array<u32>;      // per segment: its facilities departing this step; then recv_list, then free_stack
@group(0) @binding(6) var<storage, read_write> heads: array<atomic<u32>>;   // [f < K]: first token announced to f this step; [K]: free-stack top
@group(0) @binding(7) var<storage, read_write> scan_min: array<vec2<u32>>;  // per segment: min departure of facilities that do not depart
@group(0) @binding(8) var<storage, read_write> part_min: array<vec4<u32>>; // per segment: (depart min, arrive min) of this step
@group(0) @binding(9) var<storage, read> ln_table: array<u32>;
@group(0) @binding(10) var<storage, read_write> steplog: array<LogEntry>;

// Arrays that share a binding with another of their type, each after the one before at a
// base from the sizes in P: a browser's WebGPU allows 10 storage buffers per shader stage,
// and the passes had 16. The host's regions: gpu_setup.rs.
fn wg_acc_base() -> u32 { return P.n_wg; }            // in seg_count: per segment, 128-bit and cumulative: the ACC_* sums
fn fac_base() -> u32 { return P.n_wg * (1u + ACC_PER_SEGMENT); } // in seg_count: serving, head, tail, last error step
fn start_t_base() -> u32 { return P.k; }              // in dep: service start; idle: free since
fn last_arr_base() -> u32 { return 2u * P.k; }        // in dep: largest arrival time seen (interval/original only)
fn recv_list_base() -> u32 { return P.k; }            // in dep_list: per segment, facilities its departures announced to first; [K..]: the source's
fn free_stack_base() -> u32 { return 2u * P.k + P.lines; } // in dep_list, last (the pool grows): free slots below heads[K]

// The per-segment sums (the twins of OpenState's counters; "measured": at or after the
// warm-up, each event deciding from its own time).
const ACC_BUSY: u32 = 0u;          // busy ticks from the warm-up on
const ACC_SOJOURN: u32 = 1u;       // sojourns of the visits measured (signed)
const ACC_EXITED_ENTRY: u32 = 2u;  // Σ max(entry, warm-up) of every token that left
const ACC_STAY: u32 = 3u;          // Σ (exit − entry) of the exits measured
const ACC_EXITS: u32 = 4u;         // every exit
const ACC_AREA: u32 = 5u;          // Σ (exit − max(entry, warm-up)) of the exits measured
const ACC_COUNTS: u32 = 6u;        // (exits measured, visits measured), 64 bits each
const ACC_PER_SEGMENT: u32 = 7u;

// a + x, 128-bit accumulator plus signed 64-bit value (two's complement, sign-extended:
// a visit's sojourn can be negative under interval/original, see state.rs).
fn add128_signed(a: vec4<u32>, x: vec2<u32>) -> vec4<u32> {
    let lo = add64(a.xy, x);
    let carry = select(0u, 1u, lt64(lo, x));
    let ext = select(0u, NONE, (x.y >> 31u) == 1u);
    return vec4<u32>(lo, add64(add64(a.zw, vec2<u32>(carry, 0u)), vec2<u32>(ext, ext)));
}

// a + x, 128-bit accumulator plus 64-bit value.
fn add128(a: vec4<u32>, x: vec2<u32>) -> vec4<u32> {
    let lo = add64(a.xy, x);
    let carry = select(0u, 1u, lt64(lo, x));
    return vec4<u32>(lo, add64(a.zw, vec2<u32>(carry, 0u)));
}

// The four words of visit `visit` of the token created by arrival `arrival` (visit_words).
fn visit_words(arrival: vec2<u32>, visit: u32) -> vec4<u32> {
    return philox4x32_10(vec4<u32>(visit, arrival.y, P.seed_hi, 0u), vec2<u32>(arrival.x, P.seed_lo));
}

const ARRIVAL_STREAM: u32 = 0xA2217A15u;

// The four words of external arrival `k` (arrival_words).
fn arrival_words(k: vec2<u32>) -> vec4<u32> {
    return philox4x32_10(vec4<u32>(k.x, k.y, P.seed_hi, 0u), vec2<u32>(ARRIVAL_STREAM, P.seed_lo));
}

// Time between arrival k − 1 and arrival k, from word 0 of its words (Laws::gap).
fn gap(words: vec4<u32>) -> vec2<u32> {
    let p = mul32x32(neg_ln_q27(words.x), P.interarrival);
    return vec2<u32>((p.x >> 27u) | (p.y << 5u), p.y >> 27u);
}

// A uniform choice among n from one word: the high word of word · n (choose).
fn choose(word: u32, n: u32) -> u32 {
    return mul32x32(word, n).y;
}

// True with probability exit_q32 / 2^32 (bernoulli; exit_q32 may be 2^32).
fn exits(word: u32) -> bool {
    return P.exit_q32.y > 0u || word < P.exit_q32.x;
}

// Starts `token` (record `t`) at facility g at time s; returns its departure time.
fn service_end(t: Token, s: vec2<u32>) -> vec2<u32> {
    return add64(s, service_ticks(visit_words(t.arrival, t.visits).x));
}

// ---- The source, one workgroup at a time -------------------------------------------
// Arrival k + x (x = 0, 1, …; k = ctl.arrivals) is due at T_x = T_0 + Σ_{y=1..x} gap(k + y),
// with T_0 = ctl.next_arrival. A workgroup computes 256 consecutive T_x at once: each
// thread draws its arrival's words (one Philox call gives the gap and the line), and an
// inclusive prefix sum over the workgroup adds the gaps. The plan counts the arrivals
// within the bound this way; the step's start creates them this way (all threads of the
// scan's workgroup 0). A serial loop cost ~2.5 µs per arrival on an H100 (bench/NOTES.md).

var<workgroup> src_scan: array<vec2<u32>, WG>;
var<workgroup> src_carry: vec2<u32>;  // the chunk's last due time, broadcast
var<workgroup> src_uniform: u32;      // a count, broadcast
var<workgroup> src_listed: atomic<u32>;

// Inclusive prefix sum of v over the workgroup (Hillis–Steele; every thread must call it).
fn wg_scan64(lid: u32, v: vec2<u32>) -> vec2<u32> {
    src_scan[lid] = v;
    workgroupBarrier();
    var acc = v;
    for (var off = 1u; off < WG; off <<= 1u) {
        var other = vec2<u32>(0u, 0u);
        if lid >= off { other = src_scan[lid - off]; }
        workgroupBarrier();
        acc = add64(acc, other);
        src_scan[lid] = acc;
        workgroupBarrier();
    }
    return acc;
}

// Arrival k + x of the chunk starting at x = base: its words and due time, given
// `carry` = T_{base−1} (for base = 0: T_0 with no gap of its own). Every thread calls it.
struct SourceItem {
    x: u32,
    words: vec4<u32>,
    time: vec2<u32>,
}

fn source_item(lid: u32, base: u32, carry: vec2<u32>) -> SourceItem {
    let x = base + lid;
    let words = arrival_words(add64(ctl[0].arrivals, vec2<u32>(x, 0u)));
    let g = select(gap(words), vec2<u32>(0u, 0u), x == 0u);
    let time = add64(carry, wg_scan64(lid, g));
    return SourceItem(x, words, time);
}

// The last thread's time, broadcast (the next chunk's carry).
fn chunk_end(lid: u32, time: vec2<u32>) -> vec2<u32> {
    if lid == WG - 1u { src_carry = time; }
    return workgroupUniformLoad(&src_carry);
}

// How many arrivals are due at or before `bound` (every thread calls it; the result is
// uniform).
fn count_arrivals(lid: u32, bound: vec2<u32>) -> u32 {
    var base = 0u;
    var carry = ctl[0].next_arrival;
    var n = 0u;
    loop {
        let it = source_item(lid, base, carry);
        // times increase with x: the arrivals within the bound are a prefix of the chunk
        if lid == 0u { atomicStore(&src_listed, 0u); }
        workgroupBarrier();
        if le64(it.time, bound) { atomicAdd(&src_listed, 1u); }
        workgroupBarrier();
        if lid == 0u { src_uniform = atomicLoad(&src_listed); }
        let within = workgroupUniformLoad(&src_uniform);
        let end = chunk_end(lid, it.time);
        if within < WG {
            n = base + within;
            break;
        }
        base += WG;
        carry = end;
    }
    return n;
}

// The stepped scan's replica of a segment: the open network runs one replica.
fn segment_replica(wg: u32) -> u32 { return 0u; }

// Creates the ctl.step_arrivals arrivals the plan counted (OpenState::create, in
// parallel): each takes a slot (the free stack's top entries first, then unused ones),
// enters at its due time (the boundary for interval/boundary), and is announced to its
// line's first server; ctl then points at the next arrival. Every thread of one
// workgroup calls it.
fn step_start(lid: u32) {
    if lid == 0u {
        src_uniform = ctl[0].step_arrivals;
        atomicStore(&src_listed, 0u);
    }
    let n = workgroupUniformLoad(&src_uniform);
    if n == 0u {
        if lid == 0u { ctl[0].src_count = 0u; }
        return;
    }
    let top = atomicLoad(&heads[P.k]);
    let from_stack = min(n, top);
    let used = ctl[0].pool_used;
    var entered = vec2<u32>(0u, 0u); // Σ entry times of this thread's arrivals
    var base = 0u;
    var carry = ctl[0].next_arrival;
    loop {
        let it = source_item(lid, base, carry);
        if it.x < n {
            var slot: u32;
            if it.x < from_stack {
                slot = dep_list[free_stack_base() + (top - 1u - it.x)];
            } else {
                slot = used + (it.x - from_stack);
            }
            let t_exec = select(it.time, ctl[0].exec_at, P.rule == RULE_BOUNDARY);
            let dest = choose(it.words.y, P.lines) * P.servers;
            let link = atomicExchange(&heads[dest], slot);
            let k = add64(ctl[0].arrivals, vec2<u32>(it.x, 0u));
            tok[slot] = Token(k, t_exec, t_exec, 0u, NONE, link, P.k, 0u, 0u);
            if link == NONE {
                dep_list[recv_list_base() + (P.k + atomicAdd(&src_listed, 1u))] = dest;
            }
            entered = add64(entered, max64(t_exec, P.warmup));
        } else if it.x == n {
            ctl[0].next_arrival = it.time; // T_n: due next
        }
        let end = chunk_end(lid, it.time);
        if base + WG > n { break; }
        base += WG;
        carry = end;
    }
    let r = wg_reduce(lid, never(), entered, vec2<u32>(0u, 0u));
    if lid == 0u {
        ctl[0].src_count = atomicLoad(&src_listed);
        ctl[0].entered_sum = add128(ctl[0].entered_sum, r.a);
        ctl[0].arrivals = add64(ctl[0].arrivals, vec2<u32>(n, 0u));
        ctl[0].pool_used = used + (n - from_stack);
        atomicStore(&heads[P.k], top - from_stack);
    }
}
