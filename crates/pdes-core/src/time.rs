//! Simulated time as fixed-point integer ticks.
//!
//! Every engine (CPU and GPU) keeps event times as unsigned 64-bit counts of
//! 2^-20 time units (about 0.95e-6). Integer arithmetic is exact and identical on every
//! device, so the GPU reproduces the CPU reference bit for bit, and a horizon of
//! 50,000 time units still separates events 1e-3 apart by a thousand ticks. The WGSL
//! twin stores a tick count as `vec2<u32>` (lo, hi); see `shaders/u64.wgsl`.

/// Simulated time in ticks.
pub type Ticks = u64;

/// Fractional bits of a tick count.
pub const TICK_BITS: u32 = 20;
/// Ticks per simulated time unit.
pub const TICKS_PER_UNIT: f64 = (1u64 << TICK_BITS) as f64;
/// Largest simulated time a run may reach: 2^40 units leaves headroom below 2^64 ticks.
pub const MAX_TIME_UNITS: f64 = (1u64 << 40) as f64;

/// Converts time units to the nearest tick.
pub fn to_ticks(units: f64) -> Ticks {
    (units * TICKS_PER_UNIT).round() as Ticks
}

/// Converts ticks to time units.
pub fn to_units(ticks: Ticks) -> f64 {
    ticks as f64 / TICKS_PER_UNIT
}
