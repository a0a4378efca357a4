#!/usr/bin/env python3
"""Writes exact variants of the M/M/c/k replication shader into DIR/<variant>/mmck.wgsl
(PDES_WGSL_DIR experiments, issue 32 item 1, seventh session): each computes the same
events, draws and tallies as the built-in shader — the run's output must be the same
field for field (device.sh `mmck-exact` hashes each output less its clocks) — with fewer
instructions or registers on an event's path:
- books: ∫n dt and ∫min(n, c) dt left out of the event: both start at zero with the time
  spent in each state (st_j) and grow with it, so at any moment they are Σ_j j·st_j and
  Σ_j min(j, c)·st_j modulo 2⁶⁴ — computed once, at the dispatch's end, from the state
  times: two 64-bit multiplies an event fewer and two 64-bit values fewer to keep.
The session's earlier calls measured the others (results/2026-11-27-h100-fit-blocks-mmck-exact-aeac7dc/,
results/2026-11-27-h100-mmck-exact-5ee0f0a/): the service time drawn once before the
departure/arrival branch (−13% at 7,168 replications) and the counters in 32 bits from the
dispatch's start (−7% more) are built in; selects instead of variable indices for the state
times and the waiting ring, and books kept from a copy of the state times made at the
dispatch's start, were slower at 57,344 (more registers).
- one-start: a departure and an arrival each name the server that starts (or ends) a
  service, its new departure and customer, and one loop after the branch writes them: a
  warp whose replications diverge runs one loop of writes over the servers, not two;
- both: books and one-start.
Measured on the H100 (results/2026-11-27-h100-mmck-exact-8932c52/), books and one-start
together were built in (1a54212). Each variant names the commit whose shader it edits.
- ticks-select: a draw picked from its two blocks by selects, not by a variable index into
  a vector;
- min-select: the earliest departure found by selects, not a branch per server;
- selects: both (on 1a54212). ticks-select was built in (cc08291);
- ring-select, st-select, arrays-select (on cc08291): the waiting ring, the state times, or
  both, read and written by selects over their slots: no array indexed by a variable left
  (the first call's `regs` did this before the draws were picked by selects). The two
  with the state times by selects gave lavapipe a different sample path at c = 8, k = 40
  (right at k = 20; the first call's `regs` form too): not understood, not measured;
- ln-shared (on cc08291): the −ln table (1,025 words) copied into workgroup memory at the
  dispatch's start and read there, not from the storage buffer (its loads cost 16% of an
  event at 7,168 replications, `mmck-attribution`'s no-ln): no change;
- flat (on cc08291): both kinds of event computed as selects, no branch between them (a
  warp whose replications diverge ran the two branches one after the other);
- flat-ring: flat with the waiting ring read and written by selects (built in, 8439a0a,
  for rings of up to 8 places);
- st-small (on 8439a0a): the state times by selects where there are at most 8 of them (the
  paper's 6): their local memory cost 22% of an event at 57,344 replications
  (`mmck-attribution`'s no-tallies on cc08291), nothing at 7,168; built in (a2ff793);
- rng-every-event (on a2ff793): a Philox block every event, the two streams in turn,
  computed in the event's own basic block (no switch around it) and rotated into the draws
  after the event has drawn, so that its dependent rounds may interleave with the event's
  logic: twice the blocks, none waited for at once.
Usage: make.py DIR [VARIANT...] (from the repository root; every variant where none is named)."""
import os
import subprocess
import sys

FILE = "crates/pdes-models/src/mmck/shaders/mmck.wgsl"

BOOKS = [
    ("""        area = add64(area, mul64(dt, vec2<u32>(n, 0u)));
        busy = add64(busy, mul64(dt, vec2<u32>(min(n, C), 0u)));
""", ""),
    ("""    put64(r, AREA, area);""", """    area = vec2<u32>(0u);
    busy = vec2<u32>(0u);
    for (var j = 0u; j < K1; j++) {
        area = add64(area, mul64(st[j], vec2<u32>(j, 0u)));
        busy = add64(busy, mul64(st[j], vec2<u32>(min(j, C), 0u)));
    }
    put64(r, AREA, area);"""),
]

