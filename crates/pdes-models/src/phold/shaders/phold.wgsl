// phold.wgsl — the window algorithm for PHOLD: one pass per step over every pending event
// (one per token), composed after u64.wgsl, a reduction module and philox.wgsl. Twin of
// Window::step in crates/pdes-models/src/phold/cpu.rs and Law::next in mod.rs, bit for bit.
//
// process: every event with t < bound = min(t_min + lookahead, end) is processed — its LP's
//          counter goes up, and its token moves to the LP and time Law::next draws from
//          (seed, token, hop); each workgroup folds the least pending time of its tokens
//          and the events it processed into one of SLOTS sets of a step's accumulators.
// The step's t_min is the previous step's folds' minimum, taken by every workgroup at its
// start, and one more workgroup, the bookkeeper, writes the previous step's log entry and
// the control block: no pass closes its own step, so a step is one dispatch (the same
// mechanism as devs.wgsl; bench/NOTES.md, "SIR without a step's close", "PHOLD in one pass
// a step"). Three buffers of accumulators rotate, bound by the host by a pass's position
// mod 3: the previous step's (acc_prev, read-only), the step's own (acc), the next step's
// (acc_next, cleared by the bookkeeper). A pass whose step is not due (t_min at the host's
// limit or the end time, or the previous pass took no step) does nothing but its books, so
// the host queues many steps per submit and reads back once per batch; a one-workgroup
// `close` pass ends each batch with the same books.
//
// A 64-bit minimum has no atomic: a workgroup folds its least time as an offset from the
// step's bound (every pending time after a step is at least its bound: the events before
// it were processed, and each successor lies a lookahead or more after t_min) in 32 bits,
// SAT where the offset does not fit (4,096 time units at 2^20 ticks a unit); its exact
// 64-bit minimum goes to its own word pair too, which the next pass reads, all of them,
// only when every set says SAT.

struct Params {
    tokens: u32, lps: u32, groups: u32, log_cap: u32,
    seed_lo: u32, seed_hi: u32, remote_all: u32, remote_q: u32, // remote iff word < remote_q, or always
    shift: vec2<u32>, scale: u32, pad0: u32,                    // increment = shift + Exp(scale), ticks
    end_t: vec2<u32>, limit: vec2<u32>,                          // events before end_t; steps start below limit
}

// Read and written by the bookkeeper only (and by the host between batches).
struct Ctl {
    t_min: vec2<u32>,   // least pending event time after the last logged step
    events: vec2<u32>,  // events processed
    steps: u32, max_events: u32, pad0: u32, pad1: u32,
}

struct LogEntry {
    t_min: vec2<u32>, bound: vec2<u32>, // bound: the last tick the step covered
    events: vec2<u32>, remote: vec2<u32>, // remote: the step's messages to another LP
}

// A step's accumulators, as vec4s: SLOTS sets of (least offset from the bound, events,
// remote messages, 0) and a zero vec4 each (workgroup w folds into set w % SLOTS); the
// head (t_min, bound) and mark (taken, valid, 0, 0) — taken: the step's index + 1, 0 where
// no step folded into these since they were cleared; valid: 1 where they hold a least time
// (a step's folds, or the initial one) — written by the step's bookkeeper; then each
// workgroup's exact least time.
const SLOTS: u32 = 32u;
const_assert WG >= SLOTS; // a thread per set
const SAT: u32 = 0xffffffffu;
const HEAD: u32 = 2u * SLOTS;          // vec4 index of the head
const MARK: u32 = HEAD + 1u;           // and of the mark
const EXACT: u32 = HEAD + 2u;          // vec4 index of workgroup 0's exact least time

