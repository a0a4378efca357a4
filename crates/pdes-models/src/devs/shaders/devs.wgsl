// devs.wgsl — the flattened Parallel DEVS coordinator of paper 004 (Figs. 5, 6, 8) as one
// compute pass per step over arrays of every cell, one thread per cell. Twin of
// crates/pdes-models/src/devs/flattened.rs and of the rules in mod.rs (sir_step, burn).
// Composed after u64.wgsl and one of the reduction modules (wg_reduce, wg_min).
//
// The paper's four phases (output, route, transition, next time) each read only the state
// at t, so the first three fuse: `step` gives each cell the outputs of its coupled cells,
// computed from their state at t, and its transition, writing the new state to the other
// of two buffers (the host binds them by the parity of the steps taken: `cells_in` holds
// the state at t, `cells_out` receives the next). The fourth, the minimum over every
// cell's next time, needs the whole grid: each workgroup folds its least next time and its
// counts into one of SLOTS sets of words (a step's accumulators) with atomics (min and sums
// of whole numbers: the order does not matter; SLOTS sets so that a 1000² grid's 3,906
// workgroups do not queue on five words), and the NEXT pass reads them at its start: every
// workgroup the SLOTS least next times (its step's time), and one more workgroup, the
// bookkeeper, the counts (the previous step's log entry). No workgroup waits for another
// and no pass ends in one workgroup's reduction (bench/NOTES.md, "SIR without a step's
// close"). Three buffers of accumulators rotate (the host binds them by the pass's
// position mod 3): a pass reads the previous step's (`acc_prev`, read-only, so that its
// loads are cached), folds into its own (`acc`) and clears the next step's (`acc_next`).
// A pass whose step is not due (the next time past the host's limit t_limit) does nothing
// but its books, so the host can queue many steps per submit without knowing when the run
// stops; a one-workgroup `close` pass ends each batch with the same books, and the host
// reads back once per batch.

struct Params {
    cells: u32, rows: u32, cols: u32, kind: u32,      // kind: 0 benchmark, 1 SIR
    moore: u32, wrap: u32, work: u32, log_cap: u32,
    t_limit: u32, pad0: u32, groups: u32, sat: u32,   // sat: ΣI at which min(1, ·) saturates
    infection: u32, contact: u32, recovery: u32, weight: u32,
}

// Read and written by the bookkeeper only (and by the host between batches).
struct Ctl {
    t: u32,      // time of the step after the last logged (NONE: every cell passive)
    steps: u32,  // steps taken and logged (its parity: the buffer that holds the state)
    pad0: u32, pad1: u32,
}

// One step's counts (DevsStep in mod.rs), written by the pass after it.
struct LogEntry {
    t: u32,
    imminent: u32,
    messages: u32,
    n_int: u32,   // δint taken
    n_ext: u32,   // δext taken
    n_conf: u32,  // δconf taken
    pad0: u32, pad1: u32,
}

// A step's accumulators: SLOTS sets of eight words, folded into by every workgroup
// (workgroup w into set w % SLOTS), read by the next pass as two vec4s a set:
// (least next time, δint, δext, δconf), (messages, t, taken, 0) — t and taken in set 0
// only, written by the step's bookkeeper: the step's time, and its index + 1 (0: no step
// folded into these since they were cleared).
const SLOTS: u32 = 32u;
const_assert WG >= SLOTS; // a thread per set
const ACC_LEAST: u32 = 0u;
const ACC_INT: u32 = 1u;
const ACC_EXT: u32 = 2u;
const ACC_CONF: u32 = 3u;
const ACC_MESSAGES: u32 = 4u;
const ACC_T: u32 = 5u;
const ACC_TAKEN: u32 = 6u;

@group(0) @binding(0) var<uniform> P: Params;
// (value, aux, last, next) per cell, one load per neighbour: the state at t (the host binds
// the buffer of the steps' parity) and the state the step writes
@group(0) @binding(1) var<storage, read> cells_in: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> cells_out: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read> acc_prev: array<vec4<u32>, 64>;  // SLOTS × 2
@group(0) @binding(4) var<storage, read_write> acc: array<atomic<u32>, 256>; // SLOTS × 8
@group(0) @binding(5) var<storage, read_write> acc_next: array<vec4<u32>, 64>;
@group(0) @binding(6) var<storage, read_write> ctl: Ctl;
@group(0) @binding(7) var<storage, read_write> log: array<LogEntry>;

