// time_emulated.wgsl — a 64-bit tick count (`Time`) as its (lo, hi) words, for modules that
// name their times `Time` (mmck.wgsl): every adapter. Twin of time_native.wgsl, the same
// bits by exact integer arithmetic (u64.wgsl's helpers).

alias Time = vec2<u32>;

fn time_of(lo: u32, hi: u32) -> Time { return vec2<u32>(lo, hi); }
fn time_lo(t: Time) -> u32 { return t.x; }
fn time_hi(t: Time) -> u32 { return t.y; }
fn time_never() -> Time { return never(); }
fn time_zero() -> Time { return vec2<u32>(0u); }
fn time_add(a: Time, b: Time) -> Time { return add64(a, b); }
fn time_sub(a: Time, b: Time) -> Time { return sub64(a, b); }
fn time_lt(a: Time, b: Time) -> bool { return lt64(a, b); }
fn time_le(a: Time, b: Time) -> bool { return le64(a, b); }
fn time_eq(a: Time, b: Time) -> bool { return all(a == b); }
// the low 64 bits of t · m
fn time_mul(t: Time, m: u32) -> Time { return mul64(t, vec2<u32>(m, 0u)); }
// floor(q · m / 2²⁷): a Q5.27 value scaled to ticks (rng::scale_q27)
fn time_scaled_q27(q: u32, m: u32) -> Time {
    let p = mul32x32(q, m);
    return vec2<u32>((p.x >> 27u) | (p.y << 5u), p.y >> 27u);
}
