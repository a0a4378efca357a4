// phold.wgsl — the window algorithm for PHOLD: two passes per step over every pending
// event (one per token), composed after u64.wgsl, a reduction module and philox.wgsl. Twin
// of Window::step in crates/pdes-models/src/phold/cpu.rs and Law::next in mod.rs, bit for bit.
//
// process: every event with t < bound = min(t_min + lookahead, end) is processed — its LP's
//          counter goes up, and its token moves to the LP and time Law::next draws from
//          (seed, token, hop); each workgroup writes the least pending time of its tokens
//          and the events it processed.
// reduce:  one workgroup folds those into the next t_min and the step's log entry.
// Both passes first check the control block: once t_min reaches the host's limit, the end
// time or the step budget, they do nothing, so the host queues many steps per submit and
// reads back once per batch.

struct Params {
    tokens: u32, lps: u32, groups: u32, log_cap: u32,
    seed_lo: u32, seed_hi: u32, remote_all: u32, remote_q: u32, // remote iff word < remote_q, or always
    shift: vec2<u32>, scale: u32, step_limit: u32,              // increment = shift + Exp(scale), ticks
    end_t: vec2<u32>, limit: vec2<u32>,                          // events before end_t; steps start below limit
}

struct Ctl {
    t_min: vec2<u32>,   // least pending event time
    events: vec2<u32>,  // events processed
    steps: u32, max_events: u32, pad0: u32, pad1: u32,
}

struct LogEntry {
    t_min: vec2<u32>, bound: vec2<u32>, // bound: the last tick the step covered
    events: vec2<u32>, remote: vec2<u32>, // remote: the step's messages to another LP
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> tok: array<vec4<u32>>;      // (time u64, lp, hop)
@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>>; // 2 words per heatmap cell: (events at the LP, 0)
@group(0) @binding(3) var<storage, read_write> partial: array<vec4<u32>>;  // per process workgroup: (least time u64, events, remote messages)
@group(0) @binding(4) var<storage, read_write> ctl: Ctl;
@group(0) @binding(5) var<storage, read_write> steplog: array<LogEntry>;
@group(0) @binding(6) var<storage, read> ln_table: array<u32>;

const ITEMS: u32 = 4u; // tokens per thread
const_assert ITEMS == 4u; // process() loads a thread's tokens as four named values

var<workgroup> sh_go: u32;
var<workgroup> sh_n: atomic<u32>;             // due tokens found by the workgroup
var<workgroup> sh_due: array<u32, 1024>;      // their indices (WG · ITEMS at most)

// Whether a step is due (the same in every thread, as the barriers that follow require).
// Thread 0 also clears the workgroup's due list before the barrier.
fn step_due(lid: u32) -> bool {
    if lid == 0u {
        let t = ctl.t_min;
        sh_go = select(0u, 1u, lt64(t, P.limit) && lt64(t, P.end_t) && ctl.steps < P.step_limit);
        atomicStore(&sh_n, 0u);
    }
    return workgroupUniformLoad(&sh_go) == 1u;
}

// The step's exclusive bound: min(t_min + lookahead, end).
fn step_bound() -> vec2<u32> {
    return min64(add64(ctl.t_min, P.shift), P.end_t);
}

// Processes the event of token i: count it at its LP, draw its successor, move the token.
// Returns the successor's time and 1 where it went to another LP (a remote message).
fn process_event(i: u32) -> vec3<u32> {
    var e = tok[i];
    atomicAdd(&counts[2u * e.z], 1u);
    let w = token_words(i, e.w);
    var lp = e.z;
    if P.remote_all == 1u || w.y < P.remote_q {
        lp = mul32x32(w.z, P.lps).y; // floor(w · lps / 2^32)
    }
    let moved = select(0u, 1u, lp != e.z);
    e = vec4<u32>(add64(e.xy, service_ticks(w.x)), lp, e.w + 1u);
    tok[i] = e;
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
// counts are sums.
@compute @workgroup_size(WG)
fn process(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    // the thread's four times are loaded first, written out (a private array indexed in a
    // loop lives in memory, not registers, where wgpu's loop counter keeps the loop from
    // being unrolled), and before the control block is asked whether the step is due
    // (they do not depend on it, and only this workgroup writes them)
    let i0 = wid.x * WG * ITEMS + lid;
    let last = P.tokens - 1u;
    let t0 = tok[min(i0, last)].xy;
    let t1 = tok[min(i0 + WG, last)].xy;
    let t2 = tok[min(i0 + 2u * WG, last)].xy;
    let t3 = tok[min(i0 + 3u * WG, last)].xy;
    if !step_due(lid) { return; }
    let bound = step_bound();
    var least = never();
    least = list_if_due(i0, t0, bound, least);
    least = list_if_due(i0 + WG, t1, bound, least);
    least = list_if_due(i0 + 2u * WG, t2, bound, least);
    least = list_if_due(i0 + 3u * WG, t3, bound, least);
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
        // a workgroup's events and remote messages (≤ WG · ITEMS each) fit one word each
        partial[wid.x] = vec4<u32>(r.min, r.a.x, r.b.x);
    }
}

// The heatmap's words of each cell: (pending events at the LP | NEXT_STEP when one of them
// is before the next step's bound, events processed there) — words() in
// crates/pdes-models/src/phold/live.rs. display_cells writes the second words and clears
// the first; display_tokens then counts every pending event at its LP.
@group(1) @binding(0) var<storage, read_write> display: array<atomic<u32>>;

const NEXT_STEP: u32 = 0x80000000u;

@compute @workgroup_size(WG)
fn display_cells(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= arrayLength(&display) / 2u { return; }
    atomicStore(&display[2u * i], 0u);
    atomicStore(&display[2u * i + 1u], select(0u, atomicLoad(&counts[2u * i]), i < P.lps));
}

@compute @workgroup_size(WG)
fn display_tokens(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= P.tokens { return; }
    let e = tok[i];
    if 2u * e.z + 1u >= arrayLength(&display) { return; }
    atomicAdd(&display[2u * e.z], 1u);
    if lt64(e.xy, step_bound()) {
        atomicOr(&display[2u * e.z], NEXT_STEP);
    }
}

@compute @workgroup_size(WG)
fn reduce(@builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    if !step_due(lid) { return; }
    var least = never();
    var events = vec2<u32>(0u, 0u);
    var remote = vec2<u32>(0u, 0u);
    for (var j = lid; j < P.groups; j += WG) {
        let p = partial[j];
        least = min64(least, p.xy);
        events = add64(events, vec2<u32>(p.z, 0u));
        remote = add64(remote, vec2<u32>(p.w, 0u));
    }
    let r = wg_reduce(lid, least, events, remote);
    if lid == 0u {
        let bound = step_bound();
        steplog[ctl.steps % P.log_cap] = LogEntry(ctl.t_min, sub64(bound, vec2<u32>(1u, 0u)), r.a, r.b);
        ctl.t_min = r.min;
        ctl.events = add64(ctl.events, r.a);
        ctl.max_events = max(ctl.max_events, r.a.x);
        ctl.steps += 1u;
    }
}
