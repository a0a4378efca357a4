#!/usr/bin/env bash
# On the device (carrying .gl and carry/, after make.py carry/experiments): the network's
# GPU passes per step (PDES_GPU_PROFILE, T = 20) for the random network of degree 4 at
# 10^5 .. 4x10^6 stations with the built-in shaders (does a listed station cost more as the
# state outgrows the L2 cache?), then each variant of make.py at 10^6.
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p -m700 $XDG_RUNTIME_DIR
B=carry/pdes-lab
$B verify --quick 2>&1 | tail -1
S='service = { kind = "shifted", shift = 0.5, mean = 1.0 }'
net() { echo "model.shape={ kind = \"random\", stations = $1, degree = 4, tokens_per_station = 1, $S }"; }
prof() { PDES_GPU_PROFILE=1 $B run random-network --engine gpu --set "$1" --set run.end_time=20 --format json 2>&1 | grep -E "network batch|\"events\"|\"steps\"" | grep -v " 0 ran" | tail -4; }
for n in ${SIZES:-100000 250000 1000000 4000000}; do echo "== built-in $n"; prof "$(net $n)"; done
for v in ${VARIANTS:-no-live no-stats no-stats-no-atomic}; do
  echo "== $v 1000000"; PDES_WGSL_DIR=carry/experiments/$v prof "$(net 1000000)"
done