ONE_START = [
    ("""            let a = ring[qhead];
            for (var i = 0u; i < C; i++) {
                if i == server {
                    sojourn = add64(sojourn, sub64(t, who[i]));
                    dep[i] = select(never(), add64(t, s), queued);
                    who[i] = select(who[i], a, queued); // an idle server keeps its last customer's (as on the CPU)
                }
            }
            if queued {""", """            let a = ring[qhead];
            var leaving = who[0];
            for (var i = 1u; i < C; i++) { leaving = select(leaving, who[i], i == server); }
            sojourn = add64(sojourn, sub64(t, leaving));
            changed = server;
            new_dep = select(never(), add64(t, s), queued);
            new_who = select(leaving, a, queued); // an idle server keeps its last customer's (as on the CPU)
            if queued {"""),
    ("""                var free = C;
                for (var i = 0u; i < C; i++) {
                    if free == C && all(dep[i] == never()) {
                        free = i;
                        dep[i] = add64(t, s);
                        who[i] = t;
                    }
                }
                if free < C {""", """                var free = C;
                for (var i = C; i > 0u; i--) {
                    free = select(free, i - 1u, all(dep[i - 1u] == never()));
                }
                changed = free;
                new_dep = add64(t, s);
                new_who = t;
                if free < C {"""),
    ("""        if departs {
            n -= 1u;""", """        // the server whose departure and customer change (C: none), and to what
        var changed = C;
        var new_dep = never();
        var new_who = t;
        if departs {
            n -= 1u;"""),
    ("""            gaps_here += 1u;
        }
        done_here += 1u;""", """            gaps_here += 1u;
        }
        for (var i = 0u; i < C; i++) {
            dep[i] = select(dep[i], new_dep, i == changed);
            who[i] = select(who[i], new_who, i == changed);
        }
        done_here += 1u;"""),
]

TICKS_SELECT = [
    ("""    let q = select(d.hi[off & 3u], d.lo[off & 3u], off < 4u);""",
     """    let v = select(d.hi, d.lo, off < 4u);
    let j = off & 3u;
    let q = select(select(v.x, v.y, j == 1u), select(v.z, v.w, j == 3u), j >= 2u);"""),
]

MIN_SELECT = [
    ("""            if lt64(dep[i], first_dep) { first_dep = dep[i]; server = i; }""",
     """            let earlier = lt64(dep[i], first_dep);
            first_dep = select(first_dep, dep[i], earlier);
            server = select(server, i, earlier);"""),
]

RING_SELECT = [
    ("""            let a = ring[qhead];""",
     """            var a = ring[0];
            for (var j = 1u; j < RING; j++) { a = select(a, ring[j], j == qhead); }"""),
    ("""                    ring[(qhead + qlen) % RING] = t;""",
     """                    let slot = (qhead + qlen) % RING;
                    for (var j = 0u; j < RING; j++) { ring[j] = select(ring[j], t, j == slot); }"""),
]

ST_SELECT = [
    ("""        st[n] = add64(st[n], dt);""",
     """        var in_n = st[0];
        for (var j = 1u; j < K1; j++) { in_n = select(in_n, st[j], j == n); }
        in_n = add64(in_n, dt);
        for (var j = 0u; j < K1; j++) { st[j] = select(st[j], in_n, j == n); }"""),
]

def neg_ln_shared():
    """philox.wgsl's neg_ln_q27 (as of cc08291) renamed, reading the table from `ln_shared`."""
    philox = subprocess.run(["git", "show", "cc08291:crates/pdes-gpu/shaders/philox.wgsl"],
                            check=True, capture_output=True, text=True).stdout
    start = philox.index("fn neg_ln_q27(")
    fn = philox[start:philox.index("\n}\n", start) + 3]
    return fn.replace("neg_ln_q27", "neg_ln_shared").replace("ln_table[", "ln_shared[")


LN_SHARED = [
    ("""@group(0) @binding(3)""", """// the −ln table in workgroup memory, copied from `ln_table` at the dispatch's start
var<workgroup> ln_shared: array<u32, 1025>;

// neg_ln_q27 (philox.wgsl) reading the table from workgroup memory
""" + neg_ln_shared() + """
@group(0) @binding(3)"""),
    ("""    return vec4<u32>(neg_ln_q27(w.x), neg_ln_q27(w.y), neg_ln_q27(w.z), neg_ln_q27(w.w));""",
     """    return vec4<u32>(neg_ln_shared(w.x), neg_ln_shared(w.y), neg_ln_shared(w.z), neg_ln_shared(w.w));"""),
    ("""fn advance(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;""", """fn advance(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    for (var i = lid; i < 1025u; i += 64u) { ln_shared[i] = ln_table[i]; }
    workgroupBarrier();
    let r = gid.x;"""),
]

