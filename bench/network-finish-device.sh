#!/usr/bin/env bash
# Issue 55 §2, session of 2026-11-30, the call whose figures are committed: the step's
# departures summed a segment by the arrive pass (finish_step reads one value a segment
# instead of five), against the binary before it (carry/pdes-lab-old, bd02126: depart's
# loads first), alternating; depart's shape (256x8, 256x4 against the default 128x4);
# `pdes-lab bench --suite network` (the GPU window held to sequential at 10^6 stations, then
# the random network, its regular twin and the torus engine, T = 2,000, medians after
# warm-up); the per-pass GPU times. Verify (full, the new binary) first.
# Usage (device tool, carrying .gl and carry/): bash bench/network-finish-device.sh
source bench/device-start.sh
OLD=carry/pdes-lab-old
RUN="run random-network --engine gpu --set run.end_time=2000 --set"
for i in 1 2 3; do
  r new-random-$i $B $RUN "$(random_shape false)"
  r old-random-$i $OLD $RUN "$(random_shape false)"
done
for i in 1 2; do
  r new-regular-$i $B $RUN "$(random_shape true)"
  r old-regular-$i $OLD $RUN "$(random_shape true)"
  for sh in 256x8 256x4; do ( export PDES_NET_DEPART=$sh; r depart-$sh-$i $B $RUN "$(random_shape false)" ); done
done
{ t $B bench --suite network --repeat 3 --format json --out "$R_DIR/bench-network.json"; } 2> "$R_DIR/bench-network.log"
p new-random $B $RUN "$(random_shape false)"
paste - - < "$R_DIR/times.txt"; tail -12 "$R_DIR/bench-network.log"
for f in "$R_DIR"/profile-*.txt; do echo "== $f"; grep "network batch" "$f" | tail -2; done
for f in "$R_DIR"/*-*.json; do echo "$(basename $f): $(grep -E '"(events|engine_seconds)"' "$f" | head -2 | tr -d ' \n')"; done
tar czf "$OUT/results.tgz" -C "$R_DIR" .
