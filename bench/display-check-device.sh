#!/usr/bin/env bash
# Session of 2026-11-29 (third) on the device: verify (full) first; then the DEVS display
# pass's new second word (each digit with its flips undone, issue 56 §5) against its CPU
# twin on the NVIDIA GPU (the models test binary's display-pass test, built here and
# carried as carry/models-test); then the torus headline as `run` gives it, to show the
# session's changes (none in the compute engines) left it where it was.
# Usage (device tool, carrying .gl and carry/): bash bench/display-check-device.sh
source bench/device-start.sh
PDES_REQUIRE_GPU=1 carry/models-test --test-threads 1 gpu_devs::the_display_pass 2>&1 | tail -4 | tee "$R_DIR/display-pass-test.txt"
{ echo "== headline"; t $B run sang2019-torus --engine gpu --format json > "$R_DIR/headline.json"; } 2>> "$R_DIR/times.txt"
cat "$R_DIR/times.txt"; grep -E '"(events|wall_seconds|engine_seconds|events_per_second)"' "$R_DIR/headline.json" | tr -d ' \n'; echo
tar czf "$OUT/display-check-results.tgz" -C "$R_DIR" .
