#!/usr/bin/env python3
"""Writes variants of the M/M/c/k replication shader with its draws made beside its events
(issue 32 item 1, eighth session: a producer warp fills each replication's rings of draws
in workgroup memory while the consumer warp runs PHASE events) into DIR/<variant>/mmck.wgsl,
for PDES_WGSL_DIR. Every variant is exact — the same draws in the same order, only the
phase's length and the rings' size change — so device.sh `mmck-exact` hashes each output
against the built-in's:
- phase30: 30 events a phase and rings of 64 draws (16 KiB of pools: more than a browser
  is sure to give) instead of 14 and 32: half the barriers.
- phase6: 6 events a phase and rings of 16 draws: twice the barriers, a quarter of the pools.
Each results folder names the commit the variants came from.
Usage: make.py DIR (from the repository root)."""
import os
import sys

FILE = "crates/pdes-models/src/mmck/shaders/mmck.wgsl"
PHASE = "const PHASE: u32 = 14u;\nconst RING_DRAWS: u32 = 32u;"
VARIANTS = {
    "phase30": [(PHASE, "const PHASE: u32 = 30u;\nconst RING_DRAWS: u32 = 64u;")],
    "phase6": [(PHASE, "const PHASE: u32 = 6u;\nconst RING_DRAWS: u32 = 16u;")],
}

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
