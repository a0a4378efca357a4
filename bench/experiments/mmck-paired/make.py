#!/usr/bin/env python3
"""Writes variants of the M/M/c/k replication shader into DIR/<variant>/mmck.wgsl, for
PDES_WGSL_DIR (issue 32 item 1, eighth session). Every variant is exact — the same draws
in the same order, the same events and tallies — so device.sh `mmck-paired` hashes each
output against the built-in's; run at 7,168 replications they measure the kernel whose
draws a producer warp makes (gpu.rs `DrawsMadeBy::Producer`), at 57,344 the one whose
replications make their own.

On the shader of b8d0a61 (a producer warp for every consumer warp, always; results
2026-11-28-h100-mmck-paired-3e26b9e): phase30 (30 events a phase, rings of 64 draws:
16 KiB of rings) and phase6 (6 events, rings of 16) against 14 events and rings of 32:
0.042 / 0.045 against 0.044 s at 7,168; at 57,344 0.283 / 0.170 against 0.187 s.

On the shader of 8239ef1 (the draws made by producers up to 16,384 replications):
- bound-per-phase: the dispatch's cap of events checked once a phase (every running
  consumer of a workgroup has run the same events) instead of before every event;
- ring64: 30 events a phase and rings of 64 draws (16 KiB, more than a browser is sure
  to give; producer mode only);
- both.
Measured (results 2026-11-28-h100-mmck-variants-8239ef1): ring64 −5% at 7,168 (built in
for up to 8,192 replications, be0d4a2), bound-per-phase no change.

On the shader of 39ee566 (the books from the state times):
- min-select: the earliest departure by selects from server 0's, not a branch a server;
- st-masked: each state time adds dt or zero (six independent adds), not the time in
  state n picked by a chain of selects, added to and written back by selects.
Measured (results 2026-11-28-h100-mmck-min-select-39ee566): min-select 1–3% faster at
7,168 (built in, f219547), st-masked 14% slower.

On the shader of f219547:
- st-shared: the state times in workgroup memory, the time in state n read, added to and
  written at its index there (no selects over every state), copied from and to registers
  at the dispatch's ends;
- scaled-by-producer: the producer scales each draw to ticks (its stream's mean) and
  stores both words, the consumer reads the ticks (no product or shifts on the event's
  path; the rings twice the memory: producer mode on a device with 33 KiB and more only);
- st-shared-scaled: both.
On the shader of acdb902 (one-word times; ninth session), the time in each state of a
phase in registers again, now one word each, instead of workgroup memory:
- st-registers: the time in state n picked by a chain of selects, added to and written
  back by selects;
- st-masked-word: each state's time adds dt or zero (K1 independent adds).
Usage: make.py DIR (from the repository root)."""
import os
import sys

FILE = "crates/pdes-models/src/mmck/shaders/mmck.wgsl"
CAP = """            for (var e = 0u; e < PHASE; e++) {
                if deps_here >= deps_left { runs = false; break; } // its last departure is behind it
                if done_here >= P.max_events {
                    atomicAdd(&status[0], 1u);
                    runs = false;
                    break;
                }
"""
CAP_PER_PHASE = """            let todo = min(PHASE, P.max_events - done_here);
            for (var e = 0u; e < todo; e++) {
                if deps_here >= deps_left { runs = false; break; } // its last departure is behind it
"""
CAP_END = """            if !runs { atomicSub(&running, 1u); }"""
CAP_END_PER_PHASE = """            if runs && done_here >= P.max_events && deps_here < deps_left {
                atomicAdd(&status[0], 1u);
                runs = false;
            }
            if !runs { atomicSub(&running, 1u); }"""
RING = [
    ("const RING_DRAWS: u32 = 32u;", "const RING_DRAWS: u32 = 64u;\nconst PHASE64: u32 = 30u;"),
    ("var<workgroup> pool: array<u32, POOL_WORDS>;", "var<workgroup> pool: array<u32, 2u * 64u * 32u>;"),
    ("phase <= P.max_events / PHASE + 1u", "phase <= P.max_events / PHASE64 + 1u"),
]
MIN = """                var server = 0u;
                var first_dep = never();
                for (var i = 0u; i < C; i++) {
                    if lt64(dep[i], first_dep) { first_dep = dep[i]; server = i; }
                }"""
MIN_SELECT = """                var server = 0u;
                var first_dep = dep[0];
                for (var i = 1u; i < C; i++) {
                    let earlier = lt64(dep[i], first_dep);
                    first_dep = select(first_dep, dep[i], earlier);
                    server = select(server, i, earlier);
                }"""
ST = """                    var time_in_n = st[0];
                    for (var j = 1u; j < K1; j++) { time_in_n = select(time_in_n, st[j], j == n); }
                    time_in_n = add64(time_in_n, dt);
                    for (var j = 0u; j < K1; j++) { st[j] = select(st[j], time_in_n, j == n); }"""
ST_MASKED = """                    for (var j = 0u; j < K1; j++) { st[j] = add64(st[j], select(vec2<u32>(0u), dt, j == n)); }"""
ST_IF = """                if K1 <= SLOTS_IN_REGISTERS {
""" + ST + """
                } else {
                    st[n] = add64(st[n], dt);
                }"""