FLAT = [("        // the server whose departure and customer change (C: none), and to what\n        var changed = C;\n        var new_dep = never();\n        var new_who = t;\n        if departs {\n            n -= 1u;\n            deps_here += 1u;\n            departures_here += 1u;\n            // the next in line, if any, starts on the freed server\n            let queued = qlen > 0u;\n            let a = ring[qhead];\n            var leaving = who[0];\n            for (var i = 1u; i < C; i++) { leaving = select(leaving, who[i], i == server); }\n            sojourn = add64(sojourn, sub64(t, leaving));\n            changed = server;\n            new_dep = select(never(), add64(t, s), queued);\n            new_who = select(leaving, a, queued); // an idle server keeps its last customer's (as on the CPU)\n            if queued {\n                qhead = (qhead + 1u) % RING;\n                qlen -= 1u;\n                services_here += 1u;\n                starts_here += 1u;\n                wait = add64(wait, sub64(t, a));\n            }\n            if deps_here == warm_at {\n                // the warm-up ends: the tally starts again from here\n                t_start = t;\n                arrivals = vec2<u32>(0u);\n                blocked = vec2<u32>(0u);\n                departures = vec2<u32>(0u);\n                arrivals_here = 0u;\n                blocked_here = 0u;\n                departures_here = 0u;\n                starts_here = 0u;\n                sojourn = vec2<u32>(0u);\n                wait = vec2<u32>(0u);\n                starts = vec2<u32>(0u);\n                for (var j = 0u; j < K1; j++) { st[j] = vec2<u32>(0u); }\n            }\n        } else {\n            arrivals_here += 1u;\n            if n == K {\n                blocked_here += 1u;\n            } else {\n                n += 1u;\n                // the lowest-numbered idle server, if any, starts its service now\n                var free = C;\n                for (var i = C; i > 0u; i--) {\n                    free = select(free, i - 1u, all(dep[i - 1u] == never()));\n                }\n                changed = free;\n                new_dep = add64(t, s);\n                new_who = t;\n                if free < C {\n                    services_here += 1u;\n                    starts_here += 1u;\n                } else {\n                    ring[(qhead + qlen) % RING] = t;\n                    qlen += 1u;\n                }\n            }\n            next_arr = add64(t, ticks(gap_draws, vec2<u32>(gaps.x + gaps_here, 0u), P.arr_scale));\n            gaps_here += 1u;\n        }\n",
         "        // both kinds of event as selects, no branch: a warp whose replications diverge ran\n        // one branch after the other; here the two paths' instructions may interleave\n        let arrives = !departs;\n        let admitted = arrives && n != K;\n        let queued = qlen > 0u;\n        let from_queue = departs && queued;\n        var free = C;\n        for (var i = C; i > 0u; i--) {\n            free = select(free, i - 1u, all(dep[i - 1u] == never()));\n        }\n        let to_server = admitted && free < C;\n        let to_queue = admitted && free == C;\n        let a = ring[qhead];\n        var leaving = who[0];\n        for (var i = 1u; i < C; i++) { leaving = select(leaving, who[i], i == server); }\n        sojourn = select(sojourn, add64(sojourn, sub64(t, leaving)), departs);\n        wait = select(wait, add64(wait, sub64(t, a)), from_queue);\n        // the server whose departure and customer change (C: none), and to what\n        let changed = select(select(C, free, admitted), server, departs);\n        let new_dep = select(add64(t, s), never(), departs && !queued);\n        // an idle server keeps its last customer's (as on the CPU)\n        let new_who = select(t, select(leaving, a, queued), departs);\n        if to_queue { ring[(qhead + qlen) % RING] = t; }\n        blocked_here += u32(arrives && n == K);\n        n = n + u32(admitted) - u32(departs);\n        qhead = select(qhead, (qhead + 1u) % RING, from_queue);\n        qlen = qlen + u32(to_queue) - u32(from_queue);\n        deps_here += u32(departs);\n        departures_here += u32(departs);\n        arrivals_here += u32(arrives);\n        services_here += u32(from_queue || to_server);\n        starts_here += u32(from_queue || to_server);\n        next_arr = select(next_arr, add64(t, ticks(gap_draws, vec2<u32>(gaps.x + gaps_here, 0u), P.arr_scale)), arrives);\n        gaps_here += u32(arrives);\n        if departs && deps_here == warm_at {\n            // the warm-up ends: the tally starts again from here\n            t_start = t;\n            arrivals = vec2<u32>(0u);\n            blocked = vec2<u32>(0u);\n            departures = vec2<u32>(0u);\n            arrivals_here = 0u;\n            blocked_here = 0u;\n            departures_here = 0u;\n            starts_here = 0u;\n            sojourn = vec2<u32>(0u);\n            wait = vec2<u32>(0u);\n            starts = vec2<u32>(0u);\n            for (var j = 0u; j < K1; j++) { st[j] = vec2<u32>(0u); }\n        }\n")]

