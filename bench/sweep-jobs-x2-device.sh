#!/usr/bin/env bash
# Issue 57 §1 on two H200s (2026-11-29, sixth session): a sweep's jobs formed by the runs
# that share an engine, longest first, striped over the devices. verify (full) first
# (bench/device-start.sh); the checks remembered (a --devices 0,1 run first fills the cache);
# then the Fig. 14 sweep with 40 seeds without --devices and with --devices 0,1 (three runs
# each, the whole process, every table compared with the first) and the 256² d sweep
# (16 values × 5 seeds) both ways; the host phases of one Fig. 14 run each way.
# Usage (device tool, kind nvidia-h200-x2, carrying .gl and carry/):
# bash bench/sweep-jobs-x2-device.sh
source bench/device-start.sh
F="sweep sang2019-fig14-15 --seeds 40 --engine gpu"
D="sweep teaching-16x16 --set model.rows=256 --set model.cols=256 --vary run.d=0.1:1.6:16 --seeds 5 --engine gpu"
{ /usr/bin/time -f "%e" $B $F --devices 0,1 > "$R_DIR/fig14-first-cold.txt"; } 2> "$R_DIR/fig14-first-cold.err"
echo "fig14 --devices 0,1, checks cold: $(tail -n 1 "$R_DIR/fig14-first-cold.err") s"
for d in none 0,1; do
  args=(); [ "$d" != none ] && args=(--devices "$d")
  for i in 1 2 3; do
    { /usr/bin/time -f "%e" $B $F "${args[@]}" > "$R_DIR/fig14-$d-$i.txt"; } 2> "$R_DIR/fig14-$d-$i.err"
    echo "fig14 devices $d run $i: $(tail -n 1 "$R_DIR/fig14-$d-$i.err") s, table $(cmp -s <(head -n -1 "$R_DIR/fig14-$d-$i.txt") <(head -n -1 "$R_DIR/fig14-none-1.txt") && echo same || echo DIFFERS)"
  done
  { PDES_GPU_PROFILE=1 $B $F "${args[@]}" > /dev/null; } 2> "$R_DIR/fig14-$d-profile.err"
  for i in 1 2; do
    { /usr/bin/time -f "%e" $B $D "${args[@]}" > "$R_DIR/sweep256-$d-$i.txt"; } 2> "$R_DIR/sweep256-$d-$i.err"
    echo "256² d sweep devices $d run $i: $(tail -n 1 "$R_DIR/sweep256-$d-$i.err") s, table $(cmp -s <(head -n -1 "$R_DIR/sweep256-$d-$i.txt") <(head -n -1 "$R_DIR/sweep256-none-1.txt") && echo same || echo DIFFERS)"
  done
done
grep -h "torus replicas\|returned" "$R_DIR"/fig14-*-profile.err
tar czf "$OUT/sweep-jobs.tgz" -C "$R_DIR" .
