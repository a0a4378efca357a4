#!/usr/bin/env bash
# Issue 55 §2 on the device: verify (full; the network's cases and window = sequential among
# them) first (bench/device-start.sh), the torus headline as `run` gives it, then the
# network's GPU engine — the clinic (GPU and CPU), a random network of 10^6 stations of
# degree 4 (GPU, and CPU for T = 20), and the torus engine and the general engine's torus
# shape at the same size, law and d (shift 0.5 + Exp(0.5), d = 0.5) for the "within 2x of
# the torus" target, with PDES_GPU_PROFILE's per-pass times and host phases; then the 256²
# d sweep's wall time and `tune clinic`. Usage (device tool, carrying .gl and carry/):
# bash bench/network-gpu-device.sh
source bench/device-start.sh
r() { local name=$1; shift; { echo "== $name"; t "$@" --format json > "$R_DIR/$name.json"; } 2>> "$R_DIR/times.txt"; }
r headline $B run sang2019-torus --engine gpu
r clinic-gpu $B run clinic --engine gpu
r clinic-cpu $B run clinic --engine cpu
S='service = { kind = "shifted", shift = 0.5, mean = 1.0 }'
R="model.shape={ kind = \"random\", stations = 1000000, degree = 4, tokens_per_station = 1, $S }"
TS="model.shape={ kind = \"torus\", rows = 1000, cols = 1000, tokens_per_station = 1, $S }"
r random-1e6-gpu-T20 $B run random-network --engine gpu --set "$R" --set run.end_time=20
r random-1e6-cpu-T20 $B run random-network --engine cpu --set "$R" --set run.end_time=20
for i in 1 2 3; do r random-1e6-gpu-T2000-$i $B run random-network --engine gpu --set "$R" --set run.end_time=2000; done
r torus-shape-1e6-gpu-T2000 $B run random-network --engine gpu --set "$TS" --set run.end_time=2000
TORUS="--set model.rows=1000 --set model.cols=1000 --set model.mean_service=1 --set run.d=0.5"
for i in 1 2 3; do r torus-engine-1e6-gpu-T2000-$i $B run sang2019-torus --engine gpu $TORUS --set run.end_time=2000; done
PDES_GPU_PROFILE=1 $B run random-network --engine gpu --set "$R" --set run.end_time=2000 --format json 2>&1 >/dev/null | grep -v " 0 ran" | grep -v "network batch" > "$R_DIR/profile-random-host.txt"
PDES_GPU_PROFILE=1 $B run random-network --engine gpu --set "$R" --set run.end_time=20 --format json 2>&1 >/dev/null | grep "network batch" | grep -v " 0 ran" > "$R_DIR/profile-random.txt"
PDES_GPU_PROFILE=1 $B run random-network --engine gpu --set "$TS" --set run.end_time=20 --format json 2>&1 >/dev/null | grep "network batch" | grep -v " 0 ran" > "$R_DIR/profile-torus-shape.txt"
{ echo "== sweep-256-d"; t $B sweep teaching-16x16 --set model.rows=256 --set model.cols=256 --vary run.d=0.1:1.6:16 --seeds 5 --engine gpu > "$R_DIR/sweep-256-d.csv"; } 2>> "$R_DIR/times.txt"
r tune-clinic $B tune clinic
cat "$R_DIR/times.txt" | grep -v "^d = "; cat "$R_DIR"/profile-*.txt | tail -12
for f in "$R_DIR"/*.json; do echo "$(basename $f): $(grep -E '"(engine|events|steps|utilization|wall_seconds|engine_seconds|events_per_second|recommended_d)"' "$f" | head -9 | tr -d ' \n')"; done
tar czf "$OUT/network-gpu-results.tgz" -C "$R_DIR" .
