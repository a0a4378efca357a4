// philox.wgsl — Philox4x32-10 and the integer service-time transform. Twin of crates/pdes-core/src/rng.rs
// and ServiceLaw in crates/pdes-models/src/torus/mod.rs, bit for bit.

fn mulhilo(a: u32, b: u32) -> vec2<u32> {
    return mul32x32(a, b); // (lo, hi)
}

fn philox4x32_10(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
    var c = counter;
    var k = key;
    for (var round = 0u; round < 10u; round++) {
        if round > 0u {
            k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
        }
        let p0 = mulhilo(0xD2511F53u, c.x);
        let p1 = mulhilo(0xCD9E8D57u, c.z);
        c = vec4<u32>(p1.y ^ c.y ^ k.x, p1.x, p0.y ^ c.w ^ k.y, p0.x);
    }
    return c;
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

// -ln(u) in Q5.27 for u = (2^32 - r) / 2^32 (see neg_ln_q27 in crates/pdes-core/src/rng.rs).
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

// Service time in ticks from the service word: shift + floor(neg_ln * scale / 2^27).
fn service_ticks(word: u32) -> vec2<u32> {
    return service_ticks_of(word, P.shift, P.scale);
}

// service_ticks with the law given (the torus's replicas each have their own).
fn service_ticks_of(word: u32, shift: vec2<u32>, scale: u32) -> vec2<u32> {
    let p = mul32x32(neg_ln_q27(word), scale);
    let scaled = vec2<u32>((p.x >> 27u) | (p.y << 5u), p.y >> 27u);
    return add64(shift, scaled);
}
