// times_offsets.wgsl — mmck.wgsl's times as one word each (times.rs, `Times::Offsets`):
// ticks after a base, a 64-bit tick count the consumer moves to its clock at the end of
// every phase (`t_shift`, `t_rebase`). Exact where the run's laws bound every time a phase
// can hold: within a phase the clock, the next arrival and every departure stay below
// (PHASE + 1) · G + S ticks past the base, and a customer in the system arrived less than
// (K − C + 1) · S ticks before the clock (G and S: the largest gap and service a draw can
// give, 32 means), both under 2³¹ — times.rs checks it before choosing this part. So the
// future times are unsigned offsets (`T_NEVER` the idle server's departure) and the
// customers' arrivals signed ones, and a compare, an add or a select is one instruction,
// not the two to four of a word pair.

alias Time = u32;
const TIME_ZERO: Time = 0u;
const T_NEVER: u32 = 0xffffffffu;

fn t_never() -> Time { return T_NEVER; }
fn t_is_never(a: Time) -> bool { return a == T_NEVER; }
fn t_lt(a: Time, b: Time) -> bool { return a < b; }
fn t_add(a: Time, d: Time) -> Time { return a + d; }
fn t_sub(a: Time, b: Time) -> Time { return a - b; }
// A draw's ticks from its 64-bit product with the mean (rng::scale_q27): below 32 means,
// so below 2³¹ by the bound, and the product's top five bits are zero.
fn t_of_product(p: vec2<u32>) -> Time { return (p.x >> 27u) | (p.y << 5u); }
// A duration (at most a phase's span) as 64-bit ticks.
fn t_wide(d: Time) -> vec2<u32> { return vec2<u32>(d, 0u); }
// The base of a dispatch whose clock is `t` (ticks).
fn t_base(t: vec2<u32>) -> vec2<u32> { return t; }
// A future time or `never` (ticks) as an offset from `base`, and back.
fn t_from(base: vec2<u32>, v: vec2<u32>) -> Time { return select(sub64(v, base).x, T_NEVER, all(v == never())); }
fn t_to(base: vec2<u32>, x: Time) -> vec2<u32> { return select(add64(base, vec2<u32>(x, 0u)), never(), x == T_NEVER); }
// An arrival time (ticks; at most 2³¹ before the base) as a signed offset, and back.
fn t_from_past(base: vec2<u32>, v: vec2<u32>) -> Time { return sub64(v, base).x; }
fn t_to_past(base: vec2<u32>, x: Time) -> vec2<u32> { return add64(base, vec2<u32>(x, select(0u, NONE, x >= 0x80000000u))); }
// How far the base moves at a phase's end: to the clock.
fn t_shift(t: Time) -> Time { return t; }
fn t_rebase(x: Time, by: Time) -> Time { return select(x - by, T_NEVER, x == T_NEVER); }
fn t_rebase_past(x: Time, by: Time) -> Time { return x - by; }
// The budget's time limit (ticks) from `base`: 0 where it is not after the base (no event
// runs), `T_NEVER` where it is past any offset a phase reaches.
fn t_limit(base: vec2<u32>, limit: vec2<u32>) -> Time {
    let d = sub64(limit, base);
    return select(select(d.x, T_NEVER, d.y != 0u), 0u, !lt64(base, limit));
}
// A producer's ring word for a draw q (−ln, Q5.27) of mean `mean` ticks: the draw's ticks
// (below 2³¹ by the bound), so that the consumer's event reads a time ready to add, not a
// product to take on its path to the next event; and the draw read back from it.
fn ring_word(q: u32, mean: u32) -> u32 { return t_of_product(mul32x32(q, mean)); }
fn t_of_ring_word(w: u32, mean: u32) -> Time { return w; }
