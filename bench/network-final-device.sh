#!/usr/bin/env bash
# Issue 55 §2, session of 2026-11-30, the committed figures of the final binary (depart's
# loads first, 256 x 8 a segment, finish reading a value a segment): verify (full) first;
# `pdes-lab bench --suite network` (the GPU window held to sequential at 10^6 stations; the
# random network, its regular twin and the torus engine at T = 2,000, medians after
# warm-up); the whole process of `pdes-lab run` (the call's first run of each, then again);
# the per-pass GPU times. Usage (device tool, carrying .gl and carry/):
# bash bench/network-final-device.sh
source bench/device-start.sh
RUN="run random-network --engine gpu --set run.end_time=2000 --set"
TORUS="run sang2019-torus --engine gpu --set model.rows=1000 --set model.cols=1000 --set model.mean_service=1 --set run.d=0.5 --set run.end_time=2000"
for i in 1 2 3; do
  r random-$i $B $RUN "$(random_shape false)"
  r regular-$i $B $RUN "$(random_shape true)"
  r torus-engine-$i $B $TORUS
done
{ t $B bench --suite network --repeat 3 --format json --out "$R_DIR/bench-network.json"; } 2> "$R_DIR/bench-network.log"
p random $B $RUN "$(random_shape false)"
p regular $B $RUN "$(random_shape true)"
paste - - < "$R_DIR/times.txt"; tail -8 "$R_DIR/bench-network.log"
for f in "$R_DIR"/profile-*.txt; do echo "== $f"; grep -v "network batch" "$f"; grep "network batch" "$f" | tail -2; done
for f in "$R_DIR"/*-*.json; do echo "$(basename $f): $(grep -E '"(events|engine_seconds)"' "$f" | head -2 | tr -d ' \n')"; done
tar czf "$OUT/results.tgz" -C "$R_DIR" .
