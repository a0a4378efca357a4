// mmck.wgsl — M/M/c/k replications, one per thread (paper 003 §4). Twin of
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
// A consumer thread runs one replication's events: it loads the record once per dispatch,
// runs up to P.max_events events on registers (the waiting ring, where longer than
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

// Params, the bindings 0–2, get64/put64 and block(): mmck_common.wgsl, composed before.
@group(0) @binding(3) var<storage, read_write> status: array<atomic<u32>>; // [0]: replications stopped by max_events

// The most slots of the waiting ring (RING: the run's capacity less its servers) read and
// written by selects over every slot, so that they stay in registers; more are indexed
// (selects would cost two per slot an event).
const SLOTS_IN_REGISTERS: u32 = 8u;

// Whether the budget's time limit may stop a replication (the window's steps and `run`'s
// chunks in time); false where it is `never` (a run to its end), so that no event tests
// it (gpu.rs picks the pipeline).
override TIME_LIMITED: bool = true;

const ONE: vec2<u32> = vec2<u32>(1u, 0u);

// Who makes a replication's draws: its own thread (PRODUCERS = 0: a workgroup of CONSUMERS =
// 64 replications), or a producer thread beside it (PRODUCERS = 32: a warp of 32 consumers
// and a warp of 32 producers, whole warps apart so that each has a scheduler of its own).
// Shape constants from draws.rs (`DrawsMadeBy`), with PHASE, the events a consumer runs
// between two of the workgroup's barriers (with its own draws: all of the dispatch's),
// RING_DRAWS, the places of a stream's ring of draws (a power of two, at least 2·PHASE + 3:
// `fill`), and the workgroup memory's sizes (one word where unused).
const GROUP: u32 = CONSUMERS + PRODUCERS;

// The rings, place j of stream s of consumer l at (s · RING_DRAWS + j) · CONSUMERS + l: a
// warp's lanes never share a bank.
var<workgroup> pool: array<u32, POOL_WORDS>;
// Each consumer's next draw of each stream (its index's low word) as a phase began, at
// (parity · 2 + stream) · CONSUMERS + lane: written at the end of phase p into parity
// (p + 1) mod 2, read by the producer during phase p + 1, so that no phase reads what it
// writes (on the H100 the producer's warp read the consumer's cursor while the consumer
// wrote it: lavapipe runs a workgroup's subgroups one after the other and could not show it).
var<workgroup> next_draw: array<u32, CURSOR_WORDS>;
// Consumers still running events, and its value as the phase ended (read uniformly).
var<workgroup> running: atomic<u32>;
var<workgroup> still_running: u32;
// The time in each state during the current phase, where a run has at most
// STATES_IN_WORKGROUP (a shape constant; the paper's 6): state j of consumer l at
// j · CONSUMERS + l, the time in state n read, added to and written at its place each
// event, and added to the thread's 64-bit sums at the phase's end. Selects over every
// state in registers (what ran before) cost 3% more at 7,168 replications on the H100, 6%
// at 57,344, 9% at 10⁶ (bench/NOTES.md). More states are indexed in the thread's own
// array (local memory).
var<workgroup> st_shared: array<Time, STATE_WORDS>;

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
fn fill(lane: u32, rep_no: u32, stream: u32, made_from: vec2<u32>, next_lo: u32) -> vec2<u32> {
    var made = made_from;
    let mean = select(P.arr_scale, P.scale, stream == 1u);
    let end_lo = next_lo + RING_DRAWS;
    for (var k = 0u; k < RING_DRAWS / 4u; k++) {
        if bitcast<i32>(end_lo - made.x) < 4 { break; }
        let v = block(rep_no, stream, vec2<u32>((made.x >> 2u) | (made.y << 30u), made.y >> 2u));
        let at = (stream * RING_DRAWS + (made.x & (RING_DRAWS - 1u))) * CONSUMERS + lane;
        pool[at] = ring_word(v.x, mean);
        pool[at + CONSUMERS] = ring_word(v.y, mean);
        pool[at + 2u * CONSUMERS] = ring_word(v.z, mean);
        pool[at + 3u * CONSUMERS] = ring_word(v.w, mean);
        made = add64(made, vec2<u32>(4u, 0u));
    }
    return made;
}

