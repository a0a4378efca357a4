// time_native.wgsl — a 64-bit tick count (`Time`) as one native u64, for modules that name
// their times `Time` (mmck.wgsl), on devices with wgpu's SHADER_INT64 (Vulkan's
// shaderInt64). Twin of time_emulated.wgsl, the same bits: a compare or an add of two
// times is one 64-bit operation (two instructions on NVIDIA's hardware, its carry or its
// extended compare), not a compare of each word and a select (bench/NOTES.md, "Native
// 64-bit times for M/M/c/k").

alias Time = u64;

fn time_of(lo: u32, hi: u32) -> Time { return (u64(hi) << 32u) | u64(lo); }
fn time_lo(t: Time) -> u32 { return u32(t & 0xfffffffflu); }
fn time_hi(t: Time) -> u32 { return u32(t >> 32u); }
fn time_never() -> Time { return 0xfffffffffffffffflu; }
fn time_zero() -> Time { return 0lu; }
fn time_add(a: Time, b: Time) -> Time { return a + b; }
fn time_sub(a: Time, b: Time) -> Time { return a - b; }
fn time_lt(a: Time, b: Time) -> bool { return a < b; }
fn time_le(a: Time, b: Time) -> bool { return a <= b; }
fn time_eq(a: Time, b: Time) -> bool { return a == b; }
// the low 64 bits of t · m
fn time_mul(t: Time, m: u32) -> Time { return t * u64(m); }
// floor(q · m / 2²⁷): a Q5.27 value scaled to ticks (rng::scale_q27)
fn time_scaled_q27(q: u32, m: u32) -> Time { return (u64(q) * u64(m)) >> 27u; }
