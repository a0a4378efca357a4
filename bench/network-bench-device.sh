#!/usr/bin/env bash
# Issue 55 §2, session of 2026-11-30: the arrive pass's single-server stations without the
# constants' wait and without re-reading what it wrote, against the binary before it
# (carry/pdes-lab-old: depart's loads first, bd02126); then `pdes-lab bench --suite network`
# (the GPU window held to sequential at 10^6 stations, then the random network, its regular
# twin and the torus engine at T = 2,000: medians after warm-up) and the whole process of
# `pdes-lab run` (the first run of the call, then again); depart's shape again; the per-pass
# GPU times. Verify (full, the new binary) first. Usage (device tool, carrying .gl and
# carry/): bash bench/network-bench-device.sh
source bench/device-start.sh
OLD=carry/pdes-lab-old
for i in 1 2 3; do r new-random-$i $B run random-network --engine gpu --set "$(random_shape false)" --set run.end_time=2000; done
for i in 1 2; do
  r old-random-$i $OLD run random-network --engine gpu --set "$(random_shape false)" --set run.end_time=2000
  r old-regular-$i $OLD run random-network --engine gpu --set "$(random_shape true)" --set run.end_time=2000
  r new-regular-$i $B run random-network --engine gpu --set "$(random_shape true)" --set run.end_time=2000
done
for sh in 64x4 256x4 128x8 256x8; do
  ( export PDES_NET_DEPART=$sh; r depart-$sh $B run random-network --engine gpu --set "$(random_shape false)" --set run.end_time=2000 )
done
{ t $B bench --suite network --repeat 3 --format json --out "$R_DIR/bench-network.json"; } 2> "$R_DIR/bench-network.log"
p new-random $B run random-network --engine gpu --set "$(random_shape false)" --set run.end_time=2000
p new-regular $B run random-network --engine gpu --set "$(random_shape true)" --set run.end_time=2000
cat "$R_DIR/times.txt" | paste - -; tail -12 "$R_DIR/bench-network.log"
for f in "$R_DIR"/profile-*.txt; do echo "== $f"; grep -v "network batch" "$f"; grep "network batch" "$f" | tail -2; done
for f in "$R_DIR"/*.json; do echo "$(basename $f): $(grep -E '"(events|utilization|engine_seconds|events_per_second)"' "$f" | head -4 | tr -d ' \n')"; done
tar czf "$OUT/results.tgz" -C "$R_DIR" .
