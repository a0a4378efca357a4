#!/usr/bin/env bash
# On the device (carrying .gl and carry/, after make.py carry/experiments): each variant's
# per-pass GPU time on the torus shape of 10^6 stations and the random network of 10^6
# (T = 20: the first 39 steps, before a variant's lost tokens matter). VARIANTS picks some.
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p -m700 $XDG_RUNTIME_DIR
B=carry/pdes-lab
S='service = { kind = "shifted", shift = 0.5, mean = 1.0 }'
TS="model.shape={ kind = \"torus\", rows = 1000, cols = 1000, tokens_per_station = 1, $S }"
R="model.shape={ kind = \"random\", stations = 1000000, degree = 4, tokens_per_station = 1, $S }"
for v in ${VARIANTS:-built-in no-philox no-atomic no-route}; do
  for shape in "$TS" "$R"; do
    echo "== $v ${shape:19:6}"
    PDES_WGSL_DIR=carry/experiments/$v PDES_GPU_PROFILE=1 $B run random-network --engine gpu --set "$shape" --set run.end_time=20 --format json 2>&1 | grep -E "network batch" | grep -v " 0 ran" | tail -2
  done
done