@group(0) @binding(0) var<uniform> P: Params;
// every token's time (u64), then every token's (lp, hop): the step's scan reads the times
// alone, 8 bytes a token (a second scan of 16-byte records cost 2.2 µs a step at 2^20)
@group(0) @binding(1) var<storage, read_write> tok: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>>; // 2 words per heatmap cell: (events at the LP, 0)
@group(0) @binding(3) var<storage, read_write> ctl: Ctl;
@group(0) @binding(4) var<storage, read_write> steplog: array<LogEntry>;
@group(0) @binding(5) var<storage, read> ln_table: array<u32>;
@group(0) @binding(6) var<storage, read> acc_prev: array<vec4<u32>>;
@group(0) @binding(7) var<storage, read_write> acc: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> acc_next: array<vec4<u32>>;

const ITEMS: u32 = 8u; // tokens per thread
const_assert ITEMS == 8u; // process() loads a thread's tokens as eight named values

var<workgroup> sh_n: atomic<u32>;             // due tokens found by the workgroup
var<workgroup> sh_due: array<u32, 2048>;      // their indices (WG · ITEMS at most)
// the complement of the least offset folded in so far (max of complements: zero, as
// WebGPU initialises workgroup memory, is its identity, so no store and barrier come first)
var<workgroup> sh_not_least: atomic<u32>;
var<workgroup> sh_start: vec4<u32>;           // the step's (t_min, due, exact)

// The step's exclusive bound for t_min: min(t_min + lookahead, end).
fn bound_of(t_min: vec2<u32>) -> vec2<u32> {
    return min64(add64(t_min, P.shift), P.end_t);
}

// (t_min, due, 0): the previous step's least pending time — the minimum of its folds, the
// same in every workgroup (no pass writes the accumulators it reads) — and whether this
// pass's step is due (1) or not (0); the same in every thread, as the barriers that follow
// require. A thread per set loads its offset; where every set says SAT, the previous
// step's workgroups' exact least times are reduced instead.
fn step_start(lid: u32) -> vec4<u32> {
    // the head's bound and the mark's valid are loaded with the sets, before the barrier:
    // loaded after it, they were one more round trip to the L2 on every workgroup's path
    var bound = vec2<u32>(0u);
    var valid = 0u;
    if lid == 0u {
        bound = acc_prev[HEAD].zw;
        valid = acc_prev[MARK].y;
    }
    if lid < SLOTS { atomicMax(&sh_not_least, ~acc_prev[2u * lid].x); }
    workgroupBarrier();
    if lid == 0u {
        let least = ~atomicLoad(&sh_not_least);
        sh_start = vec4<u32>(add64(bound, vec2<u32>(least, 0u)), valid, select(1u, 0u, least == SAT));
    }
    var s = workgroupUniformLoad(&sh_start);
    if s.z == 1u && s.w == 0u {
        var m = never();
        for (var j = lid; j < P.groups; j += WG) {
            m = min64(m, acc_prev[EXACT + j].xy);
        }
        let r = wg_min(lid, m);
        if lid == 0u { sh_start = vec4<u32>(r, 1u, 1u); }
        s = workgroupUniformLoad(&sh_start);
    }
    let due = s.z == 1u && lt64(s.xy, P.limit) && lt64(s.xy, P.end_t);
    return vec4<u32>(s.xy, select(0u, 1u, due), 0u);
}

