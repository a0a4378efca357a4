// u64.wgsl — 64-bit tick arithmetic shared by every compute module (torus and diffusion).
// Twin of crates/pdes-core/src/time.rs: a tick count (u64 on the CPU) is a vec2<u32> (lo, hi). All
// arithmetic here is exact integer arithmetic, so every device computes the same bits as
// the CPU.

const NONE: u32 = 0xffffffffu;
const WG: u32 = 256u; // threads per workgroup of every compute pass

fn never() -> vec2<u32> { return vec2<u32>(NONE, NONE); }

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

fn lt64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

fn le64(a: vec2<u32>, b: vec2<u32>) -> bool { return !lt64(b, a); }

fn min64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, lt64(b, a)); }

fn max64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(a, b, lt64(a, b)); }

// a − b, or 0 where b ≥ a.
fn sat_sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return select(vec2<u32>(0u), sub64(a, b), lt64(b, a)); }

// mul32x32(a, b), the full 64-bit product of two u32 as (lo, hi), comes from
// mul32_emulated.wgsl or mul32_native.wgsl (shaders.rs, `Products`).

// Low 64 bits of a 64 x 64 product.
fn mul64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let p = mul32x32(a.x, b.x);
    return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}

