#!/usr/bin/env python3
"""Writes exact variants of the M/M/c/k replication shader into DIR/<variant>/mmck.wgsl
(PDES_WGSL_DIR experiments, issue 32 item 1, seventh session): each computes the same
events, draws and tallies as the built-in shader — the run's output must be the same
field for field (device.sh `mmck-exact` hashes each output less its clocks) — with fewer
instructions on an event's path:
- counters: the event's counters (draws of each stream, departures, arrivals, blocked,
  starts, events) kept as 32-bit counts since the dispatch began and added to their
  64-bit values once, at its end (a dispatch runs at most 32,768 events): one add an
  event each instead of a 64-bit add with its carry;
- books: ∫n dt and ∫min(n, c) dt left out of the event and computed at the dispatch's end
  from the time spent in each state during it, Σ_j j·Δst_j and Σ_j min(j, c)·Δst_j —
  the same sums modulo 2⁶⁴: two 64-bit multiplies an event fewer;
- both.
The first call of the session (aeac7dc, `results/2026-11-27-h100-fit-blocks-mmck-exact-aeac7dc/`)
measured two others: the service time drawn once before the departure/arrival branch
(−13% at 7,168 replications; since built in) and selects instead of variable indices for
the state times and the waiting ring (slower at 57,344: more registers).
Usage: make.py DIR (from the repository root)."""
import os
import sys

FILE = "crates/pdes-models/src/mmck/shaders/mmck.wgsl"

COUNTERS = [
    ("""    var gap_draws = draws_from(r, 0u, gaps);""",
     """    // 32-bit counts since the dispatch began (at most P.max_events events)
    var dg = 0u; var dsv = 0u; var dd = 0u; var ddep = 0u; var darr = 0u; var dblk = 0u; var dst = 0u;
    let left = sub64(P.customers, deps);
    let deps_left = select(select(left.x, 0xffffffffu, left.y != 0u), 0u, !lt64(deps, P.customers));
    let w = sub64(P.warmup, deps);
    let warm_at = select(0u, w.x, w.y == 0u); // dd is at least 1 where it is compared
    var gap_draws = draws_from(r, 0u, gaps);"""),
    ("""        if !lt64(deps, P.customers) { break; }""", """        if dd >= deps_left { break; }"""),
    ("""            case 0u: { gap_draws = refill(gap_draws, r, 0u, gaps); }
            case 2u: { service_draws = refill(service_draws, r, 1u, services); }""",
     """            case 0u: { gap_draws = refill(gap_draws, r, 0u, vec2<u32>(gaps.x + dg, 0u)); }
            case 2u: { service_draws = refill(service_draws, r, 1u, vec2<u32>(services.x + dsv, 0u)); }"""),
    ("""        let s = ticks(service_draws, services, P.scale);""",
     """        let s = ticks(service_draws, vec2<u32>(services.x + dsv, 0u), P.scale);"""),
    ("""            deps = add64(deps, ONE);
            departures = add64(departures, ONE);""", """            dd += 1u;
            ddep += 1u;"""),
    ("""                services = add64(services, ONE);
                starts = add64(starts, ONE);
                wait""", """                dsv += 1u;
                dst += 1u;
                wait"""),
    ("""            if all(deps == P.warmup) {""", """            if dd == warm_at {"""),
    ("""                arrivals = vec2<u32>(0u);
                blocked = vec2<u32>(0u);
                departures = vec2<u32>(0u);""", """                arrivals = vec2<u32>(0u);
                blocked = vec2<u32>(0u);
                departures = vec2<u32>(0u);
                darr = 0u;
                dblk = 0u;
                ddep = 0u;
                dst = 0u;"""),
    ("""            arrivals = add64(arrivals, ONE);""", """            darr += 1u;"""),
    ("""                blocked = add64(blocked, ONE);""", """                dblk += 1u;"""),
    ("""                if free < C {
                    services = add64(services, ONE);
                    starts = add64(starts, ONE);""", """                if free < C {
                    dsv += 1u;
                    dst += 1u;"""),
    ("""            next_arr = add64(t, ticks(gap_draws, gaps, P.arr_scale));
            gaps = add64(gaps, ONE);""", """            next_arr = add64(t, ticks(gap_draws, vec2<u32>(gaps.x + dg, 0u), P.arr_scale));
            dg += 1u;"""),
    ("""        events = add64(events, ONE);
        done_here += 1u;""", """        done_here += 1u;"""),
    ("""    put64(r, 0u, t);""", """    gaps = add64(gaps, vec2<u32>(dg, 0u));
    services = add64(services, vec2<u32>(dsv, 0u));
    deps = add64(deps, vec2<u32>(dd, 0u));
    events = add64(events, vec2<u32>(done_here, 0u));
    arrivals = add64(arrivals, vec2<u32>(darr, 0u));
    blocked = add64(blocked, vec2<u32>(dblk, 0u));
    departures = add64(departures, vec2<u32>(ddep, 0u));
    starts = add64(starts, vec2<u32>(dst, 0u));
    put64(r, 0u, t);"""),
]

BOOKS = [
    ("""    var dep: array<vec2<u32>, C>;""", """    var st0 = st; // the state times as the dispatch found them (zero after a warm-up's end)
    var dep: array<vec2<u32>, C>;"""),
    ("""        area = add64(area, mul64(dt, vec2<u32>(n, 0u)));
        busy = add64(busy, mul64(dt, vec2<u32>(min(n, C), 0u)));
""", ""),
    ("""                for (var j = 0u; j < K1; j++) { st[j] = vec2<u32>(0u); }""",
     """                for (var j = 0u; j < K1; j++) { st[j] = vec2<u32>(0u); st0[j] = vec2<u32>(0u); }"""),
    ("""    put64(r, AREA, area);""", """    for (var j = 0u; j < K1; j++) {
        let spent = sub64(st[j], st0[j]);
        area = add64(area, mul64(spent, vec2<u32>(j, 0u)));
        busy = add64(busy, mul64(spent, vec2<u32>(min(j, C), 0u)));
    }
    put64(r, AREA, area);"""),
]

VARIANTS = {"counters": COUNTERS, "books": BOOKS, "both": COUNTERS + BOOKS}

out = sys.argv[1]
text = open(FILE).read()
for name, edits in VARIANTS.items():
    v = text
    for old, new in edits:
        assert v.count(old) == 1, (name, old)
        v = v.replace(old, new)
    os.makedirs(os.path.join(out, name), exist_ok=True)
    open(os.path.join(out, name, "mmck.wgsl"), "w").write(v)
    print(os.path.join(out, name, "mmck.wgsl"))
