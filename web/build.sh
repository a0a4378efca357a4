#!/usr/bin/env bash
# Builds PDES Lab's browser version as a static site in web/site/: index.html, the .wasm and
# its JS glue. Serve the folder (python3 -m http.server -d web/site 8080) or publish it as
# static pages. Needs the wasm32 target and the wasm-bindgen CLI of the version in
# Cargo.lock (both installed here when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

rustup target list --installed | grep -qx wasm32-unknown-unknown \
    || rustup target add wasm32-unknown-unknown
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ]; then
    # the CLI must match the crate's version exactly (the glue's ABI)
    cargo install --quiet wasm-bindgen-cli --version "$want"
fi

cargo build --quiet --profile web -p pdes-web --target wasm32-unknown-unknown
rm -rf web/site
mkdir -p web/site
wasm-bindgen --target web --no-typescript --out-dir web/site \
    target/wasm32-unknown-unknown/web/pdes-web.wasm
cp web/index.html web/site/
ls -l web/site