// The complement of the least next time folded in so far (~min = max of complements: the
// zero that WebGPU initialises workgroup memory to is max's identity, so no store and
// barrier come before the folds; PDES_GPU_CHECKS_OFF=zero, an experiment, breaks it — and
// verify says so), and the step's (t, due).
var<workgroup> sh_not_least: atomic<u32>;
var<workgroup> sh_step: vec2<u32>;

// (t, due): the previous step's least next time — the minimum of its SLOTS sets, the same
// in every workgroup (no pass writes the accumulators it reads) — and whether this pass's
// step at t is due (1) or not (0); the same in every thread of the workgroup, as the
// barriers that follow require. A thread per set loads its word (one thread loading all
// of them, in a loop, cost 0.6 µs a step more on the H100).
fn step_time(lid: u32) -> vec2<u32> {
    if lid < SLOTS { atomicMax(&sh_not_least, ~acc_prev[2u * lid].x); }
    workgroupBarrier();
    if lid == 0u {
        let t = ~atomicLoad(&sh_not_least);
        sh_step = vec2<u32>(t, select(0u, 1u, t != NONE && t <= P.t_limit));
    }
    return workgroupUniformLoad(&sh_step);
}

// The bookkeeper's duties in a step's pass (one workgroup beside the cells', `due` as
// step_time gives it) and in `close` (due 0): the previous step's log entry (its SLOTS
// sets' counts summed) and the control block's next time, once (the previous step is the
// next to log: its `taken` is ctl.steps + 1); the next step's accumulators cleared where
// the previous step's were folded into (where they were not, this pass follows one with
// no step due, and the next step's accumulators may be the last taken step's, which the
// next batch reads); where the step is due, this step's time and index marked in its own.
// Every thread of the workgroup calls it (wg_reduce's barriers).
fn keep_books(lid: u32, t: u32, due: bool) {
    var a = vec2<u32>(0u, 0u); // (δint, δext)
    var b = vec2<u32>(0u, 0u); // (δconf, messages)
    if lid < SLOTS {
        let w0 = acc_prev[2u * lid];
        let w1 = acc_prev[2u * lid + 1u];
        a = w0.yz;
        b = vec2<u32>(w0.w, w1.x);
    }
    // every total stays below 2^32 (at most 9 messages per cell, 16 M cells), so the 64-bit
    // sums of wg_reduce never carry from one count into the other
    let red = wg_reduce(lid, never(), a, b);
    let mark = acc_prev[1u]; // set 0's (messages, t, taken, 0)
    if lid == 0u && mark.z == ctl.steps + 1u {
        log[ctl.steps % P.log_cap] = LogEntry(mark.y, red.a.x + red.b.x, red.b.y, red.a.x, red.a.y, red.b.x, 0u, 0u);
        ctl.steps += 1u;
        ctl.t = t;
    }
    if lid < SLOTS && mark.z != 0u {
        acc_next[2u * lid] = vec4<u32>(NONE, 0u, 0u, 0u);
        acc_next[2u * lid + 1u] = vec4<u32>(0u, 0u, 0u, 0u);
    }
    if lid == 0u && due {
        // after the log above, ctl.steps is this step's index
        atomicStore(&acc[ACC_T], t);
        atomicStore(&acc[ACC_TAKEN], ctl.steps + 1u);
    }
}

// --- the rules (twins of Rule in mod.rs) ---

// The benchmark's extra arithmetic (burn in mod.rs).
fn burn(x0: u32) -> u32 {
    var x = x0;
    for (var k = 0u; k < P.work; k++) {
        x = x * 1664525u + 1013904223u;
    }
    return x;
}

// floor(n / 10^12) for n < 2^12 · 10^12, by restoring division on 12 quotient bits.
fn div_e12(n0: vec2<u32>) -> u32 {
    var n = n0;
    var d = vec2<u32>(0x28800000u, 0x746a5u); // 10^12 · 2^11
    var q = 0u;
    for (var b = 11i; b >= 0; b--) {
        if !lt64(n, d) {
            n = sub64(n, d);
            q |= 1u << u32(b);
        }
        d = vec2<u32>((d.x >> 1u) | (d.y << 31u), d.y >> 1u);
    }
    return q;
}

