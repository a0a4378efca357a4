#!/usr/bin/env bash
# Issue 55 §2, the arrive pass a workgroup per segment (receivers listed in workgroup memory)
# and the depart pass's shape: verify (full) first, then the random network of 10^6 stations
# (degree 4, shift 0.5 + Exp(0.5), d = 0.5, T = 2,000) with the binary before the change
# (carry/pdes-lab-7990ab9) and after it at several depart shapes (PDES_NET_DEPART =
# threads x workgroups a segment), each twice, with the per-pass GPU times at T = 20; the
# torus engine at the same size for the ratio. Usage (device tool, carrying .gl and carry/):
# bash bench/network-depart-shape-device.sh
source bench/device-start.sh
S='service = { kind = "shifted", shift = 0.5, mean = 1.0 }'
R="model.shape={ kind = \"random\", stations = 1000000, degree = 4, tokens_per_station = 1, $S }"
run() { local name=$1 bin=$2; shift 2
  for i in 1 2; do { echo "== $name-$i"; t $bin run random-network --engine gpu --set "$R" --set run.end_time=2000 --format json > "$R_DIR/$name-$i.json"; } 2>> "$R_DIR/times.txt"; done
  PDES_GPU_PROFILE=1 $bin run random-network --engine gpu --set "$R" --set run.end_time=20 --format json 2>&1 >/dev/null | grep "network batch" | grep -v " 0 ran" | sed "s/^/$name: /" >> "$R_DIR/profile.txt"
}
run before-7990ab9 carry/pdes-lab-7990ab9
run after-256x4 $B
for shape in 128x4 64x8 64x4 32x16; do PDES_NET_DEPART=$shape run after-$shape $B; done
TORUS="--set model.rows=1000 --set model.cols=1000 --set model.mean_service=1 --set run.d=0.5"
for i in 1 2; do { echo "== torus-engine-$i"; t $B run sang2019-torus --engine gpu $TORUS --set run.end_time=2000 --format json > "$R_DIR/torus-engine-$i.json"; } 2>> "$R_DIR/times.txt"; done
{ echo "== clinic"; t $B run clinic --engine gpu --format json > "$R_DIR/clinic.json"; } 2>> "$R_DIR/times.txt"
cat "$R_DIR/times.txt"; cat "$R_DIR/profile.txt" | awk '{print}' | tail -40
for f in "$R_DIR"/*.json; do echo "$(basename $f): $(grep -E '"(events|steps|utilization|wall_seconds|engine_seconds|events_per_second)"' "$f" | head -6 | tr -d ' \n')"; done
tar czf "$OUT/results.tgz" -C "$R_DIR" .
