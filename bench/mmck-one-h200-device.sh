#!/usr/bin/env bash
# Issue 57 §1 (2026-11-29, sixth session): 10^7 M/M/c/k replications × 50,000 on a one-H200
# machine, with their records written and sums added up on the GPU, twice (the whole
# process and the engine's own time), against the 27.5-27.7 s engine time of the one-H200
# host of 8e23ca7 and 30.6-32.1 s on the two-H200 host this session: a host's difference or
# the change's? The SM clock, power and temperature every 5 s beside. verify (full) first
# (bench/device-start.sh).
# Usage (device tool, kind nvidia-h200, carrying .gl and carry/):
# bash bench/mmck-one-h200-device.sh
source bench/device-start.sh
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -l 5 > "$R_DIR/clocks.csv" 2>&1 & SMI=$!
for i in 1 2; do
  { /usr/bin/time -f "%e" $B run cheng2014-mmck --engine gpu --set run.replications=10000000 --format json > "$R_DIR/mmck-1e7-$i.json"; } 2> "$R_DIR/mmck-1e7-$i.err"
  echo "mmck 10^7 run $i: $(tail -n 1 "$R_DIR/mmck-1e7-$i.err") s whole; $(grep -E '"(mean_number_in_system|events|wall_seconds|engine_seconds)"' "$R_DIR/mmck-1e7-$i.json" | tr -d ' \n')"
done
kill $SMI; cat "$R_DIR/clocks.csv"
tar czf "$OUT/mmck-one.tgz" -C "$R_DIR" .
