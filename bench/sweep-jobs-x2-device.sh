#!/usr/bin/env bash
# Issue 57 §1 (2026-11-30, ninth session): a sweep's jobs on two devices by whole chains
# (src/cli/sweep/jobs.rs), each device's runs in equal chunks ("count", the default) or
# closed only where runs of equal steps end (PDES_SWEEP_JOBS=classes), against the plan
# before (PDES_SWEEP_JOBS=grid: equal chunks in the grid's order, dealt to the devices in
# turn); the same binary, alternating, three runs each, the whole process; one and two
# devices; the rows of every variant compared without their timing cells; then a timeline
# (seconds since the process started) of one profiled run on one and on two devices. Verify
# (full) first; the devices' checks made once before the timed runs (remembered after).
# Usage (device tool, kind nvidia-h200-x2, carrying .gl and carry/):
# bash bench/sweep-jobs-x2-device.sh
source bench/device-start.sh
$B devices > "$R_DIR/devices.txt" 2>&1; cat "$R_DIR/devices.txt"
declare -A SW=(
  [fig14]="sweep sang2019-fig14-15 --seeds 40 --engine gpu --format csv"
  [seeds]="sweep teaching-16x16 --set model.rows=64 --set model.cols=64 --vary run.d=1 --seeds 200 --engine gpu --format csv"
  [d256]="sweep teaching-16x16 --set model.rows=256 --set model.cols=256 --vary run.d=0.1:1.6:16 --seeds 5 --engine gpu --format csv"
)
# the checks of both devices, cold, once (what a first --devices run costs)
{ t $B ${SW[seeds]} --devices 0,1 --out "$R_DIR/checks-first.csv"; } > "$R_DIR/checks-first.txt" 2>&1
tail -n 3 "$R_DIR/checks-first.txt"
for name in fig14 seeds d256; do
  for i in 1 2 3; do
    for dev in none 0,1; do
      args=(); [ "$dev" != none ] && args=(--devices "$dev")
      for plan in grid classes count; do
        f="$name-$plan-$dev-$i"
        { echo "== $f"; export PDES_SWEEP_JOBS=$plan
          /usr/bin/time -f "%e" -o "$R_DIR/$f.time" $B ${SW[$name]} "${args[@]}" --out "$R_DIR/$f.csv"; unset PDES_SWEEP_JOBS; } >> "$R_DIR/log.txt" 2>&1
      done
    done
  done
  compare_rows "$name"
done
for f in "$R_DIR"/*.time; do echo "$(basename "$f" .time) $(cat "$f") s"; done | sort | tee "$R_DIR/times.txt"
stamp() { python3 -u -c 'import sys,time; t0=float(sys.argv[1]); [print(f"{time.time()-t0:7.3f} {l}", end="") for l in sys.stdin]' "$1"; }
for dev in none 0,1; do
  args=(); [ "$dev" != none ] && args=(--devices "$dev")
  for plan in grid count; do
    t0=$(date +%s.%N)
    PDES_SWEEP_JOBS=$plan PDES_GPU_PROFILE=1 $B ${SW[fig14]} "${args[@]}" 2>&1 >/dev/null | grep -v "^batch" | stamp "$t0" > "$R_DIR/fig14-timeline-$plan-$dev.txt"
    echo "fig14 timeline $plan $dev: $(grep -c 'torus replicas' "$R_DIR/fig14-timeline-$plan-$dev.txt") engines; $(tail -n 1 "$R_DIR/fig14-timeline-$plan-$dev.txt")"
  done
done
cat "$R_DIR/fig14-timeline-count-0,1.txt"
tar czf "$OUT/results.tgz" -C "$R_DIR" .
