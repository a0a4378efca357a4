#!/usr/bin/env python3
"""M/M/c/k in pairs (issue 32, item 1; eleventh session): the event loop as one function
(mmck.wgsl at b56d991, before the replication's state moved into `Rep` and
mmck_replication.wgsl), to time against the split text in the same binary. Variants:
monolith (as it was, the override declared and unused: the binary sets it), monolith-limit (the time limit's test behind the TIME_LIMITED
override, as the split text has it). Each writes mmck.wgsl and an empty
mmck_replication.wgsl (the old text defines what the new part would define again).
Usage: make.py OUT (from the repository root; needs git)."""
import os
import subprocess
import sys

out = sys.argv[1]
old = subprocess.run(["git", "show", "b56d991:crates/pdes-models/src/mmck/shaders/mmck.wgsl"],
                     capture_output=True, text=True, check=True).stdout
test = "if !t_lt(te, limit) { runs = false; break; }"
assert old.count(test) == 1
override = "override TIME_LIMITED: bool = true;\n"
variants = {
    "monolith": override + old,
    "monolith-limit": override + old.replace(test, "if TIME_LIMITED && !t_lt(te, limit) { runs = false; break; }"),
}
for name, text in variants.items():
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "mmck.wgsl"), "w").write(text)
    open(os.path.join(d, "mmck_replication.wgsl"), "w").write("// empty: mmck.wgsl holds the whole event loop\n")
    print(d)