FLAT_RING = FLAT + [
    ("""        let a = ring[qhead];""",
     """        var a = ring[0];
        for (var j = 1u; j < RING; j++) { a = select(a, ring[j], j == qhead); }"""),
    ("""        if to_queue { ring[(qhead + qlen) % RING] = t; }""",
     """        let slot = select(RING, (qhead + qlen) % RING, to_queue);
        for (var j = 0u; j < RING; j++) { ring[j] = select(ring[j], t, j == slot); }"""),
]

ST_SMALL = [
    ("""        st[n] = add64(st[n], dt);""",
     """        if K1 <= RING_IN_REGISTERS {
            var in_n = st[0];
            for (var j = 1u; j < K1; j++) { in_n = select(in_n, st[j], j == n); }
            in_n = add64(in_n, dt);
            for (var j = 0u; j < K1; j++) { st[j] = select(st[j], in_n, j == n); }
        } else {
            st[n] = add64(st[n], dt);
        }"""),
]

RNG_EVERY_EVENT = [
    ("""        switch done_here & 3u {
            case 0u: { gap_draws = refill(gap_draws, r, 0u, vec2<u32>(gaps.x + gaps_here, 0u)); }
            case 2u: { service_draws = refill(service_draws, r, 1u, vec2<u32>(services.x + services_here, 0u)); }
            default: {}
        }
""", ""),
    ("""        t = te;
""", """        t = te;
        // one block an event, the streams in turn (the gaps' on even events), computed
        // beside the event's logic with no branch around it and taken into the draws after
        // the event has drawn: the warp need not wait for Philox's rounds and the −ln at
        // once. A stream moves on by a block where its next draw (as the event found it) is
        // past `lo`; every second event, at most one draw an event: the draws stay ahead.
        let gap_turn = (done_here & 1u) == 0u;
        let turn = pick(service_draws, gap_draws, gap_turn);
        let turn_next = select(services.x + services_here, gaps.x + gaps_here, gap_turn);
        let fresh = block(r, select(1u, 0u, gap_turn), add64(block_of(turn.base), vec2<u32>(2u, 0u)));
"""),
    ("""        done_here += 1u;
    }""", """        let moves_on = turn_next - turn.base.x >= 4u;
        let turned = Draws(
            select(turn.base, add64(turn.base, vec2<u32>(4u, 0u)), moves_on),
            select(turn.lo, turn.hi, moves_on),
            select(turn.hi, fresh, moves_on),
        );
        gap_draws = pick(gap_draws, turned, gap_turn);
        service_draws = pick(turned, service_draws, gap_turn);
        done_here += 1u;
    }"""),
    ("""fn block_of(i: vec2<u32>)""", """fn pick(a: Draws, b: Draws, take_b: bool) -> Draws {
    return Draws(select(a.base, b.base, take_b), select(a.lo, b.lo, take_b), select(a.hi, b.hi, take_b));
}

fn block_of(i: vec2<u32>)"""),
]

# name: (the commit whose shader it edits, the edits)
VARIANTS = {
    "books": ("8932c52", BOOKS),
    "one-start": ("8932c52", ONE_START),
    "both": ("8932c52", BOOKS + ONE_START),
    "ticks-select": ("1a54212", TICKS_SELECT),
    "min-select": ("1a54212", MIN_SELECT),
    "selects": ("1a54212", TICKS_SELECT + MIN_SELECT),
    "ring-select": ("cc08291", RING_SELECT),
    "st-select": ("cc08291", ST_SELECT),
    "arrays-select": ("cc08291", RING_SELECT + ST_SELECT),
    "ln-shared": ("cc08291", LN_SHARED),
    "flat": ("cc08291", FLAT),
    "flat-ring": ("cc08291", FLAT_RING),
    "st-small": ("8439a0a", ST_SMALL),
    "rng-every-event": ("a2ff793", RNG_EVERY_EVENT),
}

out = sys.argv[1]
names = sys.argv[2:] or list(VARIANTS)
for name in names:
    base, edits = VARIANTS[name]
    v = subprocess.run(["git", "show", f"{base}:{FILE}"], check=True, capture_output=True, text=True).stdout
    for old, new in edits:
        assert v.count(old) == 1, (name, old)
        v = v.replace(old, new)
    os.makedirs(os.path.join(out, name), exist_ok=True)
    open(os.path.join(out, name, "mmck.wgsl"), "w").write(v)
    print(os.path.join(out, name, "mmck.wgsl"))
