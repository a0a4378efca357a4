#!/usr/bin/env bash
# Issue 55 §2, session of 2026-11-30: the depart and arrive passes with their independent
# loads issued first (the next queued token's record beside the departing one's, the
# station's sums before any store, the first server without waiting for the constants), the
# binary before (carry/pdes-lab-old) against after (carry/pdes-lab) in one call. Verify
# (full, the new binary) first; then, T = 2,000 on one GPU, the random network of 10^6
# stations (degree 4) and its regular twin, two runs each binary, alternating; the torus
# engine at the same size; the per-pass GPU times of the new binary.
# Usage (device tool, carrying .gl and carry/): bash bench/network-loads-device.sh
source bench/device-start.sh
OLD=carry/pdes-lab-old
TORUS="--set model.rows=1000 --set model.cols=1000 --set model.mean_service=1 --set run.d=0.5 --set run.end_time=2000"
for i in 1 2; do
  for g in false true; do
    r old-regular-$g-$i $OLD run random-network --engine gpu --set "$(random_shape $g)" --set run.end_time=2000
    r new-regular-$g-$i $B run random-network --engine gpu --set "$(random_shape $g)" --set run.end_time=2000
  done
done
r torus-engine-1e6-T2000 $B run sang2019-torus --engine gpu $TORUS
p new-random $B run random-network --engine gpu --set "$(random_shape false)" --set run.end_time=2000
p new-regular $B run random-network --engine gpu --set "$(random_shape true)" --set run.end_time=2000
cat "$R_DIR/times.txt"; for f in "$R_DIR"/profile-*.txt; do echo "== $f"; grep "network batch" "$f" | tail -2; done
for f in "$R_DIR"/*.json; do echo "$(basename $f): $(grep -E '"(events|utilization|engine_seconds|events_per_second)"' "$f" | head -4 | tr -d ' \n')"; done
tar czf "$OUT/results.tgz" -C "$R_DIR" .