// One SIR step in exact thousandths (sir_step in mod.rs).
fn sir_step(v: u32, sum_i: u32) -> u32 {
    let s = v & 0x3ffu;
    let i = (v >> 10u) & 0x3ffu;
    let r = (v >> 20u) & 0x3ffu;
    let q = select(1000000000u, P.contact * P.weight * sum_i, sum_i < P.sat);
    let half = vec2<u32>(0x6a528800u, 116u); // 5 · 10^11
    let n = add64(add64(mul32x32(1000000000u, i * (1000u - P.recovery)), mul32x32(P.infection * s, q)), half);
    let r2 = r + (P.recovery * i + 500u) / 1000u;
    let i2 = min(div_e12(n), 1000u - r2);
    return (1000u - i2 - r2) | (i2 << 10u) | (r2 << 20u);
}

fn output_of(c: vec2<u32>) -> u32 {
    return select(c.x, (c.x >> 10u) & 0x3ffu, P.kind == 1u);
}

fn delta_int(c: vec2<u32>) -> vec2<u32> {
    if P.kind == 1u { return vec2<u32>(sir_step(c.x, 0u), c.y); }
    return vec2<u32>(c.x ^ 1u, burn(c.y));
}

fn delta_conf(c: vec2<u32>, bag: vec2<u32>) -> vec2<u32> {
    if P.kind == 1u { return vec2<u32>(sir_step(c.x, bag.y), c.y); }
    return delta_int(c);
}

// Both rules act only at their own internal events (Rule::external in mod.rs).
fn delta_ext(c: vec2<u32>, elapsed: u32, bag: vec2<u32>) -> vec2<u32> {
    return c;
}

fn ta(c: vec2<u32>) -> u32 {
    return 1u;
}

fn cell_index(wid: vec3<u32>, lid: u32) -> u32 {
    return wid.x * WG + lid;
}

// --- the pass ---

// A sender's (value, aux, last, next) at offset (dr, dc) from (r, col) in the state at t,
// or a cell whose next time is NONE (never imminent) where no cell is coupled there.
fn sender(r: i32, col: i32, dr: i32, dc: i32) -> vec4<u32> {
    let rows = i32(P.rows);
    let cols = i32(P.cols);
    var rr = r + dr;
    var cc = col + dc;
    var coupled = P.moore == 1u || dr == 0 || dc == 0;
    if P.wrap == 1u {
        rr = (rr + rows) % rows;
        cc = (cc + cols) % cols;
    } else {
        coupled = coupled && rr >= 0 && rr < rows && cc >= 0 && cc < cols;
    }
    let s = cells_in[select(0u, u32(rr * cols + cc), coupled)];
    return select(vec4<u32>(0u, 0u, 0u, NONE), s, coupled);
}

// A cell's coupled cells (itself, `me`, included), as they stand at t.
struct Senders {
    nw: vec4<u32>, n: vec4<u32>, ne: vec4<u32>,
    w: vec4<u32>, me: vec4<u32>, e: vec4<u32>,
    sw: vec4<u32>, s: vec4<u32>, se: vec4<u32>,
}

// The coupled cells of cell c, written out so that the nine loads are issued together (in
// a loop each waited for the one before: up to nine memory latencies in a row).
fn senders_of(c: u32) -> Senders {
    let r = i32(c / P.cols);
    let col = i32(c % P.cols);
    return Senders(
        sender(r, col, -1, -1), sender(r, col, -1, 0), sender(r, col, -1, 1),
        sender(r, col, 0, -1), sender(r, col, 0, 0), sender(r, col, 0, 1),
        sender(r, col, 1, -1), sender(r, col, 1, 0), sender(r, col, 1, 1),
    );
}

// The bag with the output of `s` added where it is imminent at t.
fn receive(bag: vec2<u32>, s: vec4<u32>, t: u32) -> vec2<u32> {
    return select(bag, vec2<u32>(bag.x + 1u, bag.y + output_of(s.xy)), s.w == t);
}

