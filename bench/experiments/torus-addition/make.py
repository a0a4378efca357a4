#!/usr/bin/env python3
"""Writes the torus attribution-by-addition kernels into DIR/<variant>/ (PDES_WGSL_DIR
experiments): copies of the built-in scan_depart pass (torus_depart.wgsl) with one of its
parts done twice. The second copy computes what the first did (the step stays exact:
`bash bench/device.sh torus-addition` runs verify --quick with each), so the time it adds
is what that part costs on the pass's chain, measured without changing the simulation:
- plan-twice: the dependent loads that open close_and_plan (the control block, then the
  closed step's accumulator word), once more before it;
- scan-twice: the segment's listing (16 departure times per thread, classify, barrier);
- reduce-twice: the workgroup reduction of the tail (minimum, busy and sojourn sums);
  and its parts: barriers-twice (its two barriers), subgroup-twice (its subgroup operations,
  written inline so that both reduction modules compose); slots-twice (thread 0's serial
  combination of the subgroups' partials) was measured on d733d56 and left out since
  953da7d removed that loop;
- the events' parts (both passes): philox-twice (Philox4x32-10 computed twice per call,
  shaders/philox.wgsl), service-twice (the service transform, its logarithm table read
  included), record-twice (the departing facility's record loaded twice). The second copy
  differs in one input bit and its result is taken only under a condition of probability
  2^-64 per call, which the compiler cannot fold away;
- one more dependent round trip at a point of a chain: arrive-plan-twice (the arrive
  pass's control block, reloaded at an address computed from the first load),
  arrive-record-twice (each arriving token's record, the same way), announce-twice (the
  departure's returning mailbox atomic, once more adding 0); and arrive-reduce-twice (the
  arrive pass's tail reduction).
seg_count[wg].w, which nothing reads, is the sink that keeps a copy's result alive.
The folders are copies of the shaders as they are when make.py runs: regenerate them after
a change to the passes (each results folder names the commit its variants came from).
Usage: make.py DIR (from the repository root)."""
import os
import sys

FILE = "crates/pdes-models/src/torus/shaders/torus_depart.wgsl"

PLAN = "    let planned = close_and_plan(lid, rep, writer);"
SCAN = "    var m = list_departures(wg, lid, c.bound); // the others' least departure"
REDUCE = "    let r = wg_reduce(lid, m, busy, soj);"

VARIANTS = {
    "plan-twice": (PLAN, """    if lid == 0u {
        let c0 = ctl[rep];
        sh_extra = atomicLoad(&step_acc[acc_word(c0.step & 1u, rep, 0u)]) ^ c0.phase;
    }
    if workgroupUniformLoad(&sh_extra) == 0xfffffff0u && lid == 0u { seg_count[wg].w = 1u; }
""" + PLAN),
    "scan-twice": (SCAN, SCAN + """
    storageBarrier();
    workgroupBarrier();
    if lid == 0u { atomicStore(&sh_count, 0u); }
    workgroupBarrier();
    m = min64(m, list_departures(wg, lid, c.bound));"""),
    "reduce-twice": (REDUCE, """    let r_extra = wg_reduce(lid, m, busy, soj);
    if lid == 0u && r_extra.min.x == 0xfffffff0u && r_extra.min.y == 0xfffffff0u { seg_count[wg].w = 1u; }
""" + REDUCE),
    "barriers-twice": (REDUCE, """    workgroupBarrier();
    workgroupBarrier();
""" + REDUCE),
    "subgroup-twice": (REDUCE, """    let x_hi = subgroupMin(m.y);
    let x_lo = subgroupMin(select(NONE, m.x, m.y == x_hi));
    let x_a = subgroupAdd(vec4<u32>(busy.x & 0xffffu, busy.x >> 16u, busy.y & 0xffffu, busy.y >> 16u));
    let x_b = subgroupAdd(vec4<u32>(soj.x & 0xffffu, soj.x >> 16u, soj.y & 0xffffu, soj.y >> 16u));
    let x_e = subgroupExclusiveAdd(1u);
    if x_lo == 0xfffffff0u && x_hi == 0xfffffff0u && x_a.x == 0xfffffff0u && x_b.x == 0xfffffff0u && x_e == 0xfffffff0u { seg_count[wg].w = 1u; }
""" + REDUCE),
}

