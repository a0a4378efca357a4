#!/usr/bin/env python3
"""Writes the network GPU engine's attribution-by-removal variants into
DIR/<variant>/<file> (PDES_WGSL_DIR experiments, issue 55 §2's "within 2x of the torus"):
copies of today's shaders with one part of an event replaced by something nearly free, so
that what a pass's time drops by is what that part costs. A removal changes the sample path
(or loses tokens), so no variant's output is a result; only `PDES_GPU_PROFILE`'s µs per step
of the first steps are read:
- no-philox: a visit's words a multiply-xor hash of the same inputs (depart and arrive);
- no-atomic: a departing token's announcement a plain store (tokens are lost: the first
  steps only);
- (no-station-store, the departures' station record not written back, ran past the device
  call's limit at d287571+2: a station whose queue is not written back never stops
  departing; dropped;)
- no-route: every token routed to its own station (no alias column read; the announcement
  to the same station's head).
Usage: make.py DIR (from the repository root)."""
import os
import sys

SRC = "crates/pdes-models/src/network/shaders/"
VARIANTS = {
    "no-philox": ("net_common.wgsl",
                  "    return philox4x32_10(visit_counter(id, visit), visit_key(id));",
                  "    let h = (id.x * 747796405u + 2891336453u) ^ (visit * 2654435761u) ^ id.y;\n"
                  "    return vec4<u32>(h, h * 3u + 1u, h * 5u + 7u, h * 9u + 3u);"),
    "no-atomic": ("net_depart.wgsl",
                  "        tok[token].link = atomicExchange(&heads[to], token);",
                  "        tok[token].link = NONE;\n        atomicStore(&heads[to], token);"),
    "no-route": ("net_depart.wgsl",
                 "    let to = route(s, visit_words(tok[token].id, visits));",
                 "    let to = s;"),
}

def main():
    out = sys.argv[1]
    for name, (file, old, new) in VARIANTS.items():
        text = open(SRC + file).read()
        if old not in text:
            print(f"{name}: {file} no longer has the text it replaces; skipped")
            continue
        os.makedirs(f"{out}/{name}", exist_ok=True)
        open(f"{out}/{name}/{file}", "w").write(text.replace(old, new))
        print(f"{name}: {out}/{name}/{file}")

main()
