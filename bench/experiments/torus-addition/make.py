#!/usr/bin/env python3
"""Writes the torus attribution-by-addition kernels into DIR/<variant>/ (PDES_WGSL_DIR
experiments): copies of the built-in scan_depart pass (torus_depart.wgsl) with one of its
parts done twice. The second copy computes what the first did (the step stays exact:
`bash bench/device.sh torus-addition` runs verify --quick with each), so the time it adds
is what that part costs on the pass's chain, measured without changing the simulation:
- plan-twice: the dependent loads that open close_and_plan (the control block, then the
  closed step's accumulator word), once more before it;
- scan-twice: the segment's listing (16 departure times per thread, classify, barrier);
- reduce-twice: the workgroup reduction of the tail (minimum, busy and sojourn sums).
seg_count[wg].w, which nothing reads, is the sink that keeps a copy's result alive.
Usage: make.py DIR (from the repository root)."""
import os
import sys

FILE = "src/models/torus/shaders/torus_depart.wgsl"

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
}

out = sys.argv[1]
src = open(FILE).read()
for name, (anchor, replacement) in VARIANTS.items():
    assert src.count(anchor) == 1, (name, anchor)
    text = "var<workgroup> sh_extra: u32;\n" + src.replace(anchor, replacement)
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "torus_depart.wgsl"), "w").write(text)
    print(d)
