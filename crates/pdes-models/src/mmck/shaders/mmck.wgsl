// mmck.wgsl — M/M/c/k replications, one or two per thread (paper 003 §4). Twin of
// Replication::advance in crates/pdes-models/src/mmck/mod.rs: the same events in the same order,
// the same random draws, the same integer tallies, so every replication ends bit for bit
// as on the CPU. Composed after u64.wgsl and philox.wgsl, and after the run's shape as
// constants (gpu.rs, `shape_constants`): C servers, capacity K, K1 = K + 1 state times,
// RING = max(K − C, 1) waiting places — so that the servers' arrays are indexed by
// constants once the loops over them unroll, and stay in registers.
//
// Times: the record holds ticks (u64 as word pairs); in the event loop a time is a `Time`,
// from one of two parts composed before this one (times.rs, `Times`): one word, an offset
// from a base the thread moves to its clock at every phase's end (times_offsets.wgsl), where
// the run's laws keep every offset a phase can reach below 2³¹, else a word pair of ticks
// (times_ticks.wgsl). Either way the same ticks: the part's functions convert at the
// record's load and store and at the warm-up's end.
//
// A consumer thread runs one replication's events, or two replications' in turn (PAIRED;
// mmck_replication.wgsl, composed after this part, holds a replication's state and its
// event): it loads the record once per dispatch, runs up to P.max_events events on registers (the waiting ring, where longer than
// SLOTS_IN_REGISTERS, is indexed and may live in the thread's local memory; the state times
// are in workgroup memory, or indexed where more than STATES_IN_WORKGROUP) and stores the
// record back. The record is stored word-major (word w of replication r at
// w · P.reps + r), so that a warp's loads and stores are whole lines:
//   0 t, 2 next arrival, 4 n, 5 queue head, 6 queue length, 8 gaps drawn, 10 services drawn,
//   12 departures, 14 events; 16.. the tally (t_start, area, busy, arrivals, blocked,
//   departures, sojourn, wait, starts: two words each); state_off.. the time with n
//   customers, n = 0..=k; server_off.. per server (departure, its customer's arrival);
//   queue_off.. the waiting customers' arrival times, a ring of k − c slots.
//
// Random numbers: draw i of a stream is word i mod 4 of the Philox block i / 4 (mod.rs,
// `draw`), as a −ln value. Which draw an event takes depends on the events before it, but
// not the draw's value. Where the replications leave most of the GPU's schedulers idle
// (paper 003's 7,168 on an H100: every warp has one to itself, and its time is its stream
// of instructions) a producer thread beside each consumer makes each stream's next draws,
// in order, into a ring in workgroup memory while the consumer runs events, and the two
// meet at a barrier every PHASE events (`fill` says why neither overwrites what the other
// reads): the draws' Philox rounds and logarithms, ~45% of an event's time on its thread,
// run on another scheduler, and only the blocks drawn from are made. Where the replications
// fill the GPU, a second thread per replication would halve those resident, so each
// consumer makes its own draws, keeping two blocks of each stream ahead (bench/NOTES.md,
// "M/M/c/k's draws made beside its events").

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

// The most slots of the waiting ring (RING: the run's capacity less its servers) read and
// written by selects over every slot, so that they stay in registers; more are indexed
// (selects would cost two per slot an event).
const SLOTS_IN_REGISTERS: u32 = 8u;

// Whether the budget's time limit may stop a replication (the window's steps in time);
// false where it is `never` (a run to its end), so that no event tests it (gpu.rs picks
// the pipeline).
override TIME_LIMITED: bool = true;

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

const ONE: vec2<u32> = vec2<u32>(1u, 0u);

