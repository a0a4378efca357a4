#!/usr/bin/env bash
# Issue 57 §1, session of 2026-11-30: the 256² d sweep (16 values of d × 5 seeds, GPU) with
# its jobs cut by equal shares of their steps (the smallest d's five runs in an engine of
# their own) against the binary before (carry/pdes-lab-old: equal chunks in the grid's
# order), alternating, three runs each, the whole process; the rows of both compared
# without their timing cells. Verify (full, the new binary) first.
# Usage (device tool, carrying .gl and carry/): bash bench/experiments/sweep-balance/device.sh
source bench/device-start.sh
OLD=carry/pdes-lab-old
S="--set model.rows=256 --set model.cols=256 --vary run.d=0.1:1.6:16 --seeds 5 --engine gpu --format csv"
for i in 1 2 3; do
  { echo "== new $i"; t $B sweep teaching-16x16 $S --out "$R_DIR/new-$i.csv"; } >> "$R_DIR/times.txt" 2>&1
  { echo "== old $i"; t $OLD sweep teaching-16x16 $S --out "$R_DIR/old-$i.csv"; } >> "$R_DIR/times.txt" 2>&1
done
cat "$R_DIR/times.txt"
python3 - "$R_DIR" <<'PY' | tee "$R_DIR/rows-compared.txt"
import csv, sys
d = sys.argv[1]
skip = {"wall_seconds", "events_per_second", "row_digest"}
def rows(p):
    return sorted(tuple((k, v) for k, v in r.items() if k not in skip) for r in csv.DictReader(open(p)))
ref = rows(f"{d}/old-1.csv")
for name in ("old-2", "old-3", "new-1", "new-2", "new-3"):
    r = rows(f"{d}/{name}.csv")
    print(f"{name}: {len(r)} rows, {'equal to' if r == ref else 'DIFFERENT from'} old-1's {len(ref)}")
PY
tar czf "$OUT/results.tgz" -C "$R_DIR" .
