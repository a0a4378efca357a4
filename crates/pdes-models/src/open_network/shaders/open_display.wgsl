// open_display.wgsl — what the heatmap draws, derived on the GPU from the engine's state:
// for every facility the tokens present (queued + in service, found by walking its queue)
// and the step of its latest causality error (0: none). The CPU engine uploads the same
// two words.

@group(1) @binding(0) var<storage, read_write> display: array<vec2<u32>>;

const WALK_LIMIT: u32 = 65535u; // a longer queue shows as 65535+ (display only)

@compute @workgroup_size(WG)
fn display_main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let f = gid.x + gid.y * nwg.x * WG; // a 2-D dispatch past one dimension's limit (kit::run_display_pass)
    if f >= P.k { return; }
    let st = seg_count[fac_base() + (f)];
    var n = select(1u, 0u, st.x == NONE);
    var t = st.y;
    while t != NONE && n < WALK_LIMIT {
        n += 1u;
        t = tok[t].next;
    }
    display[f] = vec2<u32>(n, st.w);
}
