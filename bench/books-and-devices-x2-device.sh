#!/usr/bin/env bash
# Issue 57 §1 on two H200s (2026-11-29, sixth session): verify (full) first
# (bench/device-start.sh); then 10^7 M/M/c/k replications with their records written and
# their sums added up on the GPU (one GPU twice, --devices 0,1 twice; the whole process,
# the host's phases of one run of each; the four summaries compared, field for field but the
# times); then where the Fig. 14 sweep's time goes: each device's check cold alone
# (--devices 0, --devices 1), both cold at once (--devices 0,1), and the sweep with the
# checks remembered (none and 0,1, three runs each; the host phases of one of each).
# Usage (device tool, kind nvidia-h200-x2, carrying .gl and carry/):
# bash bench/books-and-devices-x2-device.sh
source bench/device-start.sh
$B devices > "$R_DIR/devices.txt" 2>&1; cat "$R_DIR/devices.txt"
M="run cheng2014-mmck --engine gpu --set run.replications=10000000 --format json"
for d in none 0,1; do
  args=(); [ "$d" != none ] && args=(--devices "$d")
  for i in 1 2; do
    if [ $i = 2 ]; then export PDES_GPU_PROFILE=1; fi
    { /usr/bin/time -f "%e" $B $M "${args[@]}" > "$R_DIR/mmck-1e7-$d-$i.json"; } 2> "$R_DIR/mmck-1e7-$d-$i.err"
    unset PDES_GPU_PROFILE
    echo "mmck 10^7, devices $d, run $i: $(tail -n 1 "$R_DIR/mmck-1e7-$d-$i.err") s whole; $(grep -E '"(mean_number_in_system|wall_seconds|engine_seconds)"' "$R_DIR/mmck-1e7-$d-$i.json" | tr -d ' \n')"
  done
done
for f in "$R_DIR"/mmck-1e7-*.json; do grep -v -E "seconds|per_second|threads" "$f" | md5sum; done | sort | uniq -c
F="sweep sang2019-fig14-15 --seeds 40 --engine gpu"
cold() { local l; l=$(echo "$*" | tr -d " "); rm -rf "$PDES_CACHE_DIR"; { /usr/bin/time -f "%e" env PDES_GPU_PROFILE=1 $B $F "$@" > "$R_DIR/fig14-cold$l.txt"; } 2> "$R_DIR/fig14-cold$l.err"; echo "fig14 cold $*: $(tail -n 1 "$R_DIR/fig14-cold$l.err") s"; }
cold --devices 0
cold --devices 1
cold --devices 0,1
for d in none 0,1; do
  args=(); [ "$d" != none ] && args=(--devices "$d")
  for i in 1 2 3; do
    { /usr/bin/time -f "%e" $B $F "${args[@]}" > "$R_DIR/fig14-$d-$i.txt"; } 2> "$R_DIR/fig14-$d-$i.err"
    echo "fig14 devices $d run $i: $(tail -n 1 "$R_DIR/fig14-$d-$i.err") s, table $(cmp -s <(head -n -1 "$R_DIR/fig14-$d-$i.txt") <(head -n -1 "$R_DIR/fig14-none-1.txt") && echo same || echo DIFFERS)"
  done
  { PDES_GPU_PROFILE=1 $B $F "${args[@]}" > /dev/null; } 2> "$R_DIR/fig14-$d-profile.err"
done
grep -h -E "device opened|verif|set-up|returned" "$R_DIR"/fig14-cold*.err | sort | uniq -c | sort -rn | head -20
tail -n 12 "$R_DIR/fig14-0,1-profile.err"
tar czf "$OUT/books-devices.tgz" -C "$R_DIR" .
