// times_ticks.wgsl — mmck.wgsl's times as 64-bit ticks, (lo, hi) word pairs (times.rs,
// `Times::Ticks`): exact for every run; the base stays 0 and never moves.

alias Time = vec2<u32>;
const TIME_ZERO: Time = vec2<u32>(0u);

fn t_never() -> Time { return never(); }
fn t_is_never(a: Time) -> bool { return all(a == never()); }
fn t_lt(a: Time, b: Time) -> bool { return lt64(a, b); }
fn t_add(a: Time, d: Time) -> Time { return add64(a, d); }
fn t_sub(a: Time, b: Time) -> Time { return sub64(a, b); }
fn t_of_product(p: vec2<u32>) -> Time { return vec2<u32>((p.x >> 27u) | (p.y << 5u), p.y >> 27u); }
fn t_wide(d: Time) -> vec2<u32> { return d; }
fn t_base(t: vec2<u32>) -> vec2<u32> { return vec2<u32>(0u); }
fn t_from(base: vec2<u32>, v: vec2<u32>) -> Time { return v; }
fn t_to(base: vec2<u32>, x: Time) -> vec2<u32> { return x; }
fn t_from_past(base: vec2<u32>, v: vec2<u32>) -> Time { return v; }
fn t_to_past(base: vec2<u32>, x: Time) -> vec2<u32> { return x; }
fn t_shift(t: Time) -> Time { return TIME_ZERO; }
fn t_rebase(x: Time, by: Time) -> Time { return x; }
fn t_rebase_past(x: Time, by: Time) -> Time { return x; }
fn t_limit(base: vec2<u32>, limit: vec2<u32>) -> Time { return limit; }
// A producer's ring word for a draw q: q itself (its ticks need two words), scaled when read.
fn ring_word(q: u32, mean: u32) -> u32 { return q; }
fn t_of_ring_word(w: u32, mean: u32) -> Time { return t_of_product(mul32x32(w, mean)); }
