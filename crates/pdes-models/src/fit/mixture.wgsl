// mixture.wgsl — the normal-mixture log-likelihood (paper 003 §3) on the GPU, for a batch of
// mixtures at once (a fit's round): workgroup (x, y) takes 256 distinct observations and
// mixture y; one thread per observation computes count · ln Σ_j exp(a_j − ½((x − μ_j)/σ_j)²)
// in f32 (the largest term factored out), and the workgroup sums its threads' terms by a
// tree in shared memory; the host adds each mixture's per-workgroup sums in f64. Twin of
// Data::logliks in crates/pdes-models/src/fit/data.rs (f64); the difference is bounded in
// crates/pdes-models/src/fit/gpu.rs.

struct Params {
    n: u32,       // distinct values
    groups: u32,  // workgroups per mixture: ⌈n / 256⌉
    pad0: u32, pad1: u32,
}

struct Mix {
    k: u32, pad0: u32, pad1: u32, pad2: u32,
    comp: array<vec4<f32>, 10>, // (a_j = ln w_j − ln σ_j − ln √2π, 1/σ_j, μ_j − shift, 0)
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read> xs: array<f32>;      // distinct values − shift
@group(0) @binding(2) var<storage, read> counts: array<f32>;  // their counts (exact below 2^24)
@group(0) @binding(3) var<storage, read_write> partial: array<f32>; // [mixture][group]
@group(0) @binding(4) var<storage, read> mixes: array<Mix>;

const WG: u32 = 256u;
var<workgroup> sh: array<f32, WG>;

@compute @workgroup_size(WG)
fn loglik(@builtin(global_invocation_id) gid: vec3<u32>,
          @builtin(local_invocation_id) lid3: vec3<u32>,
          @builtin(workgroup_id) wid: vec3<u32>) {
    let lid = lid3.x;
    let k = mixes[wid.y].k;
    var v = 0.0;
    if gid.x < P.n {
        let x = xs[gid.x];
        var m = -3.0e38;
        for (var j = 0u; j < k; j++) {
            let c = mixes[wid.y].comp[j];
            let z = (x - c.z) * c.y;
            m = max(m, c.x - 0.5 * z * z);
        }
        var s = 0.0;
        for (var j = 0u; j < k; j++) {
            let c = mixes[wid.y].comp[j];
            let z = (x - c.z) * c.y;
            s += exp(c.x - 0.5 * z * z - m);
        }
        v = counts[gid.x] * (m + log(s));
    }
    sh[lid] = v;
    workgroupBarrier();
    for (var step = WG / 2u; step > 0u; step >>= 1u) {
        if lid < step { sh[lid] += sh[lid + step]; }
        workgroupBarrier();
    }
    if lid == 0u { partial[wid.y * P.groups + wid.x] = sh[0]; }
}
