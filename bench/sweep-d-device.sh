#!/usr/bin/env bash
# Session of 2026-11-29 (fourth) on the device: verify (full) first; then the 256² d sweep
# (issue 57 §1, target 0.5 s the whole process) now that its values of d share an engine
# with its seeds (four engines of 20 runs in flight, their host work parallel) — three times, its rows against the CPU sweep's; the process's start
# (`devices`); and the torus headline, whose control block grew (a replica's d and law).
# Usage (device tool, carrying .gl and carry/): bash bench/sweep-d-device.sh
source bench/device-start.sh
S="--set model.rows=256 --set model.cols=256 --vary run.d=0.1:1.6:16 --seeds 5"
{ echo "== devices"; t $B devices; } >> "$R_DIR/times.txt" 2>&1
for i in 1 2 3; do
  { echo "== sweep 256², 16 d × 5 seeds, GPU ($i)"; t $B sweep teaching-16x16 $S --engine gpu --format csv --out "$R_DIR/sweep-256-d-gpu-$i.csv"; } >> "$R_DIR/times.txt" 2>&1
done
{ echo "== sweep 256², 16 d × 5 seeds, GPU, profiled (host phases per engine; GPU stamps slow the steps)"; PDES_GPU_PROFILE=1 t $B sweep teaching-16x16 $S --engine gpu 2>&1 >/dev/null | grep -v "^batch"; } >> "$R_DIR/times.txt" 2>&1
{ echo "== sweep 256², 16 d × 5 seeds, CPU"; t $B sweep teaching-16x16 $S --format csv --out "$R_DIR/sweep-256-d-cpu.csv"; } >> "$R_DIR/times.txt" 2>&1
{ echo "== headline"; t $B run sang2019-torus --engine gpu --format json > "$R_DIR/headline.json"; } >> "$R_DIR/times.txt" 2>&1
cat "$R_DIR/times.txt"; grep -E '"(events|wall_seconds|engine_seconds|events_per_second)"' "$R_DIR/headline.json" | tr -d ' \n'; echo
# the rows, GPU against CPU, without the engine and timing cells
python3 - "$R_DIR" <<'PY' | tee "$R_DIR/rows-compared.txt"
import csv, sys
d = sys.argv[1]
skip = {"engine", "wall_seconds", "events_per_second", "row_digest"}
def rows(p):
    return sorted((tuple((k, v) for k, v in r.items() if k not in skip) for r in csv.DictReader(open(p))))
cpu = rows(f"{d}/sweep-256-d-cpu.csv")
for i in (1, 2, 3):
    gpu = rows(f"{d}/sweep-256-d-gpu-{i}.csv")
    print(f"GPU sweep {i}: {len(gpu)} rows, {'equal to' if gpu == cpu else 'DIFFERENT from'} the CPU's {len(cpu)}")
PY
tar czf "$OUT/sweep-d-results.tgz" -C "$R_DIR" .