// Draw `i_lo` (its index's low word) of `stream` of consumer `lane` as an exponential with
// mean `mean` ticks (rng::scale_q27): from its ring, or from `d` where it makes its own.
fn ticks(lane: u32, stream: u32, d: Draws, i_lo: u32, mean: u32) -> Time {
    if PRODUCERS > 0u {
        // the producer's ring word (`ring_word`: with one-word times, the ticks themselves)
        return t_of_ring_word(pool[(stream * RING_DRAWS + (i_lo & (RING_DRAWS - 1u))) * CONSUMERS + lane], mean);
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

// The customers waiting where n are in the system: those the servers do not hold. A server
// is idle only where nobody waits (an arrival takes an idle server, a departure the queue's
// head), so the queue's length is n − min(n, c), not kept an event (the record holds it
// for the CPU).
fn waiting(n: u32) -> u32 { return max(n, C) - C; }

// Σ (t − a) over the n customers in the system at t (xy) and over those waiting (zw), in
// ticks: a busy server's customer (its departure is not `never`) arrived at `who`, the
// ring's `waiting(n)` places from `qhead` hold the waiting ones' arrivals (times from `base`).
// With the time in each state this gives the sojourn and waiting sums without a sum an
// event (`advance`, the books).
fn ages(base: vec2<u32>, t: Time, dep: array<Time, C>, who: array<Time, C>, ring: array<Time, RING>, qhead: u32, n: u32) -> vec4<u32> {
    let qlen = waiting(n);
    let now = t_to(base, t);
    var waiting = vec2<u32>(0u);
    for (var j = 0u; j < RING; j++) {
        let held = (j + RING - qhead) % RING < qlen;
        waiting = select(waiting, add64(waiting, sub64(now, t_to_past(base, ring[j]))), held);
    }
    var all_in = waiting;
    for (var i = 0u; i < C; i++) {
        all_in = select(all_in, add64(all_in, sub64(now, t_to_past(base, who[i]))), !t_is_never(dep[i]));
    }
    return vec4<u32>(all_in, waiting);
}

// Σ_j (j − min(j, past)) · st_j modulo 2⁶⁴: ∫n dt for past = 0, ∫(waiting customers) dt for
// past = C, over the time the state times cover.
fn weighted(st: array<vec2<u32>, K1>, past: u32) -> vec2<u32> {
    var sum = vec2<u32>(0u);
    for (var j = 0u; j < K1; j++) {
        sum = add64(sum, mul64(st[j], vec2<u32>(j - min(j, past), 0u)));
    }
    return sum;
}

@compute @workgroup_size(GROUP)
fn advance(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let consumer = lid < CONSUMERS;
    let lane = select(lid - CONSUMERS, lid, consumer); // a producer's: its consumer's
    // every thread reads a record (a producer needs only its consumer's draw counts) and,
    // past the last replication too, meets every barrier
    let r = min(wg.x * CONSUMERS + lane, P.reps - 1u);
    let real = wg.x * CONSUMERS + lane < P.reps;
    // the times (`Time`: times_offsets.wgsl or times_ticks.wgsl) from `base`, in ticks
    let t_then = get64(r, 0u);
    var base = t_base(t_then);
    var t = t_from(base, t_then);
    var next_arr = t_from(base, get64(r, 2u));
    var limit = t_limit(base, P.limit);
    var n = rep[4u * P.reps + r];
    var qhead = rep[5u * P.reps + r];
    var gaps = get64(r, 8u);
    var services = get64(r, 10u);
    var deps = get64(r, 12u);
    var events = get64(r, 14u);
    var t_start = get64(r, T_START);
    var arrivals = get64(r, ARRIVALS);
    var blocked = get64(r, BLOCKED);
    var departures = get64(r, DEPARTURES);
    let sojourn_then = get64(r, SOJOURN);
    let wait_then = get64(r, WAIT);
    var starts = get64(r, STARTS);
    // the time in each state in ticks (st), and what the phase has added to each (in
    // workgroup memory, or indexed in `st_phase`): a duration of a phase fits a `Time`
    var st: array<vec2<u32>, K1>;
    for (var j = 0u; j < K1; j++) { st[j] = get64(r, P.state_off + 2u * j); }
    var st_phase: array<Time, K1>;
    if K1 <= STATES_IN_WORKGROUP && consumer {
        for (var j = 0u; j < K1; j++) { st_shared[j * CONSUMERS + lane] = TIME_ZERO; }
    }
    var dep: array<Time, C>;
    var who: array<Time, C>;
    for (var i = 0u; i < C; i++) {
        dep[i] = t_from(base, get64(r, P.server_off + 4u * i));
        who[i] = t_from_past(base, get64(r, P.server_off + 4u * i + 2u));
    }
    var ring: array<Time, RING>;
    for (var j = 0u; j < RING; j++) { ring[j] = t_from_past(base, get64(r, P.queue_off + 2u * j)); }
    // The event's counters count in 32 bits from the dispatch's start (at most
    // P.max_events ≤ 32,768 events) and are added to their 64-bit values at its end: one
    // add an event each, not a 64-bit add and its carry (−7% at 7,168 replications). The
    // draws' indices need only their low words inside the loop (`ticks`, `refill`).
    var gaps_here = 0u;
    var services_here = 0u;
    var deps_here = 0u;
    // the tally's arrivals, departures and service starts are the gaps, departures and
    // services counted from these (the counts at the warm-up's end): three adds an event
    // fewer
    var gaps_tallied_from = 0u;
    var deps_tallied_from = 0u;
    var services_tallied_from = 0u;
    // and the blocked arrivals are those not admitted: arrivals − (n's rise + departures)
    // since the same point, where n was this (one count an event fewer)
    var n_tallied_from = n;
    // departures still to come (all 32 bits' worth where more), and the departure at which
    // the warm-up ends, counted from here (0 where it is not ahead in this dispatch: only a
    // warm_at above the departures so far is a stop)
    let left = sub64(P.customers, deps);
    let deps_left = select(select(left.x, 0xffffffffu, left.y != 0u), 0u, !lt64(deps, P.customers));
    let warmup_left = sub64(P.warmup, deps);
    let warm_at = select(0u, warmup_left.x, warmup_left.y == 0u);
    var done_here = 0u;
    // a thread's own draws (PRODUCERS = 0), or a producer's next draw to make of each of
    // its consumer's streams (from the block of the consumer's next)
    var gap_draws: Draws;
    var service_draws: Draws;
    var gaps_made = vec2<u32>(gaps.x & ~3u, gaps.y);
    var services_made = vec2<u32>(services.x & ~3u, services.y);
    if PRODUCERS == 0u {
        gap_draws = draws_from(P.first + r, 0u, gaps);
        service_draws = draws_from(P.first + r, 1u, services);
    } else if consumer {
        next_draw[lane] = gaps.x;
        next_draw[CONSUMERS + lane] = services.x;
    } else {
        gaps_made = fill(lane, P.first + r, 0u, gaps_made, gaps.x);
        services_made = fill(lane, P.first + r, 1u, services_made, services.x);
    }
    if lid == 0u { atomicStore(&running, min(CONSUMERS, P.reps - wg.x * CONSUMERS)); }
    var runs = consumer && real;
    // The books: the sums of sojourn and waiting times are not kept an event (removing them
    // saved 7% of an event at 7,168 replications on the H100; found this way instead, 2.5%
    // at 57,344, nothing measurable at 7,168) but from the time in each state. Over
    // the time from t0 to t, Σ (departure − arrival) over the departures is ∫n dt plus the
    // ages at t0 of those then in the system less the ages at t of those in it at t (each
    // customer's stay, cut to [t0, t], counted once); the same holds for the waits, the
    // customers starting service from the queue, with ∫(n − c)⁺ dt and the waiting ones'
    // ages. Exact in integers, so modulo 2⁶⁴ the CPU's sums bit for bit. Here the parts
    // known at t0; at the warm-up's end (sums and state times back to zero) again.
    let ages_then = ages(base, t, dep, who, ring, qhead, n);
    var sojourn_base = add64(sub64(sojourn_then, weighted(st, 0u)), ages_then.xy);
    var wait_base = add64(sub64(wait_then, weighted(st, C)), ages_then.zw);
    workgroupBarrier();
    // every consumer stops within P.max_events events: the bound is never what ends this
    for (var phase = 0u; phase <= P.max_events / PHASE + 1u; phase++) {
        if runs {
            // The phase's events stop at the dispatch's cap, at the departure that ends the
            // warm-up (where it is ahead) and at the last: one test of the departures an
            // event, and the loop's count, where there were three tests (the cap and the
            // warm-up's end tested apart)
            let todo = min(PHASE, P.max_events - done_here);
            let deps_from = deps_here;
            let stop_at = select(deps_left, min(deps_left, warm_at), warm_at > deps_here);
            var ran = 0u;
            loop {
                if ran >= todo || deps_here == stop_at { break; }
                if PRODUCERS == 0u {
                    // a warp's threads compute their blocks together, at the same events
                    // (the gaps' at events ≡ 0 mod 4, the services' at ≡ 2), not whenever
                    // one of them runs out (which, over 32 threads, is nearly every event)
                    switch (done_here + ran) & 3u {
                        case 0u: { gap_draws = refill(gap_draws, P.first + r, 0u, gaps.x + gaps_here); }
                        case 2u: { service_draws = refill(service_draws, P.first + r, 1u, services.x + services_here); }
                        default: {}
                    }
                }
                // the earliest departure (the lowest-numbered server of equal ones), by
                // selects: no branch a server (1–3% at 7,168 replications on the H100)
                var server = 0u;
                var first_dep = dep[0];
                for (var i = 1u; i < C; i++) {
                    let earlier = t_lt(dep[i], first_dep);
                    first_dep = select(first_dep, dep[i], earlier);
                    server = select(server, i, earlier);
                }
                let departs = !t_lt(next_arr, first_dep);
                let te = select(next_arr, first_dep, departs);
                // the next service time: a departure that frees a server to the queue's head and an
                // arrival that finds one idle both draw this one, so a warp whose replications
                // diverge computes it once, not once in each branch (−13% at 7,168 replications)
                let s = ticks(lane, 1u, service_draws, services.x + services_here, P.scale);
                if TIME_LIMITED && !t_lt(te, limit) { runs = false; break; }
                let dt = t_sub(te, t);
                // the time in state n
                if K1 <= STATES_IN_WORKGROUP {
                    let at = n * CONSUMERS + lane;
                    st_shared[at] = t_add(st_shared[at], dt);
                } else {
                    st_phase[n] = t_add(st_phase[n], dt);
                }
                t = te;
                // both kinds of event as selects, no branch: a warp whose replications diverge ran
                // one branch after the other; here the two paths' instructions may interleave
                // (0.102 → 0.095 s at 7,168 replications on the H100)
                let arrives = !departs;
                let admitted = arrives && n != K;
                let queued = n > C; // waiting(n) > 0
                let from_queue = departs && queued;
                var free = C;
                for (var i = C; i > 0u; i--) {
                    free = select(free, i - 1u, t_is_never(dep[i - 1u]));
                }
                // a server is idle where fewer than c are in the system (`waiting`): the test
                // of n, not of the search's result, off the servers' chain
                let to_server = admitted && n < C;
                let to_queue = admitted && n >= C;
                // the queue's head; a short ring by selects over its slots, so that it stays in
                // registers (0.095 → 0.089 s at 7,168 replications with the write below, −4% at
                // 57,344), a long one by its index: selects would cost two per slot an event
                var a: Time;
                if RING <= SLOTS_IN_REGISTERS {
                    a = ring[0];
                    for (var j = 1u; j < RING; j++) { a = select(a, ring[j], j == qhead); }
                } else {
                    a = ring[qhead];
                }
                // the server whose departure and customer change (C: none), and to what. A
                // server left idle gets the queue's head's slot as its customer's arrival:
                // nothing reads an idle server's (`ages` skips it, the record stores zero,
                // as on the CPU, and the next customer it takes overwrites it), so one
                // compare a server serves both writes
                let changed = select(select(C, free, admitted), server, departs);
                let new_dep = select(t_add(t, s), t_never(), departs && !queued);
                let new_who = select(t, a, departs);
                let slot = (qhead + n - C) % RING; // where n ≥ c: read only then
                if RING <= SLOTS_IN_REGISTERS {
                    for (var j = 0u; j < RING; j++) { ring[j] = select(ring[j], t, to_queue && j == slot); }
                } else if to_queue {
                    ring[slot] = t;
                }
                n = n + u32(admitted) - u32(departs);
                qhead = select(qhead, (qhead + 1u) % RING, from_queue);
                deps_here += u32(departs);
                services_here += u32(from_queue || to_server);
                next_arr = select(next_arr, t_add(t, ticks(lane, 0u, gap_draws, gaps.x + gaps_here, P.arr_scale)), arrives);
                gaps_here += u32(arrives);
                // one loop of writes over the servers for both branches: a warp whose replications
                // diverge runs it once, not a loop in each branch (with the books at the end, −12% at
                // 7,168 replications and −18% at 57,344)
                for (var i = 0u; i < C; i++) {
                    let here = i == changed;
                    dep[i] = select(dep[i], new_dep, here);
                    who[i] = select(who[i], new_who, here);
                }
                ran += 1u;
            }
            done_here += ran;
            // The phase's end: its time in each state into the 64-bit sums, and the times'
            // base to the clock (with one-word times; a word pair's base stays 0)
            for (var j = 0u; j < K1; j++) {
                if K1 <= STATES_IN_WORKGROUP {
                    let at = j * CONSUMERS + lane;
                    st[j] = add64(st[j], t_wide(st_shared[at]));
                    st_shared[at] = TIME_ZERO;
                } else {
                    st[j] = add64(st[j], t_wide(st_phase[j]));
                    st_phase[j] = TIME_ZERO;
                }
            }
            let by = t_shift(t);
            base = add64(base, t_wide(by));
            t = t_rebase(t, by);
            next_arr = t_rebase(next_arr, by);
            for (var i = 0u; i < C; i++) {
                dep[i] = t_rebase(dep[i], by);
                who[i] = t_rebase_past(who[i], by);
            }
            for (var j = 0u; j < RING; j++) { ring[j] = t_rebase_past(ring[j], by); }
            limit = t_limit(base, P.limit);
            if deps_from < warm_at && deps_here == warm_at {
                // the warm-up ended at the last event: the tally starts again from here.
                // Out of the event loop, which stops for it (the rest of the phase's events
                // go to the next phase): a branch in every event, never taken but once,
                // cost 7% at 7,168 replications on the H100
                t_start = t_to(base, t);
                arrivals = vec2<u32>(0u);
                blocked = vec2<u32>(0u);
                departures = vec2<u32>(0u);
                n_tallied_from = n;
                gaps_tallied_from = gaps_here;
                deps_tallied_from = deps_here;
                services_tallied_from = services_here;
                starts = vec2<u32>(0u);
                for (var j = 0u; j < K1; j++) { st[j] = vec2<u32>(0u); }
                let ages_now = ages(base, t, dep, who, ring, qhead, n);
                sojourn_base = ages_now.xy;
                wait_base = ages_now.zw;
            }
            runs = runs && deps_here < deps_left;
            if runs && done_here >= P.max_events {
                // stopped by the dispatch's cap with events to run: another dispatch is due
                atomicAdd(&status[0], 1u);
                runs = false;
            }
            if !runs { atomicSub(&running, 1u); }
        }
        let now = (phase & 1u) * 2u * CONSUMERS;
        if PRODUCERS > 0u && consumer {
            // every consumer, stopped or not, so that the next phase's producer reads its
            // cursor, not one two phases old
            let next = ((phase + 1u) & 1u) * 2u * CONSUMERS;
            next_draw[next + lane] = gaps.x + gaps_here;
            next_draw[next + CONSUMERS + lane] = services.x + services_here;
        } else if PRODUCERS > 0u {
            // the draws the last phase's events took are made again, further on
            gaps_made = fill(lane, P.first + r, 0u, gaps_made, next_draw[now + lane]);
            services_made = fill(lane, P.first + r, 1u, services_made, next_draw[now + CONSUMERS + lane]);
        }
        workgroupBarrier();
        if lid == 0u { still_running = atomicLoad(&running); }
        if workgroupUniformLoad(&still_running) == 0u { break; }
    }
    if !(consumer && real) { return; }
    gaps = add64(gaps, vec2<u32>(gaps_here, 0u));
    services = add64(services, vec2<u32>(services_here, 0u));
    deps = add64(deps, vec2<u32>(deps_here, 0u));
    events = add64(events, vec2<u32>(done_here, 0u));
    arrivals = add64(arrivals, vec2<u32>(gaps_here - gaps_tallied_from, 0u));
    let admitted = n - n_tallied_from + (deps_here - deps_tallied_from);
    blocked = add64(blocked, vec2<u32>(gaps_here - gaps_tallied_from - admitted, 0u));
    departures = add64(departures, vec2<u32>(deps_here - deps_tallied_from, 0u));
    starts = add64(starts, vec2<u32>(services_here - services_tallied_from, 0u));
    put64(r, 0u, t_to(base, t));
    put64(r, 2u, t_to(base, next_arr));
    rep[4u * P.reps + r] = n;
    rep[5u * P.reps + r] = qhead;
    rep[6u * P.reps + r] = waiting(n);
    put64(r, 8u, gaps);
    put64(r, 10u, services);
    put64(r, 12u, deps);
    put64(r, 14u, events);
    put64(r, T_START, t_start);
    // ∫n dt and ∫min(n, c) dt start at zero with the time in each state (st) and grow
    // with it, so they are Σ_j j·st_j and Σ_j min(j, c)·st_j modulo 2⁶⁴ at any moment, the
    // CPU's per-event sums exactly: computed here, not two 64-bit products an event (every
    // phase that ran has added its states' times to st)
    let area = weighted(st, 0u);
    let queue_area = weighted(st, C);
    put64(r, AREA, area);
    put64(r, BUSY, sub64(area, queue_area));
    let ages_now = ages(base, t, dep, who, ring, qhead, n);
    put64(r, SOJOURN, sub64(add64(sojourn_base, area), ages_now.xy));
    put64(r, WAIT, sub64(add64(wait_base, queue_area), ages_now.zw));
    put64(r, ARRIVALS, arrivals);
    put64(r, BLOCKED, blocked);
    put64(r, DEPARTURES, departures);
    put64(r, STARTS, starts);
    for (var j = 0u; j < K1; j++) { put64(r, P.state_off + 2u * j, st[j]); }
    for (var i = 0u; i < C; i++) {
        let idle = t_is_never(dep[i]);
        put64(r, P.server_off + 4u * i, t_to(base, dep[i]));
        // an idle server has no customer: its arrival is stored as zero (as on the CPU)
        put64(r, P.server_off + 4u * i + 2u, select(t_to_past(base, who[i]), vec2<u32>(0u), idle));
    }
    for (var j = 0u; j < RING; j++) { put64(r, P.queue_off + 2u * j, t_to_past(base, ring[j])); }
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
