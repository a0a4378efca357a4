#!/usr/bin/env python3
"""Writes the SIR step's attribution-by-removal kernels into DIR/<variant>/devs.wgsl
(PDES_WGSL_DIR experiments, issue 32 item 3): copies of the built-in step with one part
removed, so that the GPU time a part takes is what its removal saves per step. A removal
changes what the step computes, so no variant's output is a result; the GPU µs per step
(PDES_GPU_PROFILE's timestamps) is:
- no-close: the step's close (the device-scope barrier, the arrival count, the last
  workgroup's reduction of the 32 sets) replaced by workgroup 0 advancing the control
  block itself without waiting for anyone (a race a timing can bear);
- no-fold: no-close, and no workgroup reduction or atomic folds either;
- no-div: the exact division by 10^12 (12 restoring rounds) replaced by a shift;
- copy: no-fold and no-div, and no rule at all (the compiler then drops the unused
  senders' loads: one load and one store a cell).
The folders are copies of the shader as it is when make.py runs (each results folder
names the commit its variants came from: 80dd3f2 for the first, before the close moved into
the next pass, after which these edits no longer apply). Usage: make.py DIR (from the
repository root)."""
import os
import sys

FILE = "crates/pdes-models/src/devs/shaders/devs.wgsl"
CLOSE = """    // release the folds to every workgroup before arriving
    storageBarrier();
    if lid == 0u { sh_last = select(0u, 1u, atomicAdd(&arrived, 1u) + 1u == P.groups); }
    if workgroupUniformLoad(&sh_last) == 1u {
        // acquire the others' folds
        storageBarrier();
        close_step(lid, t);
    }
"""
ADVANCE = """    if lid == 0u && wid.x == 0u {
        log[ctl.steps % P.log_cap] = LogEntry(t, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
        ctl.t = t + 1u;
        ctl.steps += 1u;
    }
"""
FOLD_START = "    let red = wg_reduce(lid, vec2<u32>(nxt, 0u), kinds.xy, vec2<u32>(kinds.z, messages));"
FOLD_END = "        atomicAdd(&acc[at + ACC_MESSAGES], red.b.y);\n    }\n"
DIV = "    return q;\n}"
RULE_START = "        let bag = pull(x, t);"
RULE_END = "        nxt = when.y;\n"
COPY = """        let bag = pull(x, t);
        messages = bag.x;
        let s = x.me.xy;
        let when = vec2<u32>(t, t + 1u);
        nxt = when.y;
"""


def cut(text, start, end, new):
    i = text.index(start)
    j = text.index(end, i) + len(end)
    return text[:i] + new + text[j:]


def no_close(t):
    assert t.count(CLOSE) == 1
    return t.replace(CLOSE, ADVANCE)


def no_fold(t):
    return cut(no_close(t), FOLD_START, FOLD_END, "    _ = nxt; _ = kinds; _ = messages;\n")


def no_div(t):
    assert t.count(DIV) == 1
    return t.replace(DIV, "    return min(n.y >> 8u, 1000u);\n}")


def copy(t):
    return cut(no_div(no_fold(t)), RULE_START, RULE_END, COPY)


VARIANTS = {"no-close": no_close, "no-fold": no_fold, "no-div": no_div, "copy": copy}

out = sys.argv[1]
text = open(FILE).read()
for name, make in VARIANTS.items():
    os.makedirs(os.path.join(out, name), exist_ok=True)
    open(os.path.join(out, name, "devs.wgsl"), "w").write(make(text))
    print(os.path.join(out, name, "devs.wgsl"))
