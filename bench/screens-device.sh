#!/usr/bin/env bash
# Issue 56/57 session of 2026-11-28 on the device (one GPU or more): verify (full) first, the trust
# memory's effect on --devices (the Fig. 14 sweep, 40 seeds, cold and remembered), the
# headline as `run` gives it. Usage (device tool, carrying .gl and carry/):
#   bash bench/screens-device.sh
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p -m700 $XDG_RUNTIME_DIR
export PDES_CACHE_DIR=/tmp/pdes-cache; rm -rf "$PDES_CACHE_DIR"
B=${BIN:-carry/pdes-lab}; OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/device.txt" 2>&1
t() { /usr/bin/time -f "%e s wall" "$@"; }
$B devices > "$OUT/devices-0-cold.txt" 2>&1
# every device of the host (0, or 0,1 on two)
ALL=$(seq -s, 0 $(( $(wc -l < "$OUT/devices-0-cold.txt") - 1 )))
# the sweep: cold on every device (all checked at once), then each way with the checks remembered
s() { t $B sweep sang2019-fig14-15 --seeds 40 --engine gpu "$@" --format csv; }
{ echo "cold --devices $ALL: $( { s --devices "$ALL" --out "$OUT/fig14-all-cold.csv"; } 2>&1 | tail -1)"
  for round in 1 2; do
    echo "round $round no --devices: $( { s --out "$OUT/fig14-none-$round.csv"; } 2>&1 | tail -1)"
    echo "round $round --devices 0: $( { s --devices 0 --out "$OUT/fig14-0-$round.csv"; } 2>&1 | tail -1)"
    echo "round $round --devices $ALL: $( { s --devices "$ALL" --out "$OUT/fig14-all-$round.csv"; } 2>&1 | tail -1)"
  done; } | tee "$OUT/fig14-times.txt"
$B devices > "$OUT/devices-1-after-sweeps.txt" 2>&1
# verify afresh (full), then the headline three times as run gives it
{ t $B verify; } > "$OUT/verify.txt" 2>&1; tail -3 "$OUT/verify.txt"
for i in 1 2 3; do { t $B run sang2019-torus --engine gpu --format csv > "$OUT/headline-$i.csv"; } 2>> "$OUT/headline-times.txt"; done
cat "$OUT/fig14-times.txt" "$OUT/headline-times.txt"