// Who makes a replication's draws: its own thread (PRODUCERS = 0: a workgroup of CONSUMERS =
// 64 replications), or a producer thread beside it (PRODUCERS = SLOTS: a warp of 32
// consumers, each running one replication or two (PAIRED), and a producer thread a
// replication, in warps of their own so that each has a scheduler of its own). SLOTS: the
// workgroup's replications. Shape constants from draws.rs (`DrawsMadeBy`), with PHASE, the
// events a replication runs between two of the workgroup's barriers (with its own draws: all of the dispatch's),
// RING_DRAWS, the places of a stream's ring of draws (a power of two, at least 2·PHASE + 3:
// `fill`), and the workgroup memory's sizes (one word where unused).
const GROUP: u32 = CONSUMERS + PRODUCERS;

// The rings, place j of stream s of the replication at place l at (s · RING_DRAWS + j) ·
// SLOTS + l: a warp's lanes never share a bank.
var<workgroup> pool: array<u32, POOL_WORDS>;
// Each replication's next draw of each stream (its index's low word) as a phase began, at
// (parity · 2 + stream) · SLOTS + place: written at the end of phase p into parity
// (p + 1) mod 2, read by the producer during phase p + 1, so that no phase reads what it
// writes (on the H100 the producer's warp read the consumer's cursor while the consumer
// wrote it: lavapipe runs a workgroup's subgroups one after the other and could not show it).
var<workgroup> next_draw: array<u32, CURSOR_WORDS>;
// Replications still running events, and its value as the phase ended (read uniformly).
var<workgroup> running: atomic<u32>;
var<workgroup> still_running: u32;
// The time in each state during the current phase, where a run has at most
// STATES_IN_WORKGROUP (a shape constant; the paper's 6): state j of the replication at
// place l at j · SLOTS + l, the time in state n read, added to and written at its place each
// event, and added to the thread's 64-bit sums at the phase's end. Selects over every
// state in registers (what ran before) cost 3% more at 7,168 replications on the H100, 6%
// at 57,344, 9% at 10⁶ (bench/NOTES.md). More states are indexed in the thread's own
// array (local memory).
var<workgroup> st_shared: array<Time, STATE_WORDS>;

// Philox block `b` of `stream` of replication `rep_no` as −ln values (Q5.27). The
// replication's number, not the thread's, keys the stream, so that a run split over
// several GPUs draws what one GPU draws.
fn block(rep_no: u32, stream: u32, b: vec2<u32>) -> vec4<u32> {
    let w = philox4x32_10(vec4<u32>(b.x, b.y, P.seed_hi, stream), vec2<u32>(rep_no, P.seed_lo));
    return vec4<u32>(neg_ln_q27(w.x), neg_ln_q27(w.y), neg_ln_q27(w.z), neg_ln_q27(w.w));
}

// A thread that makes its own draws (PRODUCERS = 0):
// Draws base .. base + 7 of one stream of one replication as −ln values (Q5.27): `lo` the
// block holding base, `hi` the next one.
struct Draws { base: vec2<u32>, lo: vec4<u32>, hi: vec4<u32> }

fn block_of(i: vec2<u32>) -> vec2<u32> { return vec2<u32>((i.x >> 2u) | (i.y << 30u), i.y >> 2u); }

// The two blocks from the one holding draw `next`.
fn draws_from(rep_no: u32, stream: u32, next: vec2<u32>) -> Draws {
    let b = block_of(next);
    return Draws(vec2<u32>(next.x & ~3u, next.y), block(rep_no, stream, b), block(rep_no, stream, add64(b, ONE)));
}

// Moves on by a block where the next draw (the low word of its index: `next_lo`; at most
// eight past `d.base`) is past `lo`. Called every fourth event, and a stream draws at most
// once per event, so at least five draws are always ahead.
fn refill(d: Draws, rep_no: u32, stream: u32, next_lo: u32) -> Draws {
    let fresh = block(rep_no, stream, add64(block_of(d.base), vec2<u32>(2u, 0u)));
    if next_lo - d.base.x >= 4u {
        return Draws(add64(d.base, vec2<u32>(4u, 0u)), d.hi, fresh);
    }
    return d;
}

