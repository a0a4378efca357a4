# What every device script does first (sourced, from the repository root, carrying .gl and
# carry/): the Vulkan loader unpacked, a fresh check cache, the names B (the binary), OUT
# (what comes back), R_DIR (the results), t (a command's whole-process time), the device's
# name, and `pdes-lab verify` in full — so that every figure the script then measures comes
# from a call that verified this binary on this GPU.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p -m700 $XDG_RUNTIME_DIR
export PDES_CACHE_DIR=/tmp/pdes-cache; rm -rf "$PDES_CACHE_DIR"
B=carry/pdes-lab; OUT=${OUT:-/tmp/out}; R_DIR=/tmp/results; mkdir -p "$OUT" "$R_DIR"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$R_DIR/device.txt" 2>&1
t() { /usr/bin/time -f "%e s wall" "$@"; }
{ t $B verify; } > "$R_DIR/verify.txt" 2>&1; tail -2 "$R_DIR/verify.txt"
