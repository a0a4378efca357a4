#!/usr/bin/env bash
# The browser test (issue 34): builds the site, opens links in headless Chromium and checks
# that the page's run equals `pdes-lab run` of the same preset and assignments, field for
# field. Installs Chromium (Debian's package) and playwright-core (npm) when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v chromium >/dev/null; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq >/dev/null
    $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
web/build.sh
# the native binary to compare with: PDES_LAB names one already built (CI passes the one
# `cargo test --release` just built: `cargo build` would build it again, without the tests'
# features); otherwise build it
bin=${PDES_LAB:-}
if [ -z "$bin" ]; then
    cargo build --quiet --release --bin pdes-lab
    bin=target/release/pdes-lab
fi
(cd web/test && npm ci --quiet --no-audit --no-fund)
mkdir -p target/web-test
# the teaching torus as the README opens it, a link that makes causality errors (both on
# the page's CPU engine), the clinic network, and the teaching torus on the page's WebGPU engine, whose
# start-up check must pass too
node web/test/browser.mjs web/site "$bin" target/web-test/teaching.png \
    "preset=teaching-16x16&run.end_time=300&speed=300"
node web/test/browser.mjs web/site "$bin" target/web-test/interval.png \
    "preset=teaching-16x16&model.service=exponential&run.algorithm=interval&run.d=4&run.end_time=300&speed=300"
# the student's link of issue 56 §1 (a 24×20 torus, d = 0.37, to T = 250 at speed 300):
# the page's summary equals `run`'s, and its screen shows the same (tests/ui/screen_equals_run.rs)
node web/test/browser.mjs web/site "$bin" target/web-test/student.png \
    "preset=teaching-16x16&model.rows=24&model.cols=20&run.d=0.37&run.end_time=250&speed=300"
# the user's own network (issue 55): the clinic file, its per-station rows included
node web/test/browser.mjs web/site "$bin" target/web-test/clinic.png \
    "preset=clinic&run.end_time=300&run.warmup=20&speed=300"
node web/test/browser.mjs web/site "$bin" target/web-test/gpu.png \
    "preset=teaching-16x16&run.engine=gpu&run.end_time=300&speed=300" verify
