// reduce_subgroup.wgsl — the same workgroup reductions as reduce_portable.wgsl, with
// subgroup operations (wgpu feature SUBGROUP): one subgroup op per value, then each
// subgroup's result into shared memory (a slot per subgroup, or shared atomics in
// wg_reduce), two or three barriers instead of log2(WG) + 1. (naga 30 accepts the
// subgroup builtins when the device has the feature and rejects `enable subgroups;`.)
//
// The sums are written out in wg_reduce itself, one vec4 subgroupAdd of 16-bit limbs per
// value. An earlier version called a helper `sg_sum64(v)` (four scalar subgroupAdds) once
// for a and once for b: naga's SPIR-V for it is correct, but NVIDIA's driver (580.159.04,
// H100 and H200) returned limb sums of a for b — every departure counted as a causality
// error, sojourn sums replaced by busy sums — while lavapipe (8-wide subgroups) was exact.
// Written inline, as here or as eight scalar subgroupAdds, the H100 is exact
// (bench/results/2026-11-22-h100-verify/candidates.txt). `pdes-lab verify` checks these
// functions directly on the user's adapter (shaders/reduce_check.wgsl).

struct Reduced {
    min: vec2<u32>,
    a: vec2<u32>,
    b: vec2<u32>,
}

var<workgroup> red_m: array<vec2<u32>, WG>; // wg_min and wg_min_sum32: a slot per subgroup
var<workgroup> red_slots: atomic<u32>;
var<workgroup> red_hi: atomic<u32>;
var<workgroup> red_lo: atomic<u32>;
var<workgroup> red_limbs: array<atomic<u32>, 8>;

// Lexicographic 64-bit minimum across the subgroup: the high words first, then the low
// words of the lanes that hold the smallest high word.
fn sg_min64(v: vec2<u32>) -> vec2<u32> {
    let hi = subgroupMin(v.y);
    let lo = subgroupMin(select(NONE, v.x, v.y == hi));
    return vec2<u32>(lo, hi);
}

// The 64-bit value of four 16-bit limb sums (each below 2^32).
fn limbs64(l: vec4<u32>) -> vec2<u32> {
    var r = vec2<u32>(l.x, 0u);
    r = add64(r, vec2<u32>(l.y << 16u, l.y >> 16u));
    r = add64(r, vec2<u32>(0u, l.z));
    return add64(r, vec2<u32>(0u, l.w << 16u));
}

// v's 16-bit limbs, low first (each limb's sum over a subgroup of up to 65536 lanes fits
// in 32 bits).
fn limbs(v: vec2<u32>) -> vec4<u32> {
    return vec4<u32>(v.x & 0xffffu, v.x >> 16u, v.y & 0xffffu, v.y >> 16u);
}

// Min of m and sums of a and b over the workgroup; the result is valid in thread 0.
// Every thread must call it (it has barriers and subgroup operations). Each subgroup's
// first lane folds its subgroup's results into shared atomics (the minimum's high word,
// then, for the subgroups that hold it, the low word; the sums as 16-bit limb totals,
// below 2^24 for 256 lanes), so thread 0 only reads ten words: a serial loop over the
// subgroups' partials, as this once had, cost ~2 µs per pass on the H100, where one
// thread's chain of dependent instructions waits behind the multiprocessor's other warps
// (bench/NOTES.md, "the reduction's parts").
fn wg_reduce(lid: u32, m: vec2<u32>, a: vec2<u32>, b: vec2<u32>) -> Reduced {
    if lid == 0u {
        atomicStore(&red_hi, NONE);
        atomicStore(&red_lo, NONE);
        for (var i = 0u; i < 8u; i++) { atomicStore(&red_limbs[i], 0u); }
    }
    workgroupBarrier();
    let sm = sg_min64(m);
    let la = subgroupAdd(limbs(a));
    let lb = subgroupAdd(limbs(b));
    // the subgroup's first active lane folds (naga 30 has no subgroupElect)
    let leader = subgroupExclusiveAdd(1u) == 0u;
    if leader {
        atomicMin(&red_hi, sm.y);
        atomicAdd(&red_limbs[0], la.x);
        atomicAdd(&red_limbs[1], la.y);
        atomicAdd(&red_limbs[2], la.z);
        atomicAdd(&red_limbs[3], la.w);
        atomicAdd(&red_limbs[4], lb.x);
        atomicAdd(&red_limbs[5], lb.y);
        atomicAdd(&red_limbs[6], lb.z);
        atomicAdd(&red_limbs[7], lb.w);
    }
    workgroupBarrier();
    if leader && sm.y == atomicLoad(&red_hi) { atomicMin(&red_lo, sm.x); }
    workgroupBarrier();
    var r = Reduced(never(), vec2<u32>(0u, 0u), vec2<u32>(0u, 0u));
    if lid == 0u {
        r.min = vec2<u32>(atomicLoad(&red_lo), atomicLoad(&red_hi));
        r.a = limbs64(vec4<u32>(atomicLoad(&red_limbs[0]), atomicLoad(&red_limbs[1]), atomicLoad(&red_limbs[2]), atomicLoad(&red_limbs[3])));
        r.b = limbs64(vec4<u32>(atomicLoad(&red_limbs[4]), atomicLoad(&red_limbs[5]), atomicLoad(&red_limbs[6]), atomicLoad(&red_limbs[7])));
    }
    return r;
}

// Min of m only (the scan's hot path: no sums to carry); valid in thread 0.
fn wg_min(lid: u32, m: vec2<u32>) -> vec2<u32> {
    if lid == 0u { atomicStore(&red_slots, 0u); }
    workgroupBarrier();
    let sm = sg_min64(m);
    if subgroupExclusiveAdd(1u) == 0u {
        red_m[atomicAdd(&red_slots, 1u)] = sm;
    }
    workgroupBarrier();
    var r = never();
    if lid == 0u {
        let n = atomicLoad(&red_slots);
        for (var i = 0u; i < n; i++) { r = min64(r, red_m[i]); }
    }
    return r;
}

// Min of m and sum of a, both 32-bit, over the workgroup (the diffusion step: a step length
// and a cell count); valid in thread 0. Uses only red_m and red_slots.
fn wg_min_sum32(lid: u32, m: u32, a: u32) -> vec2<u32> {
    if lid == 0u { atomicStore(&red_slots, 0u); }
    workgroupBarrier();
    let sm = subgroupMin(m);
    let sa = subgroupAdd(a);
    if subgroupExclusiveAdd(1u) == 0u {
        red_m[atomicAdd(&red_slots, 1u)] = vec2<u32>(sm, sa);
    }
    workgroupBarrier();
    var r = vec2<u32>(NONE, 0u);
    if lid == 0u {
        let n = atomicLoad(&red_slots);
        for (var i = 0u; i < n; i++) { r = vec2<u32>(min(r.x, red_m[i].x), r.y + red_m[i].y); }
    }
    return r;
}
