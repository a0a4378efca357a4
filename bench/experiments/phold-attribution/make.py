#!/usr/bin/env python3
"""Writes PHOLD's attribution-by-removal kernels into DIR/<variant>/phold.wgsl
(PDES_WGSL_DIR experiments, issue 32 item 3): copies of the built-in one-pass step with
one part of an event made nearly free, so that the GPU time a part takes is what its
removal saves per step. Every variant still draws each successor's delay from the same
law, so time advances as before and a step holds about as many events; the sample path
changes, so no variant's output is a result, only its GPU µs per step (PDES_GPU_PROFILE's
timestamps) beside its events and steps:
- no-philox: the event's four random words a multiply-xor hash of (token, hop);
- no-count: the LP's event counter (an atomic add at a scattered address) left out;
- bare: no-philox and no-count;
- scan-twice (attribution by addition, 2026-11-27 sixth session): a second scan of 2^20
  records' first words beside the step's own, folded where it changes nothing — what one
  scan of the tokens costs a step, at most.
- native-products (eighth session; exact, so its output must equal the built-in's): the
  event's Philox block, the delay's scaling and the LP's pick with native 64-bit products
  (the device's SHADER_INT64) instead of 16-bit halves — what M/M/c/k's module uses since
  the seventh session; measured (results 2026-11-28-h100-phold-native-products-2db6fa4)
  and built in (22e4755), so the generator left (its text: commit f8af7d0's make.py).
(A variant without the delay's −ln transform, a uniform delay of the same mean in its
place, processed 1.8× the events of the built-in run in the same simulated time, for a
reason not found; it was left out, as its time per step would not be comparable.)
The folders are copies of the shader as it is when make.py runs (written against
9132582's phold.wgsl). Usage: make.py DIR (from the repository root)."""
import os
import sys

FILE = "crates/pdes-models/src/phold/shaders/phold.wgsl"
WORDS = "    let w = token_words(i, e.w);"
CHEAP_WORDS = """    let h = (i * 747796405u + 2891336453u) ^ (e.w * 2654435761u);
    let w = vec4<u32>(h, h * 3u + 1u, h * 5u + 7u, h * 9u + 3u);"""
COUNT = "    atomicAdd(&counts[2u * e.z], 1u);\n"


def edit(text, old, new):
    assert text.count(old) == 1, old
    return text.replace(old, new)


def no_philox(t):
    return edit(t, WORDS, CHEAP_WORDS)


def no_count(t):
    return edit(t, COUNT, "")


def bare(t):
    return no_count(no_philox(t))


SCAN = "    let t3 = tok[min(i0 + 3u * WG, last)];\n"
SECOND_SCAN = SCAN + """    // a second scan of as many records, folded where it cannot change a result (pad0 is 0)
    let far = i0 + P.tokens / 2u;
    let u = tok[min(far % P.tokens, last)].x ^ tok[min((far + WG) % P.tokens, last)].x
        ^ tok[min((far + 2u * WG) % P.tokens, last)].x ^ tok[min((far + 3u * WG) % P.tokens, last)].x;
"""
END = "    let r = wg_reduce(lid, least,"
END_USED = """    if P.pad0 == 77u && u == 12345u { least = never(); }
    let r = wg_reduce(lid, least,"""


def scan_twice(t):
    return edit(edit(t, SCAN, SECOND_SCAN), END, END_USED)


VARIANTS = {"no-philox": no_philox, "no-count": no_count, "bare": bare, "scan-twice": scan_twice}

out = sys.argv[1]
text = open(FILE).read()
for name, make in VARIANTS.items():
    os.makedirs(os.path.join(out, name), exist_ok=True)
    open(os.path.join(out, name, "phold.wgsl"), "w").write(make(text))
    print(os.path.join(out, name, "phold.wgsl"))
