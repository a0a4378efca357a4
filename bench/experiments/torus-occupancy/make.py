#!/usr/bin/env python3
"""Writes the torus occupancy ladder's kernels into DIR/<variant>/ (PDES_WGSL_DIR
experiments): copies of the built-in scan_depart or arrive pass with an unused shared-memory
array of PAD words added, so that fewer of its workgroups fit on a multiprocessor at once.
If a pass's time does not change until the pad caps it at k workgroups per multiprocessor,
something else (registers) already held it there. Usage: make.py DIR (from the repository
root)."""
import os
import sys

SHADERS = "crates/pdes-models/src/torus/shaders"
# (file, the line after which the pad is touched, the line before which it is read)
PASSES = {
    "depart": ("torus_depart.wgsl", "    let writer = wg == rep * P.n_wg1;", "    let n = atomicLoad(&sh_recv);"),
    "arrive": ("torus_arrive.wgsl", "    let rep = segment_replica(wg);\n    if lid == 0u {\n        let planned",
               "    let r = wg_reduce(lid, m, vec2<u32>(errors, 0u)"),
}
# pad words: with the pass's own ~16.5 KB (scan) or ~1 KB (arrive) of shared memory, about
# 7, 6, 5 and 4 workgroups of the scan fit in an H100 multiprocessor's 228 KB
PADS = [3328, 5120, 7168, 7936]

out = sys.argv[1]
for name, (file, touch, read) in PASSES.items():
    src = open(os.path.join(SHADERS, file)).read()
    for pad in PADS:
        if name == "arrive":
            if pad > 5120:
                # on the H100 the 44 KB variant did not finish within the device call's
                # ten minutes (bench/NOTES.md, "The finish pass folded"): left out
                continue
            pad += 4096  # the arrive pass has no 16 KB list of its own
        text = src
        assert text.count(touch) == 1 and text.count(read) == 1, (file, touch, read)
        text = text.replace(touch, touch.split("\n")[0] + f"\n    occupancy_pad[(lid * 131u + wg) % {pad}u] = lid;" + ("\n" + "\n".join(touch.split("\n")[1:]) if "\n" in touch else ""))
        text = text.replace(read, f"    if occupancy_pad[(lid * 7u + wg) % {pad}u] == 0xfffffffeu {{ seg_count[wg].w = 1u; }}\n" + read)
        text = f"var<workgroup> occupancy_pad: array<u32, {pad}>;\n" + text
        d = os.path.join(out, f"{name}-pad{pad * 4 // 1024}k")
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, file), "w").write(text)
        print(d)
