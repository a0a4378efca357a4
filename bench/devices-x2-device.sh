#!/usr/bin/env bash
# Issue 57 §1 (2026-11-30, ninth session): a binary (carry/pdes-lab) against another
# (carry/pdes-lab-old, named LABEL in the files: "start" for the session's start, "prev" for
# the commit before), alternating, three runs each, the whole process: the Fig. 14 sweep
# (40 seeds), the 256² d sweep and 200 seeds of one 64² point, on one device and with
# --devices 0,1 (checks remembered), rows compared without their timing cells; the host
# phases of one profiled two-device Fig. 14 run of each; then both devices' checks cold, at
# once. Verify (full, the new binary) first. (Its first use, "start", had no seeds sweep.)
# On one GPU, the one-device runs only. Usage (device tool, kind nvidia-h200-x2 or
# nvidia-h200, carrying .gl and carry/): bash bench/devices-x2-device.sh LABEL
source bench/device-start.sh
OLD=carry/pdes-lab-old; LABEL=${1:-start}
$B devices > "$R_DIR/devices.txt" 2>&1; cat "$R_DIR/devices.txt"
for bin in $B $OLD; do
  $bin sweep teaching-16x16 --set model.rows=64 --set model.cols=64 --vary run.d=1 --seeds 8 --engine gpu --devices 0,1 --format csv --out /tmp/checks.csv > /dev/null 2>&1
done
declare -A W=(
  [fig14]="sweep sang2019-fig14-15 --seeds 40 --engine gpu --format csv"
  [d256]="sweep teaching-16x16 --set model.rows=256 --set model.cols=256 --vary run.d=0.1:1.6:16 --seeds 5 --engine gpu --format csv"
  [seeds]="sweep teaching-16x16 --set model.rows=64 --set model.cols=64 --vary run.d=1 --seeds 200 --engine gpu --format csv"
)
DEVS="one"; [ "$(nvidia-smi -L | wc -l)" -ge 2 ] && DEVS="one two"
for name in fig14 d256 seeds; do
  for i in 1 2 3; do
    for dev in $DEVS; do
      args=(); [ $dev = two ] && args=(--devices 0,1)
      for which in new $LABEL; do
        bin=$B; [ $which = $LABEL ] && bin=$OLD
        f="$name-$dev-$which-$i"
        /usr/bin/time -f "%e" -o "$R_DIR/$f.time" $bin ${W[$name]} "${args[@]}" --out "$R_DIR/$f.csv" 2>> "$R_DIR/log.txt"
      done
    done
  done
done
for f in "$R_DIR"/*.time; do echo "$(basename "$f" .time) $(cat "$f") s"; done | sort | tee "$R_DIR/times.txt"
compare_rows fig14 d256 seeds
if [ "$DEVS" = one ]; then TWO=(); PN=one; else TWO=(--devices 0,1); PN=two; fi
PDES_GPU_PROFILE=1 $B ${W[fig14]} "${TWO[@]}" 2>&1 >/dev/null | grep -v "^batch" > "$R_DIR/fig14-$PN-new-profile.txt"
PDES_GPU_PROFILE=1 $OLD ${W[fig14]} "${TWO[@]}" 2>&1 >/dev/null | grep -v "^batch" > "$R_DIR/fig14-$PN-$LABEL-profile.txt"
for bin in $B $OLD; do PDES_GPU_PROFILE=1 $bin ${W[d256]} 2>&1 >/dev/null | grep -v "^batch" > "$R_DIR/d256-one-$([ $bin = $B ] && echo new || echo $LABEL)-profile.txt"; done
grep -h "device opened\|returned" "$R_DIR"/fig14-$PN-*-profile.txt
grep -h "replicas\|returned" "$R_DIR"/d256-one-*-profile.txt
for which in new $LABEL; do
  [ "$DEVS" = one ] && break
  bin=$B; [ $which = $LABEL ] && bin=$OLD
  rm -rf "$PDES_CACHE_DIR"
  /usr/bin/time -f "%e" -o "$R_DIR/cold-$which.time" $bin ${W[fig14]} --devices 0,1 > /dev/null 2> "$R_DIR/cold-$which.err"
  echo "fig14, both checks cold, $which: $(cat "$R_DIR/cold-$which.time") s"
done
rm -f "$R_DIR"/*-[0-9].csv "$R_DIR"/*.time
tar czf "$OUT/results.tgz" -C "$R_DIR" .