// A producer's part of a phase for one stream: the blocks from draw `made` (a multiple
// of 4) while a whole block fits before `next_lo` + RING_DRAWS, where `next_lo` is the
// consumer's next draw; returns the new `made`. Why this never overwrites a draw still to
// be read, nor leaves one unmade: in a phase the consumer reads draws from its next one,
// c, to at most c + PHASE (an event draws at most once from each stream), and the
// producer writes draws below c + RING_DRAWS, whose places differ from those; at the
// phase's end every draw below c + RING_DRAWS − 3 is made, and the next phase reads below
// c + 2·PHASE ≤ c + RING_DRAWS − 3.
fn fill(place: u32, rep_no: u32, stream: u32, made_from: vec2<u32>, next_lo: u32) -> vec2<u32> {
    var made = made_from;
    let mean = select(P.arr_scale, P.scale, stream == 1u);
    let end_lo = next_lo + RING_DRAWS;
    for (var k = 0u; k < RING_DRAWS / 4u; k++) {
        if bitcast<i32>(end_lo - made.x) < 4 { break; }
        let v = block(rep_no, stream, vec2<u32>((made.x >> 2u) | (made.y << 30u), made.y >> 2u));
        let at = (stream * RING_DRAWS + (made.x & (RING_DRAWS - 1u))) * SLOTS + place;
        pool[at] = ring_word(v.x, mean);
        pool[at + SLOTS] = ring_word(v.y, mean);
        pool[at + 2u * SLOTS] = ring_word(v.z, mean);
        pool[at + 3u * SLOTS] = ring_word(v.w, mean);
        made = add64(made, vec2<u32>(4u, 0u));
    }
    return made;
}

// Draw `i_lo` (its index's low word) of `stream` of the replication at `place` as an exponential with
// mean `mean` ticks (rng::scale_q27): from its ring, or from `d` where it makes its own.
fn ticks(place: u32, stream: u32, d: Draws, i_lo: u32, mean: u32) -> Time {
    if PRODUCERS > 0u {
        // the producer's ring word (`ring_word`: with one-word times, the ticks themselves)
        return t_of_ring_word(pool[(stream * RING_DRAWS + (i_lo & (RING_DRAWS - 1u))) * SLOTS + place], mean);
    }
    let off = i_lo - d.base.x;
    // by selects, not a variable index into a vector: that index put the draws in the
    // thread's local memory, a round trip on the path to the next event's time (0.155 →
    // 0.102 s at 7,168 replications on the H100)
    let v = select(d.hi, d.lo, off < 4u);
    let j = off & 3u;
    let q = select(select(v.x, v.y, j == 1u), select(v.z, v.w, j == 3u), j >= 2u);
    return t_of_product(mul32x32(q, mean));
}

