#!/usr/bin/env python3
"""Writes variants of the network GPU engine's shaders into DIR/<variant>/<file>
(PDES_WGSL_DIR experiments, issue 55 §2, 2026-11-29 fifth session): what the per-station
statistics' sectors cost a step. Each variant drops writes that change no event's order
(the sums are read by nothing the events use), so the events per step stay those of the
built-in shaders and only the sums come out wrong; only PDES_GPU_PROFILE's µs per step
are read:
- no-live: the Σ max(arrival, warm-up) of the tokens present (ST_LIVE) not kept, and the
  source's words (ST_SOURCE, same sector) not read by a closed network's stations;
- no-stats: no-live, and the departure's busy, sojourn and area sums not kept either;
- no-stats-no-atomic: no-stats, and the announcement a plain store (tokens are lost).
(The first call, at 8184063, ran these on the shaders before the destination moved into
the server's record; `head` in run.sh is then the shaders of a commit given to it.)
The variants edit the shaders as they were at 8184063 (the station record of 160 bytes, the
live sum kept): since cf486bc the record has no live sum, and make.py
stops on the first text it no longer finds. Usage: make.py DIR (from the repository root,
on a checkout of 8184063's shaders)."""
import os
import sys

SRC = "crates/pdes-models/src/network/shaders/"
LIVE = [
    ("net_common.wgsl",
     "    let l = st_at(s, ST_LIVE);\n    seg_count[l] = add128(seg_count[l], max64(t, P.warmup));\n", ""),
    ("net_common.wgsl",
     "    let src = seg_count[st_at(s, ST_SOURCE)];\n",
     "    let src = vec4<u32>(0u);\n"),
    ("net_common.wgsl",
     "    seg_count[st_at(s, ST_SOURCE)] = vec4<u32>(st.src_count, st.last_error_step, 0u);\n", ""),
    ("net_depart.wgsl",
     "    let l = st_at(s, ST_LIVE);\n    seg_count[l] = sub128(seg_count[l], counted_from);\n", ""),
]
STATS = LIVE + [
    ("net_depart.wgsl",
     "    let b = st_at(s, ST_BUSY);\n    let busy = seg_count[b];\n    seg_count[b] = vec4<u32>(\n"
     "        add64(busy.xy, sat_sub64(departure, max64(since, P.warmup))),\n"
     "        add64(busy.zw, vec2<u32>(select(0u, 1u, measured), 0u)),\n    );\n", ""),
    ("net_depart.wgsl",
     "    if measured {\n        let j = st_at(s, ST_SOJOURN);\n", "    if false {\n        let j = st_at(s, ST_SOJOURN);\n"),
]
ATOMIC = [("net_depart.wgsl",
           "    if to != EXIT { link = atomicExchange(&heads[to], token); }",
           "    if to != EXIT { atomicStore(&heads[to], token); }")]
# Occupancy: 46 KB of workgroup memory (kept by a store no step makes) leaves room for at
# most four depart (or arrive) workgroups of 256 threads on an SM's 228 KB: if the pass
# does not slow down, it never had more than 1,024 threads an SM in flight (registers).
PAD = "var<workgroup> sh_pad: array<u32, 11776>;\n"
KEEP = "    if ctl[0].step == 0xfffffff0u {{ sh_pad[{0}] = 1u; }}\n"
PAD_DEPART = [("net_depart.wgsl", "var<workgroup> sh_events: atomic<u32>;\n",
               "var<workgroup> sh_events: atomic<u32>;\n" + PAD),
              ("net_depart.wgsl", "    if lid == 0u { atomicStore(&sh_events, 0u); }\n    workgroupBarrier();\n    let bound = ctl[0].bound;\n    let seg = w / DEPART_SPLIT;",
               "    if lid == 0u { atomicStore(&sh_events, 0u); }\n" + KEEP.format("lid * 40u") + "    workgroupBarrier();\n    let bound = ctl[0].bound;\n    let seg = w / DEPART_SPLIT;")]
PAD_ARRIVE = [("net_arrive.wgsl", "struct Key {", PAD + "struct Key {"),
              ("net_arrive.wgsl", "    let s = w * WG + lid;\n", "    let s = w * WG + lid;\n" + KEEP.format("lid * 40u"))]
VARIANTS = {"no-live": LIVE, "no-stats": STATS, "no-stats-no-atomic": STATS + ATOMIC,
            "pad-depart": PAD_DEPART, "pad-arrive": PAD_ARRIVE}


def main():
    out = sys.argv[1]
    for name, edits in VARIANTS.items():
        texts = {}
        for file, old, new in edits:
            text = texts.get(file) or open(SRC + file).read()
            if old not in text:
                sys.exit(f"{name}: {file} no longer has the text it replaces:\n{old}")
            texts[file] = text.replace(old, new)
        os.makedirs(f"{out}/{name}", exist_ok=True)
        for file, text in texts.items():
            open(f"{out}/{name}/{file}", "w").write(text)
        print(f"{name}: {', '.join(texts)}")


main()