PHILOX_FILE = "crates/pdes-gpu/shaders/philox.wgsl"
OTHER = {
    "philox-twice": (PHILOX_FILE, "fn philox4x32_10(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {", """fn philox4x32_10(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
    let a = philox_once(counter, key);
    let b = philox_once(counter ^ vec4<u32>(1u, 0u, 0u, 0u), key);
    return select(a, b, a.x == 0x9e3779b9u && b.y == a.z);
}

fn philox_once(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {"""),
    "service-twice": (PHILOX_FILE, "fn service_ticks(word: u32) -> vec2<u32> {", """fn service_ticks(word: u32) -> vec2<u32> {
    let a = service_once(word);
    let b = service_once(word ^ 1u);
    return select(a, b, word == 0x9e3779b9u && a.x == b.y);
}

fn service_once(word: u32) -> vec2<u32> {"""),
    "record-twice": (FILE, "    var st = load_fac(f);", """    var st = load_fac(f);
    let st_x = load_fac(f ^ (t.y >> 31u));
    st.visits = select(st.visits, st_x.visits, st_x.serving == 0xfffffff0u && st.head == 0xfffffff1u);"""),
}

ARRIVE_FILE = "crates/pdes-models/src/torus/shaders/torus_arrive.wgsl"
OTHER.update({
    "arrive-plan-twice": (ARRIVE_FILE, "        let planned = ctl[P.replicas + rep];", """        let planned0 = ctl[P.replicas + rep];
        let planned_x = ctl[P.replicas + rep + (planned0.phase >> 30u)];
        var planned = planned0;
        if planned_x.phase == 0xfffffff0u && planned0.step == 0xfffffff1u { planned.step = 0u; }"""),
    "arrive-record-twice": (ARRIVE_FILE, "        let r = tok[token];", """        let r0 = tok[token];
        let r_x = tok[token ^ (r0.y >> 31u)];
        var r = r0;
        if r_x.w == 0xfffffff0u && r0.z == 0xfffffff1u { r.w = 0u; }"""),
    "arrive-reduce-twice": (ARRIVE_FILE, "    let r = wg_reduce(lid, m, vec2<u32>(errors, 0u), vec2<u32>(0u, 0u));", """    let r_extra = wg_reduce(lid, m, vec2<u32>(errors, 0u), vec2<u32>(0u, 0u));
    if lid == 0u && r_extra.min.x == 0xfffffff0u && r_extra.min.y == 0xfffffff0u { seg_count[wg].w = 1u; }
    let r = wg_reduce(lid, m, vec2<u32>(errors, 0u), vec2<u32>(0u, 0u));"""),
    "announce-twice": (FILE, "    let first = atomicOr(&mail[MAIL * dest + MAIL_MASK], 1u << dir) == 0u;", """    let first0 = atomicOr(&mail[MAIL * dest + MAIL_MASK], 1u << dir);
    let x = atomicOr(&mail[MAIL * dest + MAIL_MASK + (first0 >> 30u)], 0u);
    let first = first0 == 0u || (x == 0xfffffff0u && first0 == 0xfffffff1u);"""),
})

out = sys.argv[1]
src = open(FILE).read()
for name, (anchor, replacement) in VARIANTS.items():
    assert src.count(anchor) == 1, (name, anchor)
    text = "var<workgroup> sh_extra: u32;\n" + src.replace(anchor, replacement)
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "torus_depart.wgsl"), "w").write(text)
    print(d)
for name, (file, anchor, replacement) in OTHER.items():
    text = open(file).read()
    assert text.count(anchor) == 1, (name, anchor)
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, os.path.basename(file)), "w").write(text.replace(anchor, replacement))
    print(d)