@compute @workgroup_size(GROUP)
fn advance(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let consumer = lid < CONSUMERS;
    // a consumer's replications are at places lid and (PAIRED) lid + CONSUMERS, a
    // producer's at its own place; every thread reads a record (a producer needs only its
    // replication's draw counts) and, past the last replication too, meets every barrier
    let first_slot = select(lid - CONSUMERS, lid, consumer);
    let at = wg.x * SLOTS;
    var a: Rep;
    var a_st: StateTimes;
    var a_st_phase: PhaseTimes;
    var a_dep: Servers;
    var a_who: Servers;
    var a_ring: Waiting;
    var b: Rep;
    var b_st: StateTimes;
    var b_st_phase: PhaseTimes;
    var b_dep: Servers;
    var b_who: Servers;
    var b_ring: Waiting;
    load_rep(&a, &a_st, &a_st_phase, &a_dep, &a_who, &a_ring, min(at + first_slot, P.reps - 1u), first_slot, consumer && at + first_slot < P.reps);
    if PAIRED && consumer {
        let slot = lid + CONSUMERS;
        load_rep(&b, &b_st, &b_st_phase, &b_dep, &b_who, &b_ring, min(at + slot, P.reps - 1u), slot, at + slot < P.reps);
    }
    // a producer's next draw to make of each of its replication's streams (from the block
    // of the replication's next)
    var gaps_made = vec2<u32>(a.gaps.x & ~3u, a.gaps.y);
    var services_made = vec2<u32>(a.services.x & ~3u, a.services.y);
    if PRODUCERS > 0u && consumer {
        next_draw[a.slot] = a.gaps.x;
        next_draw[SLOTS + a.slot] = a.services.x;
        if PAIRED {
            next_draw[b.slot] = b.gaps.x;
            next_draw[SLOTS + b.slot] = b.services.x;
        }
    } else if PRODUCERS > 0u {
        gaps_made = fill(a.slot, P.first + a.r, 0u, gaps_made, a.gaps.x);
        services_made = fill(a.slot, P.first + a.r, 1u, services_made, a.services.x);
    }
    if lid == 0u { atomicStore(&running, min(SLOTS, P.reps - at)); }
    workgroupBarrier();
    // every replication stops within P.max_events events: the bound is never what ends this
    for (var phase = 0u; phase <= P.max_events / PHASE + 1u; phase++) {
        if consumer {
            phase_begin(&a);
            if PAIRED {
                phase_begin(&b);
                // both replications' events in one turn while both have one to run, then
                // the rest of the phase of whichever has more
                loop {
                    if !(going(&a) && going(&b)) { break; }
                    event(&a, &a_st_phase, &a_dep, &a_who, &a_ring);
                    event(&b, &b_st_phase, &b_dep, &b_who, &b_ring);
                }
            }
            loop {
                if !going(&a) { break; }
                event(&a, &a_st_phase, &a_dep, &a_who, &a_ring);
            }
            var stopped = phase_end(&a, &a_st, &a_st_phase, &a_dep, &a_who, &a_ring);
            if PAIRED {
                loop {
                    if !going(&b) { break; }
                    event(&b, &b_st_phase, &b_dep, &b_who, &b_ring);
                }
                stopped += phase_end(&b, &b_st, &b_st_phase, &b_dep, &b_who, &b_ring);
            }
            if stopped > 0u { atomicSub(&running, stopped); }
        }
        let now = (phase & 1u) * 2u * SLOTS;
        if PRODUCERS > 0u && consumer {
            // every replication, stopped or not, so that the next phase's producer reads
            // its cursor, not one two phases old
            let next = ((phase + 1u) & 1u) * 2u * SLOTS;
            next_draw[next + a.slot] = a.gaps.x + a.gaps_here;
            next_draw[next + SLOTS + a.slot] = a.services.x + a.services_here;
            if PAIRED {
                next_draw[next + b.slot] = b.gaps.x + b.gaps_here;
                next_draw[next + SLOTS + b.slot] = b.services.x + b.services_here;
            }
        } else if PRODUCERS > 0u {
            // the draws the last phase's events took are made again, further on
            gaps_made = fill(a.slot, P.first + a.r, 0u, gaps_made, next_draw[now + a.slot]);
            services_made = fill(a.slot, P.first + a.r, 1u, services_made, next_draw[now + SLOTS + a.slot]);
        }
        workgroupBarrier();
        if lid == 0u { still_running = atomicLoad(&running); }
        if workgroupUniformLoad(&still_running) == 0u { break; }
    }
    if !consumer { return; }
    if at + a.slot < P.reps { store_rep(&a, &a_st, &a_dep, &a_who, &a_ring); }
    if PAIRED && at + b.slot < P.reps { store_rep(&b, &b_st, &b_dep, &b_who, &b_ring); }
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
fn display_main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 64u; // a 2-D dispatch past one dimension's limit (kit::run_display_pass)
    if i >= arrayLength(&display) { return; }
    display[i] = vec2<u32>(select(0u, rep[4u * P.reps + i], i < P.reps), 0u);
}