// The bookkeeper's duties in a step's pass (one workgroup beside the tokens') and in
// `close` (due false): the previous step's log entry (its sets' counts summed) and the
// control block, once (the previous step is the next to log: its mark's taken is
// ctl.steps + 1); the next step's accumulators cleared where the previous step's were
// folded into (where they were not, this pass follows one with no step due, and the next
// step's accumulators may be the last taken step's, which the next batch reads); where
// the step is due, its head and mark in its own. Every thread calls it (wg_reduce).
fn keep_books(lid: u32, t_min: vec2<u32>, due: bool) {
    var events = 0u;
    var remote = 0u;
    if lid < SLOTS {
        let w = acc_prev[2u * lid];
        events = w.y;
        remote = w.z;
    }
    // a step's events (one per token at most, 2^32 tokens at most) fit 32 bits
    let red = wg_reduce(lid, never(), vec2<u32>(events, 0u), vec2<u32>(remote, 0u));
    let head = acc_prev[HEAD];
    let taken = acc_prev[MARK].x;
    if lid == 0u && taken == ctl.steps + 1u {
        steplog[ctl.steps % P.log_cap] = LogEntry(head.xy, sub64(head.zw, vec2<u32>(1u, 0u)), red.a, red.b);
        ctl.t_min = t_min;
        ctl.events = add64(ctl.events, red.a);
        ctl.max_events = max(ctl.max_events, red.a.x);
        ctl.steps += 1u;
    }
    if lid < SLOTS && taken != 0u {
        acc_next[2u * lid] = vec4<u32>(SAT, 0u, 0u, 0u);
        acc_next[2u * lid + 1u] = vec4<u32>(0u, 0u, 0u, 0u);
    }
    if lid == 0u && taken != 0u {
        acc_next[HEAD] = vec4<u32>(0u, 0u, 0u, 0u);
        acc_next[MARK] = vec4<u32>(0u, 0u, 0u, 0u);
    }
    if lid == 0u && due {
        // after the log above, ctl.steps is this step's index
        let bound = bound_of(t_min);
        atomicStore(&acc[4u * HEAD], t_min.x);
        atomicStore(&acc[4u * HEAD + 1u], t_min.y);
        atomicStore(&acc[4u * HEAD + 2u], bound.x);
        atomicStore(&acc[4u * HEAD + 3u], bound.y);
        atomicStore(&acc[4u * MARK], ctl.steps + 1u);
        atomicStore(&acc[4u * MARK + 1u], 1u);
    }
}

// Processes the event of token i: count it at its LP, draw its successor, move the token.
// Returns the successor's time and 1 where it went to another LP (a remote message).
fn process_event(i: u32) -> vec3<u32> {
    let place = tok[P.tokens + i];
    var e = vec4<u32>(tok[i], place);
    atomicAdd(&counts[2u * e.z], 1u);
    let w = token_words(i, e.w);
    var lp = e.z;
    if P.remote_all == 1u || w.y < P.remote_q {
        lp = mul32x32(w.z, P.lps).y; // floor(w · lps / 2^32)
    }
    let moved = select(0u, 1u, lp != e.z);
    e = vec4<u32>(add64(e.xy, service_ticks(w.x)), lp, e.w + 1u);
    tok[i] = e.xy;
    tok[P.tokens + i] = e.zw;
    return vec3<u32>(e.xy, moved);
}

// Lists token i (time t) in the workgroup's due list when t is before the bound; returns
// the least time of the tokens not listed so far.
fn list_if_due(i: u32, t: vec2<u32>, bound: vec2<u32>, least: vec2<u32>) -> vec2<u32> {
    if i >= P.tokens { return least; }
    if lt64(t, bound) {
        sh_due[atomicAdd(&sh_n, 1u)] = i;
        return least;
    }
    return min64(least, t);
}

