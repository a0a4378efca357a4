#!/usr/bin/env bash
# Issue 57 §1 (2026-11-30, ninth session): the torus's initial state written on the GPU
# (torus_init.wgsl; carry/pdes-lab) against the binary before, which built it on the host
# and uploaded it (carry/pdes-lab-old, bd3734d: the same sweep plan); alternating, three
# runs each, the whole process: the 2048² headline, the 256² d sweep, the Fig. 14 sweep on
# one device and on two; the rows and summaries compared without their timing fields; the
# host phases of one profiled run of each. Verify (full, the new binary) first.
# Usage (device tool, kind nvidia-h200-x2 — on one H200 the two-device runs are left out —,
# carrying .gl and carry/):
# bash bench/torus-init-x2-device.sh
source bench/device-start.sh
OLD=carry/pdes-lab-old
$B devices > "$R_DIR/devices.txt" 2>&1; cat "$R_DIR/devices.txt"
$B sweep teaching-16x16 --set model.rows=64 --set model.cols=64 --vary run.d=1 --seeds 8 --engine gpu --devices 0,1 --format csv --out /tmp/checks.csv > /dev/null 2>&1
declare -A W=(
  [headline]="run sang2019-torus --engine gpu --format json"
  [d256]="sweep teaching-16x16 --set model.rows=256 --set model.cols=256 --vary run.d=0.1:1.6:16 --seeds 5 --engine gpu --format csv"
  [fig14]="sweep sang2019-fig14-15 --seeds 40 --engine gpu --format csv"
  [fig14x2]="sweep sang2019-fig14-15 --seeds 40 --engine gpu --format csv --devices 0,1"
)
NAMES="headline d256 fig14"; [ "$(nvidia-smi -L | wc -l)" -ge 2 ] && NAMES="$NAMES fig14x2"
for name in $NAMES; do
  for i in 1 2 3; do
    for which in new old; do
      bin=$B; [ $which = old ] && bin=$OLD
      f="$name-$which-$i"
      /usr/bin/time -f "%e" -o "$R_DIR/$f.time" $bin ${W[$name]} > "$R_DIR/$f.out" 2>> "$R_DIR/log.txt"
    done
  done
  for which in new old; do
    bin=$B; [ $which = old ] && bin=$OLD
    PDES_GPU_PROFILE=1 $bin ${W[$name]} 2>&1 >/dev/null | grep -v "^batch" > "$R_DIR/$name-$which-profile.txt"
  done
done
for f in "$R_DIR"/*.time; do echo "$(basename "$f" .time) $(cat "$f") s"; done | sort | tee "$R_DIR/times.txt"
python3 - "$R_DIR" <<'PY' | tee "$R_DIR/compared.txt"
import csv, glob, json, sys
d = sys.argv[1]
skip = {"wall_seconds", "events_per_second", "row_digest", "engine_seconds", "setup_seconds", "threads"}
def content(p):
    if p.endswith(("headline-new-1.out", "headline-old-1.out")) or "headline" in p:
        def strip(x):
            if isinstance(x, dict):
                return {k: strip(v) for k, v in x.items() if k not in skip and not k.endswith("_per_second") and not k.endswith("seconds")}
            if isinstance(x, list):
                return [strip(v) for v in x]
            return x
        return strip(json.load(open(p)))
    return sorted(tuple((k, v) for k, v in r.items() if k not in skip) for r in csv.DictReader(open(p)))
for name in ("headline", "d256", "fig14", "fig14x2"):
    files = sorted(glob.glob(f"{d}/{name}-*-[0-9].out"))
    if not files:
        continue
    ref = content(files[0])
    diff = [f.split("/")[-1] for f in files if content(f) != ref]
    print(f"{name}: {len(files) - len(diff)} of {len(files)} outputs equal to {files[0].split('/')[-1]}; different: {diff or 'none'}")
PY
grep -h "set-up\|returned" "$R_DIR"/headline-*-profile.txt
rm -f "$R_DIR"/*-[0-9].out
tar czf "$OUT/results.tgz" -C "$R_DIR" .
