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
Usage: make.py DIR (from the repository root)."""
import os
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

VARIANTS = {"books": BOOKS}

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
