// mul32_native.wgsl — the full 64-bit product of two u32 as (lo, hi), by one native 64-bit
// multiply: for devices with wgpu's SHADER_INT64 (Vulkan's shaderInt64). The same bits as
// mul32_emulated.wgsl (exact integer arithmetic), fewer instructions: Philox's ten rounds
// take two each (bench/NOTES.md, "Native 64-bit products for M/M/c/k").
fn mul32x32(a: u32, b: u32) -> vec2<u32> {
    let p = u64(a) * u64(b);
    return vec2<u32>(u32(p & 0xfffffffflu), u32(p >> 32u));
}
