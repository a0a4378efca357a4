#!/usr/bin/env bash
# Issue 57 §1 (2026-11-30, ninth session): every device's runs in as few engines as hold
# them (PDES_SWEEP_JOBS=one: the 256² d sweep's 80 runs in one engine, 20,000 steps) against
# the plan that landed (four engines on one device), one binary, alternating, three runs
# each, the whole process: the 256² d sweep and the Fig. 14 sweep on one device; rows
# compared; the host phases of one profiled run of each plan. Verify (full) first.
# Usage (device tool, carrying .gl and carry/): bash bench/sweep-one-device.sh
source bench/device-start.sh
declare -A W=(
  [d256]="sweep teaching-16x16 --set model.rows=256 --set model.cols=256 --vary run.d=0.1:1.6:16 --seeds 5 --engine gpu --format csv"
  [fig14]="sweep sang2019-fig14-15 --seeds 40 --engine gpu --format csv"
)
for name in d256 fig14; do
  for i in 1 2 3; do
    for plan in chains one; do
      f="$name-$plan-$i"
      PDES_SWEEP_JOBS=$plan /usr/bin/time -f "%e" -o "$R_DIR/$f.time" $B ${W[$name]} --out "$R_DIR/$f.csv" 2>> "$R_DIR/log.txt"
    done
  done
  for plan in chains one; do
    PDES_SWEEP_JOBS=$plan PDES_GPU_PROFILE=1 $B ${W[$name]} 2>&1 >/dev/null | grep -v "^batch" > "$R_DIR/$name-$plan-profile.txt"
  done
done
for f in "$R_DIR"/*.time; do echo "$(basename "$f" .time) $(cat "$f") s"; done | sort | tee "$R_DIR/times.txt"
compare_rows d256 fig14
grep -h "replicas\|returned" "$R_DIR"/d256-one-profile.txt
rm -f "$R_DIR"/*-[0-9].csv "$R_DIR"/*.time
tar czf "$OUT/results.tgz" -C "$R_DIR" .
