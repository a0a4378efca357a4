#!/usr/bin/env bash
# Last session's segmentation fault after a refusal with --devices all on two H200s: the
# exit status of commands that open both devices and then end early or normally (a run
# refused by the model, a sweep with a bad key, a device listed twice, a plain run).
# verify (full) first (bench/device-start.sh).
# Usage (device tool, kind nvidia-h200-x2, carrying .gl and carry/):
# bash bench/devices-exit-x2-device.sh
source bench/device-start.sh
probe() { "$B" "$@" > /dev/null 2> "$R_DIR/probe.err"; local rc=$?; echo "rc $rc: pdes-lab $* — $(tail -n 1 "$R_DIR/probe.err" | cut -c1-160)"; }
probe run cheng2014-mmck --engine gpu --devices all --format json
probe run cheng2014-mmck --engine gpu --devices all --set run.replications=1000 --set run.customers=100 --format json
probe run cheng2014-mmck --engine gpu --devices 0,1,1 --set run.replications=3000 --format json
probe run teaching-16x16 --engine gpu --devices all --format json
probe run clinic --engine gpu --devices all --format json
probe sweep sang2019-fig14-15 --seeds 2 --engine gpu --devices all --set model.rows=0
probe sweep sang2019-fig14-15 --seeds 2 --engine gpu --devices all
probe run cheng2014-mmck --engine gpu --devices all --set run.replications=100000000 --format json
probe run phold --engine gpu --devices all --format json
