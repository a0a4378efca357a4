#!/usr/bin/env bash
# Issue 58 (2026-11-30, tenth session): the final binary (carry/pdes-lab) against the
# session's start (carry/pdes-lab-old, 1a925b9), alternating, three runs each, the whole
# process: the headline and the 10⁶-station random network; every summary's events,
# steps and utilization printed. Verify (full, the new binary) first.
# Usage (device tool, carrying .gl and carry/): bash bench/house-compare-device.sh
source bench/device-start.sh
OLD=carry/pdes-lab-old
for i in 1 2 3; do
  for which in new start; do
    bin=$B; [ $which = start ] && bin=$OLD
    r "headline-$which-$i" $bin run sang2019-torus --engine gpu
    r "random-$which-$i" $bin run random-network --engine gpu --set run.end_time=2000 --set "$(random_shape false)"
  done
done
grep -A1 "^==" "$R_DIR/times.txt" | paste - - - | sort
python3 - "$R_DIR" <<'PY'
import json, glob, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    s = json.load(open(f))
    print(f.split("/")[-1], s.get("events"), s.get("steps"), s.get("utilization"), s.get("engine_seconds"))
PY
tar czf "$OUT/results.tgz" -C "$R_DIR" .
