for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p -m700 $XDG_RUNTIME_DIR
B=carry/pdes-lab
S='service = { kind = "shifted", shift = 0.5, mean = 1.0 }'
R="model.shape={ kind = \"random\", stations = 1000000, degree = 4, tokens_per_station = 1, $S }"
TS="model.shape={ kind = \"torus\", rows = 1000, cols = 1000, tokens_per_station = 1, $S }"
PDES_GPU_PROFILE=1 $B run random-network --engine gpu --set "$R" --set run.end_time=200 --format json 2>&1 | grep -E "network batch" | tail -3
PDES_GPU_PROFILE=1 $B run random-network --engine gpu --set "$TS" --set run.end_time=200 --format json 2>&1 | grep -E "network batch" | tail -3
PDES_GPU_PROFILE=1 $B run sang2019-torus --engine gpu --set model.rows=1000 --set model.cols=1000 --set model.mean_service=1 --set run.d=0.5 --set run.end_time=200 --format json 2>&1 | grep -E "batch" | tail -3
