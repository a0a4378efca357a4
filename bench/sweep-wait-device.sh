#!/usr/bin/env bash
# Where the 256² d sweep's 1.51 s go (issue 57 §1's target: 0.5 s), on the device: the
# process's start with the GPU opened and its check remembered (`devices`), one run, the
# sweep on the GPU with its seeds in one engine, and on the CPU. Usage (carrying .gl and
# carry/): bash bench/sweep-wait-device.sh
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p -m700 $XDG_RUNTIME_DIR
B=carry/pdes-lab; OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
t() { /usr/bin/time -f "%e s wall" "$@"; }
S="--set model.rows=256 --set model.cols=256"
{ echo "== verify --quick (remembers the check)"; t $B verify --quick | tail -1; } 2>&1
{ echo "== devices"; t $B devices; } 2>&1
for i in 1 2; do { echo "== one run, 256², d = 0.5, GPU"; t $B run teaching-16x16 $S --set run.d=0.5 --engine gpu --format json | grep -E '"(wall_seconds|engine_seconds|steps)"'; } 2>&1; done
for i in 1 2; do { echo "== sweep 16 d × 5 seeds, GPU"; t $B sweep teaching-16x16 $S --vary run.d=0.1:1.6:16 --seeds 5 --engine gpu > /dev/null; } 2>&1; done
{ echo "== sweep 16 d × 5 seeds, CPU"; t $B sweep teaching-16x16 $S --vary run.d=0.1:1.6:16 --seeds 5 > /dev/null; } 2>&1
