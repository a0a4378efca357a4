// reduce_portable.wgsl — workgroup reductions with shared memory and barriers (a tree of
// log2(WG) levels). The twin of reduce_subgroup.wgsl, used where the adapter has no
// subgroup operations. Both give the same exact results (integer min and sums).

struct Reduced {
    min: vec2<u32>, // 64-bit minimum of m
    a: vec2<u32>,   // 64-bit sum of a
    b: vec2<u32>,   // 64-bit sum of b
}

var<workgroup> red_m: array<vec2<u32>, WG>;
var<workgroup> red_a: array<vec2<u32>, WG>;
var<workgroup> red_b: array<vec2<u32>, WG>;

// Min of m and sums of a and b over the workgroup; the result is valid in thread 0.
// Every thread must call it (it has barriers).
fn wg_reduce(lid: u32, m: vec2<u32>, a: vec2<u32>, b: vec2<u32>) -> Reduced {
    red_m[lid] = m;
    red_a[lid] = a;
    red_b[lid] = b;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if lid < s {
            red_m[lid] = min64(red_m[lid], red_m[lid + s]);
            red_a[lid] = add64(red_a[lid], red_a[lid + s]);
            red_b[lid] = add64(red_b[lid], red_b[lid + s]);
        }
        workgroupBarrier();
    }
    return Reduced(red_m[0], red_a[0], red_b[0]);
}

// Min of m only (the scan's hot path: no sums to carry); valid in thread 0.
fn wg_min(lid: u32, m: vec2<u32>) -> vec2<u32> {
    red_m[lid] = m;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if lid < s { red_m[lid] = min64(red_m[lid], red_m[lid + s]); }
        workgroupBarrier();
    }
    return red_m[0];
}

// Min of m and sum of a, both 32-bit, over the workgroup (the diffusion step: a step length
// and a cell count); valid in thread 0. Uses only red_m, so a pass that calls nothing else
// keeps its workgroup memory for itself.
fn wg_min_sum32(lid: u32, m: u32, a: u32) -> vec2<u32> {
    red_m[lid] = vec2<u32>(m, a);
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if lid < s {
            let o = red_m[lid + s];
            red_m[lid] = vec2<u32>(min(red_m[lid].x, o.x), red_m[lid].y + o.y);
        }
        workgroupBarrier();
    }
    return red_m[0];
}
