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

// The busy time of the services in progress, as `run` counts it (OpenState::measures):
// for every serving facility, the part of its service from max(start, warm-up) to
// min(its departure, t_min capped at the end). One 64-bit sum per workgroup (`wg_reduce`) into `display`
// (here the engine's small in-service buffer); the host adds them in 128 bits to the
// completed services' sums, so a live sample equals the run's summary at the same time.
@compute @workgroup_size(WG)
fn in_service_main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let f = gid.x + gid.y * nwg.x * WG;
    var busy = vec2<u32>(0u, 0u);
    if f < P.k && seg_count[fac_base() + (f)].x != NONE {
        let horizon = min64(ctl[0].t_min, P.end_t);
        let begin = max64(dep[start_t_base() + (f)], P.warmup);
        let to = min64(horizon, dep[f]);
        if lt64(begin, to) { busy = sub64(to, begin); }
    }
    // the shared workgroup reduction (subgroup or portable, exact either way)
    let r = wg_reduce(lid, never(), busy, vec2<u32>(0u, 0u));
    if lid == 0u { display[wid.x + wid.y * nwg.x] = r.a; }
}