// Two phases per workgroup: every thread scans its ITEMS tokens and lists the due ones in
// workgroup memory; then the list is processed with every thread busy. (Processing in the
// scan loop left ~29 of 32 lanes idle through the ~600 instructions of an event when 9% of
// the tokens are due: the warps' instruction issue, not memory, bounded the pass.) The order
// of processing does not matter: each token's successor depends on the token alone and the
// counts are sums. The pass's last workgroup (P.groups, past the tokens') is the bookkeeper.
// The workgroups are numbered across a 2-D dispatch (one dimension holds at most 65,535 on
// many adapters; 2^27 tokens are 65,536 workgroups and the bookkeeper); those past the
// bookkeeper return at once.
@compute @workgroup_size(WG)
fn process(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid3: vec3<u32>,
) {
    let lid = lid3.x;
    let g = wid.x + wid.y * nwg.x;
    if g > P.groups { return; }
    // the thread's eight times are loaded first, written out (a private array indexed in a
    // loop lives in memory, not registers, where wgpu's loop counter keeps the loop from
    // being unrolled), and before the step's t_min is known (they do not depend on it, and
    // only this workgroup writes them)
    let i0 = g * WG * ITEMS + lid;
    let last = P.tokens - 1u;
    let t0 = tok[min(i0, last)];
    let t1 = tok[min(i0 + WG, last)];
    let t2 = tok[min(i0 + 2u * WG, last)];
    let t3 = tok[min(i0 + 3u * WG, last)];
    let t4 = tok[min(i0 + 4u * WG, last)];
    let t5 = tok[min(i0 + 5u * WG, last)];
    let t6 = tok[min(i0 + 6u * WG, last)];
    let t7 = tok[min(i0 + 7u * WG, last)];
    let st = step_start(lid);
    if g == P.groups {
        keep_books(lid, st.xy, st.z == 1u);
        return;
    }
    if st.z == 0u { return; }
    let bound = bound_of(st.xy);
    var least = never();
    least = list_if_due(i0, t0, bound, least);
    least = list_if_due(i0 + WG, t1, bound, least);
    least = list_if_due(i0 + 2u * WG, t2, bound, least);
    least = list_if_due(i0 + 3u * WG, t3, bound, least);
    least = list_if_due(i0 + 4u * WG, t4, bound, least);
    least = list_if_due(i0 + 5u * WG, t5, bound, least);
    least = list_if_due(i0 + 6u * WG, t6, bound, least);
    least = list_if_due(i0 + 7u * WG, t7, bound, least);
    workgroupBarrier();
    let n = atomicLoad(&sh_n);
    var moved = 0u;
    for (var j = lid; j < n; j += WG) {
        let next = process_event(sh_due[j]);
        least = min64(least, next.xy);
        moved += next.z;
    }
    let r = wg_reduce(lid, least, vec2<u32>(select(0u, n, lid == 0u), 0u), vec2<u32>(moved, 0u));
    if lid == 0u {
        // a workgroup's events and remote messages (≤ WG · ITEMS each) fit one word each;
        // its least time as an offset from the bound (SAT where it does not fit 32 bits)
        // and exactly
        let d = sub64(r.min, bound);
        let at = 8u * (g % SLOTS);
        atomicMin(&acc[at], select(SAT, d.x, d.y == 0u));
        atomicAdd(&acc[at + 1u], r.a.x);
        atomicAdd(&acc[at + 2u], r.b.x);
        atomicStore(&acc[4u * (EXACT + g)], r.min.x);
        atomicStore(&acc[4u * (EXACT + g) + 1u], r.min.y);
    }
}

// 2. The batch's close, one workgroup after its last pass: the books of a pass with no step
// due — the last step's log entry and the control block, where the last pass took a step.
@compute @workgroup_size(WG)
fn close(@builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let st = step_start(lid);
    keep_books(lid, st.xy, false);
}

// The heatmap's words of each cell: (pending events at the LP | NEXT_STEP when one of them
// is before the next step's bound, events processed there) — words() in
// crates/pdes-models/src/phold/live.rs. display_cells writes the second words and clears
// the first; display_tokens then counts every pending event at its LP.
@group(1) @binding(0) var<storage, read_write> display: array<atomic<u32>>;

const NEXT_STEP: u32 = 0x80000000u;

@compute @workgroup_size(WG)
fn display_cells(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG; // a 2-D dispatch, as process's
    if i >= arrayLength(&display) / 2u { return; }
    atomicStore(&display[2u * i], 0u);
    atomicStore(&display[2u * i + 1u], select(0u, atomicLoad(&counts[2u * i]), i < P.lps));
}

@compute @workgroup_size(WG)
fn display_tokens(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * WG; // a 2-D dispatch, as process's
    if i >= P.tokens { return; }
    let e = vec4<u32>(tok[i], tok[P.tokens + i]);
    if 2u * e.z + 1u >= arrayLength(&display) { return; }
    atomicAdd(&display[2u * e.z], 1u);
    if lt64(e.xy, bound_of(ctl.t_min)) {
        atomicOr(&display[2u * e.z], NEXT_STEP);
    }
}
