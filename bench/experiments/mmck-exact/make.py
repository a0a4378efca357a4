#!/usr/bin/env python3
"""Writes exact variants of the M/M/c/k replication shader into DIR/<variant>/mmck.wgsl
(PDES_WGSL_DIR experiments, issue 32 item 1, seventh session): each computes the same
events, draws and tallies as the built-in shader — the run's output must be the same
field for field (device.sh `mmck-exact` prints L and the events beside each time) — with
fewer instructions or no local memory on an event's path:
- hoist: the service time is computed once before the departure/arrival branch (both
  branches draw the same one, draw `services`), not in each: a warp whose replications
  diverge ran it twice;
- regs: the time in each state (`st[n]`) and the waiting ring (`ring[qhead]`) are read and
  written by a select over every slot, so that no array is indexed by a variable and none
  need live in the thread's local memory;
- both: hoist and regs.
Usage: make.py DIR (from the repository root)."""
import os
import sys

FILE = "crates/pdes-models/src/mmck/shaders/mmck.wgsl"

HOIST = [
    ("""        let te = select(next_arr, first_dep, departs);""",
     """        let te = select(next_arr, first_dep, departs);
        let s = ticks(service_draws, services, P.scale);"""),
    ("""            let a = ring[qhead];
            let s = ticks(service_draws, services, P.scale);""",
     """            let a = ring[qhead];"""),
    ("""                // the lowest-numbered idle server, if any, starts its service now
                let s = ticks(service_draws, services, P.scale);""",
     """                // the lowest-numbered idle server, if any, starts its service now"""),
]

REGS = [
    ("""        st[n] = add64(st[n], dt);""",
     """        for (var j = 0u; j < K1; j++) { st[j] = select(st[j], add64(st[j], dt), j == n); }"""),
    ("""            let a = ring[qhead];""",
     """            var a = ring[0];
            for (var j = 1u; j < RING; j++) { a = select(a, ring[j], j == qhead); }"""),
    ("""                    ring[(qhead + qlen) % RING] = t;""",
     """                    let slot = (qhead + qlen) % RING;
                    for (var j = 0u; j < RING; j++) { ring[j] = select(ring[j], t, j == slot); }"""),
]

VARIANTS = {"hoist": HOIST, "regs": REGS, "both": HOIST + REGS}

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
