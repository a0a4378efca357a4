#!/usr/bin/env bash
# Issue 55 §2 session of 2026-11-29 (second) on the device: verify (full; the network's nine
# cases and window = sequential among them) first, the torus headline as `run` gives it,
# then the network's GPU engine: the clinic (GPU and CPU), a random network of 10^6 stations
# of degree 4 on the GPU and the CPU, and the torus engine and the general engine's torus
# shape at the same size, law and d (shift 0.5 + Exp(0.5), d = 0.5) for the "within 2× of
# the torus" target. Usage (device tool, carrying .gl and carry/):
#   bash bench/network-gpu-device.sh
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p -m700 $XDG_RUNTIME_DIR
export PDES_CACHE_DIR=/tmp/pdes-cache; rm -rf "$PDES_CACHE_DIR"
B=${BIN:-carry/pdes-lab}; OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/device.txt" 2>&1
lscpu | grep -E "Model name|^CPU\(s\)" >> "$OUT/device.txt"
t() { /usr/bin/time -f "%e s wall" "$@"; }
r() { local name=$1; shift; { echo "== $name"; t "$@" --format json > "$OUT/$name.json"; } 2>> "$OUT/times.txt"; }
{ t $B verify; } > "$OUT/verify.txt" 2>&1; tail -3 "$OUT/verify.txt"
for i in 1 2; do r headline-$i $B run sang2019-torus --engine gpu; done
r clinic-gpu $B run clinic --engine gpu
r clinic-cpu $B run clinic --engine cpu
r clinic-gpu-1e6 $B run clinic --engine gpu --set run.end_time=1000000 --set run.warmup=1000
S='service = { kind = "shifted", shift = 0.5, mean = 1.0 }'
R="model.shape={ kind = \"random\", stations = 1000000, degree = 4, tokens_per_station = 1, $S }"
TS="model.shape={ kind = \"torus\", rows = 1000, cols = 1000, tokens_per_station = 1, $S }"
r random-1e6-gpu-T20 $B run random-network --engine gpu --set "$R" --set run.end_time=20
r random-1e6-cpu-T20 $B run random-network --engine cpu --set "$R" --set run.end_time=20
r random-1e6-gpu-T2000 $B run random-network --engine gpu --set "$R" --set run.end_time=2000
r torus-shape-1e6-gpu-T2000 $B run random-network --engine gpu --set "$TS" --set run.end_time=2000
TORUS="--set model.rows=1000 --set model.cols=1000 --set model.mean_service=1 --set run.d=0.5"
r torus-engine-1e6-gpu-T2000 $B run sang2019-torus --engine gpu $TORUS --set run.end_time=2000
r torus-engine-1e6-gpu-T20 $B run sang2019-torus --engine gpu $TORUS --set run.end_time=20
cat "$OUT/times.txt"
for f in "$OUT"/*.json; do echo "$(basename $f): $(grep -E '"(engine|events|steps|utilization|wall_seconds|engine_seconds|events_per_second)"' "$f" | head -8 | tr -d ' \n')"; done
