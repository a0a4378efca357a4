#!/usr/bin/env python3
"""Writes two timing-only variants of the M/M/c/k shader into DIR/<variant>/mmck.wgsl
(PDES_WGSL_DIR experiments, issue 32 item 1, twelfth session; measured on e08a5c2's shader,
bench/NOTES.md, "M/M/c/k's state times on the producer: not built"). Neither variant's
output is a result (the books are wrong); only the time per event is:
- log-only: the consumer writes each event's (time, state before it) to a log in workgroup
  memory (two phases' worth, by the phase's parity) instead of its read-add-write of the
  time in that state: what the consumer's event would cost with the books on the producer;
- log-fold: the same, and the producer folds the last phase's log into the state times
  after making its draws: what the producer's share would add.
Usage: make.py DIR (from the repository root)."""
import os
import sys

FILE = "crates/pdes-models/src/mmck/shaders/mmck.wgsl"
DECL = "var<workgroup> st_shared: array<Time, STATE_WORDS>;"
RMW = """                if K1 <= STATES_IN_WORKGROUP {
                    let at = n * CONSUMERS + lane;
                    st_shared[at] = t_add(st_shared[at], dt);
                } else {"""
LOG = """                if K1 <= STATES_IN_WORKGROUP {
                    evlog[((phase & 1u) * PHASE + ran) * CONSUMERS + lane] = vec2<u32>(te, n);
                } else {"""
FILL = """            services_made = fill(lane, P.first + r, 1u, services_made, next_draw[now + CONSUMERS + lane]);
        }"""
FOLD = """            services_made = fill(lane, P.first + r, 1u, services_made, next_draw[now + CONSUMERS + lane]);
            // EXPERIMENT: the last phase's log folded into the state times (timing only)
            let prev = ((phase + 1u) & 1u) * PHASE;
            var tprev = 0u;
            for (var j = 0u; j < PHASE; j++) {
                let e = evlog[(prev + j) * CONSUMERS + lane];
                let at = e.y * CONSUMERS + lane;
                st_shared[at] = st_shared[at] + (e.x - tprev);
                tprev = e.x;
            }
        }"""


def main():
    out = sys.argv[1]
    src = open(FILE).read()
    for text in (DECL, RMW, FILL):
        if text not in src:
            sys.exit(f"mmck-log: the shader no longer has {text.splitlines()[0].strip()!r}")
    log_only = src.replace(DECL, DECL + "\nvar<workgroup> evlog: array<vec2<u32>, 2u * PHASE * CONSUMERS>; // EXPERIMENT").replace(RMW, LOG)
    for name, text in (("log-only", log_only), ("log-fold", log_only.replace(FILL, FOLD))):
        os.makedirs(os.path.join(out, name), exist_ok=True)
        with open(os.path.join(out, name, "mmck.wgsl"), "w") as f:
            f.write(text)


main()
