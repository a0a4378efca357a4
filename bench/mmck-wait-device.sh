#!/usr/bin/env bash
# Session of 2026-11-29 (fourth) on the device: verify (full) first; then the 10⁷ M/M/c/k
# replications on one GPU (issue 57 §1: 48.2 s the whole process, 25.7 s in the engine,
# before its summary was summed where the records are read back and the samples read only
# for --samples), twice; the paper's default run (7,168 replications), cold (first) and
# warm, and with --samples.
# Usage (device tool, carrying .gl and carry/): bash bench/mmck-wait-device.sh
source bench/device-start.sh
for i in 1 2; do
  { echo "== cheng2014-mmck, GPU, default ($i)"; t $B run cheng2014-mmck --engine gpu --format json > "$R_DIR/mmck-default-$i.json"; } >> "$R_DIR/times.txt" 2>&1
done
for i in 1 2; do
  { echo "== 10⁷ replications × 50,000, GPU ($i)"; t $B run cheng2014-mmck --engine gpu --set run.replications=10000000 --format json > "$R_DIR/mmck-1e7-$i.json"; } >> "$R_DIR/times.txt" 2>&1
done
{ echo "== the default run with --samples (every replication's L̂ read back, as asked)"; t $B run cheng2014-mmck --engine gpu --samples "$R_DIR/samples.csv" > /dev/null; wc -l < "$R_DIR/samples.csv"; } >> "$R_DIR/times.txt" 2>&1
cat "$R_DIR/times.txt"
for f in "$R_DIR"/mmck-*.json; do echo "$(basename $f): $(grep -E '"(events|wall_seconds|engine_seconds|mean_number_in_system|finished)"' $f | tr -d ' \n')"; done
tar czf "$OUT/mmck-wait-results.tgz" -C "$R_DIR" .
