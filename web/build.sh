#!/usr/bin/env bash
# Builds PDES Lab's browser version as a static site in web/site/: index.html, the .wasm and
# its JS glue. Serve the folder (python3 -m http.server -d web/site 8080) or publish it as
# static pages. Needs the wasm32 target and the wasm-bindgen CLI of the version in
# Cargo.lock (both installed here when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
say() { echo "web/build.sh [$((SECONDS - started)) s]: $*"; }

rustup target list --installed | grep -qx wasm32-unknown-unknown \
    || rustup target add wasm32-unknown-unknown
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ]; then
    # the CLI must match the crate's version exactly (the glue's ABI)
    say "installing wasm-bindgen-cli $want (once per machine: a few minutes)"
    cargo install --quiet wasm-bindgen-cli --version "$want"
fi

# the build's stamp: a digest of the sources, so that a page remembers its GPU check per
# build (crates/pdes-runs/src/trust.rs) and checks again after any change
PDES_BUILD_ID=$(git ls-files -co --exclude-standard -- crates src Cargo.lock Cargo.toml \
    | sort | xargs sha256sum | sha256sum | cut -c1-16)
export PDES_BUILD_ID
say "compiling PDES Lab for the browser (build $PDES_BUILD_ID; the first time about 20 minutes on 2 cores, then 1–3)"
cargo build --quiet --profile web -p pdes-web --target wasm32-unknown-unknown
say "generating the JavaScript glue (wasm-bindgen)"
rm -rf web/site
mkdir -p web/site
wasm-bindgen --target web --no-typescript --out-dir web/site \
    target/wasm32-unknown-unknown/web/pdes-web.wasm
cp web/index.html web/site/
ls -l web/site
say "done: serve web/site (python3 -m http.server -d web/site 8080)"
