#!/usr/bin/env bash
# Issue 57 §1 on a machine of several GPUs (2026-11-29, fifth session; the device tool lent
# two H200s): the whole process (`/usr/bin/time`) of the Fig. 14 sweep with 40 seeds and of
# 10^7 M/M/c/k replications without --devices, with --devices 0, 0,1 and all, the
# devices' checks cold (a fresh cache: the first run of each) and remembered (the next two);
# every sweep's table (means and intervals of its 400 runs) must equal the first one's. verify (full) first (bench/device-start.sh).
# Usage (device tool, kind nvidia-h200-x2 or -x4, carrying .gl and carry/):
# bash bench/multi-gpu-wait-device.sh
source bench/device-start.sh
$B devices > "$R_DIR/devices.txt" 2>&1; cat "$R_DIR/devices.txt"
run_all() { # label, then the --devices arguments ("" for none)
  local label=$1; shift
  rm -rf "$PDES_CACHE_DIR"
  for round in cold warm1 warm2; do
    { /usr/bin/time -f "%e" $B sweep sang2019-fig14-15 --seeds 40 --engine gpu "$@" > "$R_DIR/fig14-$label-$round.txt"; } 2> "$R_DIR/fig14-$label-$round.err"
    echo "fig14 40 seeds, devices $label, $round: $(tail -1 "$R_DIR/fig14-$label-$round.err") s, table $(cmp -s <(head -n -1 "$R_DIR/fig14-$label-$round.txt") <(head -n -1 "$R_DIR/fig14-none-cold.txt") && echo same || echo DIFFERS)"
  done
  { /usr/bin/time -f "%e" $B run cheng2014-mmck --engine gpu --set run.replications=10000000 "$@" --format json > "$R_DIR/mmck-1e7-$label.json"; } 2> "$R_DIR/mmck-1e7-$label.err"
  echo "mmck 10^7, devices $label (warm): $(tail -1 "$R_DIR/mmck-1e7-$label.err") s whole, $(grep -m1 '"wall_seconds"' "$R_DIR/mmck-1e7-$label.json" | tr -d ' ,')"
}
run_all none
run_all 0 --devices 0
run_all 01 --devices 0,1
run_all all --devices all
for l in 0 01 all; do cmp -s <(grep -v wall_seconds "$R_DIR/mmck-1e7-$l.json" | grep -v engine_seconds) <(grep -v wall_seconds "$R_DIR/mmck-1e7-none.json" | grep -v engine_seconds) && echo "mmck $l: summary same" || echo "mmck $l: summary DIFFERS"; done
tar czf "$OUT/multi-gpu-results.tgz" -C "$R_DIR" .
