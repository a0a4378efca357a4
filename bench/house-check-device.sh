#!/usr/bin/env bash
# Issue 58 (2026-11-30, tenth session): the refactors of the house (one CPU run for the
# queueing models, steps() and gpu_memory_bytes() in the engine traits, key and algorithm
# constructors) checked on the device: `pdes-lab verify` in full first (device-start.sh),
# then the headline and the network benchmark shape as a user runs them, the whole process,
# three each, beside the figures the bench page cites.
# Usage (device tool, carrying .gl and carry/): bash bench/house-check-device.sh
source bench/device-start.sh
for i in 1 2 3; do
  r "headline-$i" $B run sang2019-torus --engine gpu
  r "random-$i" $B run random-network --engine gpu --set run.end_time=2000 --set "$(random_shape false)"
done
grep -A1 "^==" "$R_DIR/times.txt"
python3 - "$R_DIR" <<'PY'
import json, glob, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    s = json.load(open(f))
    print(f.split("/")[-1], s.get("events"), s.get("steps"), s.get("utilization"), s.get("causality_errors"))
PY
tar czf "$OUT/results.tgz" -C "$R_DIR" .
