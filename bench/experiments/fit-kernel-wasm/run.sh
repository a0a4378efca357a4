#!/usr/bin/env bash
# The CPU fit's kernel (crates/pdes-models/src/fit/blocks.rs) as a browser tab runs it:
# compiled to wasm32 twice (plain, and with +simd128) in a throwaway crate that includes the
# file itself (`#[path]`), timed in node's V8 against the libm loop it replaced (the same
# formula as `fit::log_density`), k = 10 (the CPU's k = 10 fit of the shipped sample) over
# 7,051 values; best of 7 × 50 evaluations, ns a term (a value and a component).
# Usage (from the repository root): bash bench/experiments/fit-kernel-wasm/run.sh
set -euo pipefail
repo=$(pwd)
tmp=$(mktemp -d)
mkdir -p "$tmp/src"
cat > "$tmp/Cargo.toml" <<TOML
[package]
name = "fit-kernel-wasm"
version = "0.1.0"
edition = "2024"
[lib]
crate-type = ["cdylib"]
[workspace]
TOML
cat > "$tmp/src/lib.rs" <<RUST
#![allow(dead_code, static_mut_refs)]
/// What blocks.rs needs of a mixture: its terms (ln w − ln σ − ln √(2π), 1/σ, μ).
pub struct Mixture { terms: Vec<(f64, f64, f64)> }
impl Mixture { pub fn terms(&self) -> Vec<(f64, f64, f64)> { self.terms.clone() } }
#[path = "$repo/crates/pdes-models/src/fit/blocks.rs"]
mod blocks;
static mut XS: Vec<f64> = Vec::new();
static mut NS: Vec<u64> = Vec::new();
fn fitted() -> Mixture {
    let w: [f64; 10] = [0.18, 0.0007, 0.0754, 0.1023, 0.1465, 0.145, 0.0138, 0.1251, 0.1049, 0.1062];
    let m = [0.0446, -0.0473, 0.2104, 0.4988, 0.7521, 0.9491, 0.0203, 0.2744, 0.0633, 0.4979];
    let sd: [f64; 10] = [0.029, 0.0015, 0.0522, 0.0871, 0.0602, 0.0294, 0.0086, 0.0498, 0.0258, 0.0793];
    Mixture { terms: (0..10).map(|j| (w[j].ln() - sd[j].ln() - 0.918_938_533_204_672_8, 1.0 / sd[j], m[j])).collect() }
}
#[unsafe(no_mangle)]
pub extern "C" fn setup(n: u32) {
    unsafe { XS = (0..n).map(|i| (i as f64 + 0.5) / n as f64).collect(); NS = vec![1; n as usize]; }
}
#[unsafe(no_mangle)]
pub extern "C" fn blocks(reps: u32) -> f64 {
    let c = blocks::Components::of(&fitted());
    (0..reps).map(|_| unsafe { blocks::weighted_loglik(&c, &XS, &NS) }).sum()
}
/// The loop the blocks replaced: per value, a max pass and libm's exp per component, ln.
#[unsafe(no_mangle)]
pub extern "C" fn libm(reps: u32) -> f64 {
    let t = fitted().terms;
    let ln_f = |x: f64| {
        let e = |(a, inv, mu): &(f64, f64, f64)| { let z = (x - mu) * inv; a - 0.5 * z * z };
        let m = t.iter().map(e).fold(f64::NEG_INFINITY, f64::max);
        m + t.iter().map(|c| (e(c) - m).exp()).sum::<f64>().ln()
    };
    (0..reps).map(|_| unsafe { XS.iter().zip(&NS).map(|(x, n)| *n as f64 * ln_f(*x)).sum::<f64>() }).sum()
}
RUST
(cd "$tmp" && cargo build --quiet --release --target wasm32-unknown-unknown \
    && cp target/wasm32-unknown-unknown/release/fit_kernel_wasm.wasm plain.wasm \
    && RUSTFLAGS="-C target-feature=+simd128" cargo build --quiet --release --target wasm32-unknown-unknown \
    && cp target/wasm32-unknown-unknown/release/fit_kernel_wasm.wasm simd128.wasm)
cat > "$tmp/bench.mjs" <<'JS'
import { readFileSync } from 'fs';
const dir = process.argv[2];
for (const round of [1, 2]) {
  for (const [build, fn] of [['plain', 'blocks'], ['simd128', 'blocks'], ['plain', 'libm']]) {
    const { instance } = await WebAssembly.instantiate(readFileSync(`${dir}/${build}.wasm`), {});
    instance.exports.setup(7051);
    instance.exports[fn](20);
    let best = Infinity, v = 0;
    for (let i = 0; i < 7; i++) { const t = performance.now(); v = instance.exports[fn](50); best = Math.min(best, performance.now() - t); }
    console.log(`round ${round} ${fn} (${build}): ${(best * 1e6 / (50 * 10 * 7051)).toFixed(2)} ns a term (sum ${v})`);
  }
}
JS
node "$tmp/bench.mjs" "$tmp"
rm -rf "$tmp"
