#!/usr/bin/env bash
# Issue 58 (2026-11-30, eleventh session): paper 002's open network moved from its own
# engines onto the network's (a tandem shape). On one device: verify (full), the
# `open-network` bench suite with this binary (carry/pdes-lab) and with the last binary
# that had the open network's own engine (carry/pdes-lab-old, 1a925b9), and the whole
# process, alternating, three runs each: the paper's 16 × 16 at T = 10,000
# (interval / boundary, d = 1) and 16,384 lines × 64 = 1,048,576 stations at T = 300
# (window, shifted service 1 + Exp(4), d = 1), both on the GPU. The two engines draw
# different random numbers (a stream per line against one stream split among the
# lines): the same model on two sample paths, compared by time and events per second.
# Usage (device tool, carrying .gl and carry/): bash bench/open-network-device.sh
rm -rf /tmp/results  # a machine may keep an earlier call's results there
source bench/device-start.sh
OLD=carry/pdes-lab-old
MILLION='model.shape={ kind = "tandem", lines = 16384, servers_per_line = 64, exit_probability = 0.25, arrival_rate = 409.6, service = { kind = "shifted", shift = 1.0, mean = 5.0 } }'
OLD_MILLION=(--set model.lines=16384 --set model.servers_per_line=64 --set model.arrival_rate=409.6 --set model.service=shifted)
{ t $B bench --suite open-network --format csv; } > "$R_DIR/suite-network-engine.csv" 2> "$R_DIR/suite-network-engine.err"
{ t $OLD bench --suite open-network --format csv; } > "$R_DIR/suite-own-engine.csv" 2> "$R_DIR/suite-own-engine.err"
for i in 1 2 3; do
  r "paper-network-$i" $B run park-fishwick-open --engine gpu
  r "paper-own-$i" $OLD run park-fishwick-open --engine gpu
  r "million-network-$i" $B run park-fishwick-open --engine gpu --algorithm window --set run.end_time=300 --set "$MILLION"
  r "million-own-$i" $OLD run park-fishwick-open --engine gpu --algorithm window --set run.end_time=300 "${OLD_MILLION[@]}"
done
# where the 10⁶ network run's host time goes (set-up phases, the summary's read-back)
p million-network $B run park-fishwick-open --engine gpu --algorithm window --set run.end_time=300 --set "$MILLION"
awk '/^==/{n=$2; next} /wall/{print n, $1}' "$R_DIR/times.txt" | sort
python3 - "$R_DIR" <<'PY'
import json, glob, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    s = json.load(open(f))
    print(f.split("/")[-1], s.get("events"), s.get("steps"), s.get("utilization"), s.get("mean_tokens_in_system"), s.get("engine_seconds"))
PY
for f in "$R_DIR"/suite-*.err; do tail -n 3 "$f"; done
grep -v "ran\b" "$R_DIR/profile-million-network.txt" | head -30
tar czf "$OUT/results.tgz" -C "$R_DIR" .
