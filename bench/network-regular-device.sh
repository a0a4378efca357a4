#!/usr/bin/env bash
# Issue 55 §2, session of 2026-11-30: how a network step's cost splits between what every
# step pays and what each event pays. Verify (full) first; then on one GPU, T = 2,000, the
# random network of 10^6 stations (degree 4, shift 0.5 + Exp(0.5)) as before (its routes'
# destinations drawn independently: the traffic gathers), the same with `regular = true`
# (every station the destination of exactly 4 routes: visited equally often, as on the
# torus), the first again at d = 0.25 (fewer events a step), and the torus engine at the
# same size; each with the per-pass GPU times (PDES_GPU_PROFILE) of one run and the whole
# process of two. Usage (device tool, carrying .gl and carry/):
# bash bench/network-regular-device.sh
source bench/device-start.sh
TORUS="--set model.rows=1000 --set model.cols=1000 --set model.mean_service=1 --set run.d=0.5 --set run.end_time=2000"
for i in 1 2; do
  r random-1e6-T2000-$i $B run random-network --engine gpu --set "$(random_shape false)" --set run.end_time=2000
  r regular-1e6-T2000-$i $B run random-network --engine gpu --set "$(random_shape true)" --set run.end_time=2000
  r torus-engine-1e6-T2000-$i $B run sang2019-torus --engine gpu $TORUS
done
r random-1e6-T2000-d0.25 $B run random-network --engine gpu --set "$(random_shape false)" --set run.end_time=2000 --set run.d=0.25
p random $B run random-network --engine gpu --set "$(random_shape false)" --set run.end_time=2000
p regular $B run random-network --engine gpu --set "$(random_shape true)" --set run.end_time=2000
p random-d0.25 $B run random-network --engine gpu --set "$(random_shape false)" --set run.end_time=2000 --set run.d=0.25
p torus $B run sang2019-torus --engine gpu $TORUS
cat "$R_DIR/times.txt"; for f in "$R_DIR"/profile-*.txt; do echo "== $f"; grep -v "network batch" "$f"; grep "network batch" "$f" | tail -3; done
for f in "$R_DIR"/*.json; do echo "$(basename $f): $(grep -E '"(events|steps|mean_events_per_step|utilization|wall_seconds|engine_seconds|events_per_second)"' "$f" | head -7 | tr -d ' \n')"; done
tar czf "$OUT/results.tgz" -C "$R_DIR" .
