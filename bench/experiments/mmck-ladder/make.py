#!/usr/bin/env python3
"""Writes the M/M/c/k shader as it was at each of a session's commits into
DIR/<n>-<commit>/mmck.wgsl (PDES_WGSL_DIR experiments, issue 32 item 1, ninth session), so
that one binary — the newest, whose host side every listed shader fits — times each step of
the session's changes beside the built-in in one call (`bash bench/device.sh mmck-ladder`:
each output less its clocks hashed, every step's must be the built-in's). The steps, in
order: 961790e, the stop tests folded (the last one measured on its own binary);
af23616, the producers' two Philox chains in flight; 5412c6e, one exit from the event loop.
The built-in is 39772a6's (the servers' arrivals in workgroup memory) or later.
Usage: make.py DIR (from the repository root; it needs git)."""
import os
import subprocess
import sys

FILE = "crates/pdes-models/src/mmck/shaders/mmck.wgsl"
STEPS = ["961790e", "af23616", "5412c6e"]

out = sys.argv[1]
for n, commit in enumerate(STEPS, 1):
    text = subprocess.run(["git", "show", f"{commit}:{FILE}"], check=True, capture_output=True, text=True).stdout
    d = os.path.join(out, f"{n}-{commit}")
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "mmck.wgsl"), "w").write(text)
    print(os.path.join(d, "mmck.wgsl"))
