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
# r NAME CMD…: CMD's JSON summary to $R_DIR/NAME.json, its whole-process time to times.txt
# after the line "== NAME". p NAME CMD…: CMD's per-pass GPU times (PDES_GPU_PROFILE) to
# $R_DIR/profile-NAME.txt. random_shape REGULAR: the networks' benchmark shape, 10^6
# stations of degree 4, one token each, shift 0.5 + Exp(0.5) (`regular = true` or false).
r() { local name=$1; shift; { echo "== $name" >&2; t "$@" --format json > "$R_DIR/$name.json"; } 2>> "$R_DIR/times.txt"; }
p() { local name=$1; shift; PDES_GPU_PROFILE=1 "$@" --format json 2>&1 >/dev/null | grep -v " 0 ran" > "$R_DIR/profile-$name.txt"; }
random_shape() {
  echo "model.shape={ kind = \"random\", stations = 1000000, degree = 4, tokens_per_station = 1, service = { kind = \"shifted\", shift = 0.5, mean = 1.0 }, regular = $1 }"
}
# compare_rows NAME…: whether every $R_DIR/NAME-*.csv holds the rows of the first, without
# their timing cells, a line per NAME (also to $R_DIR/rows-compared.txt).
compare_rows() {
  python3 - "$R_DIR" "$@" <<'PY' | tee -a "$R_DIR/rows-compared.txt"
import csv, glob, sys
d, names = sys.argv[1], sys.argv[2:]
skip = {"wall_seconds", "events_per_second", "row_digest", "engine_seconds"}
rows = lambda p: sorted(tuple((k, v) for k, v in r.items() if k not in skip) for r in csv.DictReader(open(p)))
for name in names:
    files = sorted(glob.glob(f"{d}/{name}-*.csv"))
    if files:
        ref = rows(files[0])
        diff = [f.split("/")[-1] for f in files if rows(f) != ref]
        print(f"{name}: {len(files) - len(diff)} of {len(files)} files' {len(ref)} rows equal to {files[0].split('/')[-1]}'s; different: {diff or 'none'}")
PY
}