// The in-bag at time t: the outputs of the coupled cells that are imminent, each computed
// from the sender's state at t (the output and route phases; a sender's λ is computed by
// each of its receivers, which is cheaper than a pass and an out-bag between them).
fn pull(x: Senders, t: u32) -> vec2<u32> {
    // whole-number sums: the order does not matter
    var bag = vec2<u32>(0u, 0u);
    bag = receive(bag, x.nw, t);
    bag = receive(bag, x.n, t);
    bag = receive(bag, x.ne, t);
    bag = receive(bag, x.w, t);
    bag = receive(bag, x.me, t);
    bag = receive(bag, x.e, t);
    bag = receive(bag, x.sw, t);
    bag = receive(bag, x.s, t);
    bag = receive(bag, x.se, t);
    return bag;
}

// 1–3. step: each cell's in-bag (output and route), then δint / δconf for imminent cells,
// δext for the others with input, last = t and next = t + ta — written to cells_out, every
// cell (acting or not), so that the two buffers can alternate. The cell's senders are
// loaded before the step's time is known: they do not depend on it (the host binds the
// buffer that holds the state at t). The workgroup's minimum next and its counts are
// folded into this pass's accumulators. The pass's last workgroup (P.groups, past the
// cells') is the bookkeeper (keep_books).
@compute @workgroup_size(WG)
fn step(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let c = cell_index(wid, lid);
    let x = senders_of(min(c, P.cells - 1u));
    let st = step_time(lid);
    let t = st.x;
    if wid.x == P.groups {
        keep_books(lid, t, st.y == 1u);
        return;
    }
    if st.y == 0u { return; }
    var nxt = NONE;
    var kinds = vec3<u32>(0u, 0u, 0u); // internal, external, confluent
    var messages = 0u;
    if c < P.cells {
        let bag = pull(x, t);
        let imminent = x.me.w == t;
        messages = bag.x;
        var s = x.me.xy;
        var when = x.me.zw;
        var acted = true;
        if imminent && bag.x == 0u {
            s = delta_int(s);
            kinds.x = 1u;
        } else if imminent {
            s = delta_conf(s, bag);
            kinds.z = 1u;
        } else if bag.x > 0u {
            s = delta_ext(s, t - when.x, bag);
            kinds.y = 1u;
        } else {
            acted = false;
        }
        if acted {
            let a = ta(s);
            when = vec2<u32>(t, select(t + a, NONE, a == NONE));
        }
        nxt = when.y;
        cells_out[c] = vec4<u32>(s, when);
    }
    // per workgroup each count is at most WG · 9, so the 64-bit sums of wg_reduce carry
    // two independent 32-bit counts in their halves
    let red = wg_reduce(lid, vec2<u32>(nxt, 0u), kinds.xy, vec2<u32>(kinds.z, messages));
    // the workgroup's results (wg_reduce's are thread 0's), folded in once per workgroup
    if lid == 0u {
        let at = (wid.x % SLOTS) * 8u;
        atomicMin(&acc[at + ACC_LEAST], red.min.x);
        atomicAdd(&acc[at + ACC_INT], red.a.x);
        atomicAdd(&acc[at + ACC_EXT], red.a.y);
        atomicAdd(&acc[at + ACC_CONF], red.b.x);
        atomicAdd(&acc[at + ACC_MESSAGES], red.b.y);
    }
}

// 4. The batch's close, one workgroup after its last pass: the books of a pass with no
// step due — the last step's log entry and the control block's next time, where the last
// pass took a step.
@compute @workgroup_size(WG)
fn close(@builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let st = step_time(lid);
    keep_books(lid, st.x, false);
}

// The heatmap's words: each cell's state word.
@group(1) @binding(0) var<storage, read_write> display: array<vec2<u32>>;

@compute @workgroup_size(WG)
fn display_main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = gid.x + gid.y * nwg.x * WG; // a 2-D dispatch past one dimension's limit (kit::run_display_pass)
    if c >= arrayLength(&display) { return; }
    // (value, value with its flips undone: XOR the parity of its last transition's time;
    // live.rs's `words` is the CPU twin)
    let v = cells_in[min(c, P.cells - 1u)];
    display[c] = select(vec2<u32>(0u, 0u), vec2<u32>(v.x, v.x ^ (v.z & 1u)), c < P.cells);
}