ST_SHARED = """                {
                    let at = n * CONSUMERS + lane;
                    st_sh[at] = add64(st_sh[at], dt);
                }"""
ST9 = """                if K1 <= STATES_IN_WORKGROUP {
                    let at = n * CONSUMERS + lane;
                    st_shared[at] = t_add(st_shared[at], dt);
                } else {"""
ST9_REGISTERS = """                if K1 <= STATES_IN_WORKGROUP {
                    var cur = st_phase[0];
                    for (var j = 1u; j < K1; j++) { cur = select(cur, st_phase[j], j == n); }
                    cur = t_add(cur, dt);
                    for (var j = 0u; j < K1; j++) { st_phase[j] = select(st_phase[j], cur, j == n); }
                } else {"""
ST9_MASKED = """                if K1 <= STATES_IN_WORKGROUP {
                    for (var j = 0u; j < K1; j++) { st_phase[j] = t_add(st_phase[j], select(TIME_ZERO, dt, j == n)); }
                } else {"""
FOLD9 = """                if K1 <= STATES_IN_WORKGROUP {
                    let at = j * CONSUMERS + lane;"""
FOLD9_REGISTERS = """                if false {
                    let at = j * CONSUMERS + lane;"""
VARIANTS = {
    "st-registers": [(ST9, ST9_REGISTERS), (FOLD9, FOLD9_REGISTERS)],
    "st-masked-word": [(ST9, ST9_MASKED), (FOLD9, FOLD9_REGISTERS)],
}
EARLIER_3 = {
    "st-shared": [
        ("var<workgroup> still_running: u32;", "var<workgroup> still_running: u32;\nvar<workgroup> st_sh: array<vec2<u32>, K1 * CONSUMERS>;"),
        ("    for (var j = 0u; j < K1; j++) { st[j] = get64(r, P.state_off + 2u * j); }",
         "    for (var j = 0u; j < K1; j++) { st[j] = get64(r, P.state_off + 2u * j); }\n    if consumer { for (var j = 0u; j < K1; j++) { st_sh[j * CONSUMERS + lane] = st[j]; } }"),
        (ST_IF, ST_SHARED),
        ("                for (var j = 0u; j < K1; j++) { st[j] = vec2<u32>(0u); }",
         "                for (var j = 0u; j < K1; j++) { st[j] = vec2<u32>(0u); st_sh[j * CONSUMERS + lane] = vec2<u32>(0u); }"),
        ("    let area = weighted(st, 0u);", "    for (var j = 0u; j < K1; j++) { st[j] = st_sh[j * CONSUMERS + lane]; }\n    let area = weighted(st, 0u);"),
    ],
}
SCALE_FILL = """        pool[at] = v.x;
        pool[at + CONSUMERS] = v.y;
        pool[at + 2u * CONSUMERS] = v.z;
        pool[at + 3u * CONSUMERS] = v.w;"""
SCALE_FILL_NEW = """        let mean = select(P.arr_scale, P.scale, stream == 1u);
        for (var w = 0u; w < 4u; w++) {
            let p = mul32x32(v[w], mean);
            pool[at + w * CONSUMERS] = (p.x >> 27u) | (p.y << 5u);
            pool_hi[at + w * CONSUMERS] = p.y >> 27u;
        }"""
SCALE_TICKS = """    var q: u32;
    if PRODUCERS > 0u {
        q = pool[(stream * RING_DRAWS + (i_lo & (RING_DRAWS - 1u))) * CONSUMERS + lane];
    } else {"""
SCALE_TICKS_NEW = """    var q: u32;
    if PRODUCERS > 0u {
        let at = (stream * RING_DRAWS + (i_lo & (RING_DRAWS - 1u))) * CONSUMERS + lane;
        return vec2<u32>(pool[at], pool_hi[at]);
    } else {"""
EARLIER_3["scaled-by-producer"] = [
    ("var<workgroup> still_running: u32;", "var<workgroup> still_running: u32;\nvar<workgroup> pool_hi: array<u32, POOL_WORDS>;"),
    (SCALE_FILL, SCALE_FILL_NEW),
    (SCALE_TICKS, SCALE_TICKS_NEW),
]
EARLIER_3["st-shared-scaled"] = EARLIER_3["st-shared"] + [
    (SCALE_FILL, SCALE_FILL_NEW),
    (SCALE_TICKS, SCALE_TICKS_NEW),
    ("var<workgroup> st_sh:", "var<workgroup> pool_hi: array<u32, POOL_WORDS>;\nvar<workgroup> st_sh:"),
]
EARLIER_2 = {
    "min-select": [(MIN, MIN_SELECT)],
    "st-masked": [(ST, ST_MASKED)],
}
EARLIER = {
    "bound-per-phase": [(CAP, CAP_PER_PHASE), (CAP_END, CAP_END_PER_PHASE)],
    "ring64": RING + [("for (var e = 0u; e < PHASE; e++)", "for (var e = 0u; e < PHASE64; e++)")],
    "both": RING + [(CAP, CAP_PER_PHASE.replace("min(PHASE,", "min(PHASE64,")), (CAP_END, CAP_END_PER_PHASE)],
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
