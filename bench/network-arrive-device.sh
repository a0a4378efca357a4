#!/usr/bin/env bash
# Issue 55 §2 with the final binary of the session of 2026-11-29 (seventh): verify (full)
# first, then the random network of 10^6 stations (degree 4, shift 0.5 + Exp(0.5), d = 0.5,
# T = 2,000) three times, the torus engine at the same size twice (the ratio, same call),
# the clinic on the GPU (its events as before), the per-pass GPU times over the whole
# T = 2,000 run and the host's phases (PDES_GPU_PROFILE). Usage (device tool, carrying
# .gl and carry/): bash bench/network-arrive-device.sh
source bench/device-start.sh
S='service = { kind = "shifted", shift = 0.5, mean = 1.0 }'
R="model.shape={ kind = \"random\", stations = 1000000, degree = 4, tokens_per_station = 1, $S }"
r() { local name=$1; shift; { echo "== $name"; t "$@" --format json > "$R_DIR/$name.json"; } 2>> "$R_DIR/times.txt"; }
for i in 1 2 3; do r random-1e6-T2000-$i $B run random-network --engine gpu --set "$R" --set run.end_time=2000; done
TORUS="--set model.rows=1000 --set model.cols=1000 --set model.mean_service=1 --set run.d=0.5"
for i in 1 2; do r torus-engine-1e6-T2000-$i $B run sang2019-torus --engine gpu $TORUS --set run.end_time=2000; done
r clinic-gpu $B run clinic --engine gpu
PDES_GPU_PROFILE=1 $B run random-network --engine gpu --set "$R" --set run.end_time=2000 --format json 2>&1 >/dev/null | grep -v " 0 ran" > "$R_DIR/profile-random-T2000.txt"
cat "$R_DIR/times.txt"; grep -v "network batch" "$R_DIR/profile-random-T2000.txt"
for f in "$R_DIR"/*.json; do echo "$(basename $f): $(grep -E '"(events|steps|utilization|wall_seconds|engine_seconds|events_per_second)"' "$f" | head -6 | tr -d ' \n')"; done
tar czf "$OUT/results.tgz" -C "$R_DIR" .
