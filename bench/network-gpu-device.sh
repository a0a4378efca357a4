#!/usr/bin/env bash
# Issue 55 §2 / 57 §1 session of 2026-11-29 (second) on the device: verify (full; the
# network's nine cases and window = sequential among them) first, the torus headline as
# `run` gives it, then the network's GPU engine — the clinic (GPU and CPU), a random
# network of 10^6 stations of degree 4 (GPU, and CPU for T = 20), and the torus engine and
# the general engine's torus shape at the same size, law and d (shift 0.5 + Exp(0.5),
# d = 0.5) for the "within 2x of the torus" target, with PDES_GPU_PROFILE's per-pass times;
# then M/M/c/k with 10^7 replications on one GPU (in parts) and the 256² d sweep's wall
# time. Usage (device tool, carrying .gl and carry/): bash bench/network-gpu-device.sh
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p -m700 $XDG_RUNTIME_DIR
export PDES_CACHE_DIR=/tmp/pdes-cache; rm -rf "$PDES_CACHE_DIR"
B=${BIN:-carry/pdes-lab}; OUT=${OUT:-/tmp/out}; R_DIR=/tmp/results; mkdir -p "$OUT" "$R_DIR"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$R_DIR/device.txt" 2>&1
lscpu | grep -E "Model name|^CPU\(s\)" >> "$R_DIR/device.txt"
t() { /usr/bin/time -f "%e s wall" "$@"; }
r() { local name=$1; shift; { echo "== $name"; t "$@" --format json > "$R_DIR/$name.json"; } 2>> "$R_DIR/times.txt"; }
{ t $B verify; } > "$R_DIR/verify.txt" 2>&1; tail -2 "$R_DIR/verify.txt"
r headline $B run sang2019-torus --engine gpu
r clinic-gpu $B run clinic --engine gpu
r clinic-cpu $B run clinic --engine cpu
S='service = { kind = "shifted", shift = 0.5, mean = 1.0 }'
R="model.shape={ kind = \"random\", stations = 1000000, degree = 4, tokens_per_station = 1, $S }"
TS="model.shape={ kind = \"torus\", rows = 1000, cols = 1000, tokens_per_station = 1, $S }"
r random-1e6-gpu-T20 $B run random-network --engine gpu --set "$R" --set run.end_time=20
r random-1e6-cpu-T20 $B run random-network --engine cpu --set "$R" --set run.end_time=20
r random-1e6-gpu-T2000 $B run random-network --engine gpu --set "$R" --set run.end_time=2000
r torus-shape-1e6-gpu-T2000 $B run random-network --engine gpu --set "$TS" --set run.end_time=2000
TORUS="--set model.rows=1000 --set model.cols=1000 --set model.mean_service=1 --set run.d=0.5"
r torus-engine-1e6-gpu-T2000 $B run sang2019-torus --engine gpu $TORUS --set run.end_time=2000
PDES_GPU_PROFILE=1 $B run random-network --engine gpu --set "$R" --set run.end_time=20 --format json 2>&1 >/dev/null | grep "network batch" | grep -v " 0 ran" > "$R_DIR/profile-random.txt"
PDES_GPU_PROFILE=1 $B run random-network --engine gpu --set "$TS" --set run.end_time=20 --format json 2>&1 >/dev/null | grep "network batch" | grep -v " 0 ran" > "$R_DIR/profile-torus-shape.txt"
{ echo "== mmck-1e7"; timeout 240 /usr/bin/time -f "%e s wall" $B run cheng2014-mmck --engine gpu --set run.replications=10000000 --format json > "$R_DIR/mmck-1e7.json"; } 2>> "$R_DIR/times.txt"
{ echo "== sweep-256-d"; t $B sweep teaching-16x16 --set model.rows=256 --set model.cols=256 --vary run.d=0.1:1.6:16 --seeds 5 --engine gpu > "$R_DIR/sweep-256-d.csv"; } 2>> "$R_DIR/times.txt"
r tune-clinic $B tune clinic
cat "$R_DIR/times.txt"; cat "$R_DIR"/profile-*.txt | tail -4
for f in "$R_DIR"/*.json; do echo "$(basename $f): $(grep -E '"(engine|events|steps|utilization|wall_seconds|engine_seconds|events_per_second|recommended_d|replications|L)"' "$f" | head -9 | tr -d ' \n')"; done
tar czf "$OUT/network-gpu-results.tgz" -C "$R_DIR" .
