#!/usr/bin/env python3
"""Writes every experiment's kernels into OUT/<experiment>/<variant>/<file>, the folders
`bench/device.sh` hands to PDES_WGSL_DIR. An experiment is kept as its generator, never as
copies of the shaders: a `<variant>.patch` names the commit and shader it was made from
(its `base:` line) and the change; a `make.py` writes its variants from today's shaders.
Needs git (the bases are read from the history): run it here, then carry OUT.
Usage: python3 bench/experiments/materialize.py OUT (from the repository root)."""
import glob
import os
import subprocess
import sys

out = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
for patch in sorted(glob.glob(os.path.join(here, "*", "*.patch"))):
    experiment = os.path.basename(os.path.dirname(patch))
    variant = os.path.basename(patch)[: -len(".patch")]
    base = next(l for l in open(patch) if l.startswith("base: ")).split()
    commit, path = base[1], base[2]
    target = os.path.join(out, experiment, variant, os.path.basename(path))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    text = subprocess.run(["git", "show", f"{commit}:{path}"], capture_output=True, text=True, check=True).stdout
    open(target, "w").write(text)
    if any(l.startswith("@@") for l in open(patch)):
        subprocess.run(["patch", "-s", target, patch], check=True)
    print(target)
for make in sorted(glob.glob(os.path.join(here, "*", "make.py"))):
    experiment = os.path.basename(os.path.dirname(make))
    subprocess.run([sys.executable, make, os.path.join(out, experiment)], check=True)
