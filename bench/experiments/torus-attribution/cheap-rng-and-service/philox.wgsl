// philox.wgsl — Philox4x32-10 and the integer service-time transform. Twin of src/rng.rs
// and ServiceLaw in src/models/torus/mod.rs, bit for bit.

fn mulhilo(a: u32, b: u32) -> vec2<u32> {
    return mul32x32(a, b); // (lo, hi)
}

// EXPERIMENT (bench/experiments/torus-attribution): Philox4x32-10 replaced by four rounds
// of a multiply-xorshift mix — same inputs, same outputs' shape, a tenth of the work. The
// sample path differs from the CPU's: for timing only.
fn mix32(x: u32) -> u32 {
    var h = x * 0x9e3779b1u;
    h ^= h >> 15u;
    h *= 0x85ebca77u;
    h ^= h >> 13u;
    return h;
}

fn philox4x32_10(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
    let h = mix32(counter.x ^ mix32(key.x ^ mix32(key.y ^ counter.z)));
    return vec4<u32>(h, mix32(h + 1u), mix32(h + 2u), mix32(h + 3u));
}

// The four words of (seed, token, visit): key (token, seed_lo), counter (visit, 0, seed_hi, 0).
fn seeded_token_words(seed: vec2<u32>, token: u32, visit: u32) -> vec4<u32> {
    return philox4x32_10(vec4<u32>(visit, 0u, seed.y, 0u), vec2<u32>(token, seed.x));
}

// The same with the run's seed (P.seed_lo, P.seed_hi).
fn token_words(token: u32, visit: u32) -> vec4<u32> {
    return seeded_token_words(vec2<u32>(P.seed_lo, P.seed_hi), token, visit);
}

const LN2_Q27: u32 = 93032640u;

// -ln(u) in Q5.27 for u = (2^32 - r) / 2^32 (see neg_ln_q27 in src/rng.rs).
fn neg_ln_q27(r: u32) -> u32 {
    if r == 0u { return 0u; }
    let v = 0u - r;
    let e = 31u - countLeadingZeros(v);
    let frac = (v << (31u - e)) & 0x7fffffffu;
    let idx = frac >> 21u;
    let rem = (frac >> 6u) & 0x7fffu;
    let t0 = ln_table[idx];
    let t1 = ln_table[idx + 1u];
    let ln_m = t0 + (((t1 - t0) * rem) >> 15u);
    return (32u - e) * LN2_Q27 - ln_m;
}

// EXPERIMENT: the service time without the logarithm (no table lookup): shift + the
// word's low 24 bits scaled — a uniform, not an exponential. For timing only.
fn service_ticks(word: u32) -> vec2<u32> {
    let p = mul32x32(word & 0xffffffu, P.scale);
    let scaled = vec2<u32>((p.x >> 23u) | (p.y << 9u), p.y >> 23u);
    return add64(P.shift, scaled);
}
