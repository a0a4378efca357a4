#!/usr/bin/env bash
# Issue 55/56/58 session of 2026-11-29 on the device: verify (full, the one harness) first,
# the torus headline as `run` gives it, then the network model on the CPU (its GPU engine is
# not written yet): the clinic (window and sequential), the fat-tree, a random network of
# 10^6 stations of degree 4 (the size the GPU engine is to reach within 2x of the torus),
# and `tune` on the clinic and the torus. Usage (device tool, carrying .gl and carry/):
#   bash bench/network-device.sh
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p -m700 $XDG_RUNTIME_DIR
export PDES_CACHE_DIR=/tmp/pdes-cache; rm -rf "$PDES_CACHE_DIR"
B=${BIN:-carry/pdes-lab}; OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/device.txt" 2>&1
lscpu | grep -E "Model name|^CPU\(s\)" >> "$OUT/device.txt"
t() { /usr/bin/time -f "%e s wall" "$@"; }
{ t $B verify; } > "$OUT/verify.txt" 2>&1; tail -3 "$OUT/verify.txt"
for i in 1 2; do { t $B run sang2019-torus --engine gpu --format json > "$OUT/headline-$i.json"; } 2>> "$OUT/headline-times.txt"; done
{ t $B run clinic --format json > "$OUT/clinic-window.json"; } 2>> "$OUT/network-times.txt"
{ t $B run clinic --set 'run.algorithm="sequential"' --set run.d=0 --format json > "$OUT/clinic-sequential.json"; } 2>> "$OUT/network-times.txt"
{ t $B run clinic-exponential --set run.end_time=1000000 --format json > "$OUT/clinic-exponential-1e6.json"; } 2>> "$OUT/network-times.txt"
{ t $B run fat-tree --format json > "$OUT/fat-tree.json"; } 2>> "$OUT/network-times.txt"
R='model.shape={ kind = "random", stations = 1000000, degree = 4, tokens_per_station = 1, service = { kind = "shifted", shift = 0.5, mean = 1.0 } }'
{ t $B run random-network --set "$R" --set run.end_time=20 --format json > "$OUT/random-1e6-window.json"; } 2>> "$OUT/network-times.txt"
{ t $B run random-network --set "$R" --set run.end_time=20 --set 'run.algorithm="sequential"' --set run.d=0 --format json > "$OUT/random-1e6-sequential.json"; } 2>> "$OUT/network-times.txt"
{ t $B tune clinic --format json > "$OUT/tune-clinic.json"; } 2>> "$OUT/tune-times.txt"
{ t $B tune teaching-16x16 --tolerance 2% --seeds 10 --format json > "$OUT/tune-torus.json"; } 2>> "$OUT/tune-times.txt"
cat "$OUT/headline-times.txt" "$OUT/network-times.txt" "$OUT/tune-times.txt"
for f in "$OUT"/*.json; do echo "$f: $(grep -E '"(events|wall_seconds|engine_seconds|events_per_second|recommended_d)"' "$f" | tr -d ' \n')"; done
