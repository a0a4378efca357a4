// reduce_check.wgsl — exercises the workgroup reductions (after u64.wgsl and one of
// reduce_portable.wgsl / reduce_subgroup.wgsl) on known inputs, so that `pdes-lab verify`
// can compare them with the CPU on the user's own adapter. Twin of crates/pdes-gpu/src/reduce_check.rs.
//
// Each thread reads its own m, a, b (64-bit) and m32, a32 (32-bit), then runs a loop whose
// trip count differs between neighbouring threads before it reduces, as the engines' passes
// do (reduce_partials' strided loop, the scan's per-item branches): on hardware that does not
// reconverge after such a loop the subgroup operations see partial subgroups. The a and b
// values of a thread differ, so a reduction that mixes up its two sums is caught.

struct CheckIn { m: vec2<u32>, a: vec2<u32>, b: vec2<u32>, small: vec2<u32> }
struct CheckOut { min: vec2<u32>, a: vec2<u32>, b: vec2<u32>, min_only: vec2<u32>, min32: u32, sum32: u32, pad0: u32, pad1: u32 }

@group(0) @binding(0) var<storage, read> check_in: array<CheckIn>;
@group(0) @binding(1) var<storage, read_write> check_out: array<CheckOut>;

// Returns v after a loop of (lid * 7 + wg) % 5 rounds that leaves it unchanged (each round
// adds small.y >> 24 of some thread, which is 0 by construction but not to the compiler):
// the divergence in front of the reductions that the engines' passes have.
fn diverge(v: vec2<u32>, lid: u32, wg: u32) -> vec2<u32> {
    var x = v;
    for (var i = 0u; i < (lid * 7u + wg) % 5u; i++) {
        x.x += check_in[wg * WG + ((lid + i) % WG)].small.y >> 24u;
    }
    return x;
}

@compute @workgroup_size(WG)
fn check(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    let v = check_in[wg * WG + lid];
    let m = diverge(v.m, lid, wg);
    let r = wg_reduce(lid, m, v.a, v.b);
    workgroupBarrier(); // the portable reductions reuse their shared arrays
    let mo = wg_min(lid, diverge(v.m, lid, wg + 1u));
    workgroupBarrier();
    let s = wg_min_sum32(lid, v.small.x, v.small.y);
    if lid == 0u {
        check_out[wg] = CheckOut(r.min, r.a, r.b, mo, s.x, s.y, 0u, 0u);
    }
}
