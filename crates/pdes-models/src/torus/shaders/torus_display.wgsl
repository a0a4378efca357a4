// torus_display.wgsl — what the heatmap draws, derived on the GPU from the engine's state
// (the grid never travels to the CPU). For every facility: tokens present (queued + in
// service, found by walking its queue) and the step of its latest causality error + 1
// (0: none). CPU engines upload the same two words.

@group(1) @binding(0) var<storage, read_write> display: array<vec2<u32>>;

const WALK_LIMIT: u32 = 65535u; // a longer queue shows as 65535+ (display only)

@compute @workgroup_size(WG)
fn display_main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let f = gid.x + gid.y * nwg.x * WG; // a 2-D dispatch past one dimension's limit (kit::run_display_pass)
    if f >= P.k { return; }
    let st = fac[2u * f]; // (start, serving, head)
    var n = select(1u, 0u, st.z == NONE);
    var t = st.w;
    while t != NONE && n < WALK_LIMIT {
        n += 1u;
        t = fac[tok_base() + (t)].z;
    }
    // Bit 31: the facility departs in the next step (TorusState::next_step): its
    // departure is within the next step's bound, which the plan leaves in ctl whether the
    // step is planned or held (not once the run is done).
    let d = dep[f];
    var next = 0u;
    if ctl[0].phase != PHASE_DONE && !all(d == never()) && le64(d, ctl[0].bound) {
        next = 0x80000000u;
    }
    // err_step holds the step of the latest causality error (0 never happens: no arrival
    // can be older than another at step 0, all start at t = 0).
    display[f] = vec2<u32>(n | next, recv_list[err_step_base() + (f)]);
}

// The busy time of the services in progress, as `run` counts it (TorusState's measure in
// stats.rs): for every facility of replica 0 that is serving, the part of its service from
// max(start, warm-up) to min(its departure, the host's t_min capped at the end). One 64-bit
// sum per workgroup into `display` (here the engine's small in-service buffer); the host
// adds them in 128 bits to the completed services' sums. With it a live plot sample equals
// the run's summary at the same time: busy time "up to now", not "when a service ends".
@compute @workgroup_size(WG)
fn in_service_main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let f = gid.x + gid.y * nwg.x * WG;
    var busy = vec2<u32>(0u, 0u);
    if f < P.k1 {
        let st = fac[2u * f];
        if st.z != NONE {
            let horizon = min64(ctl[0].t_min, P.end_t);
            let begin = max64(st.xy, P.warmup);
            let to = min64(horizon, dep[f]);
            if lt64(begin, to) { busy = sub64(to, begin); }
        }
    }
    // the shared workgroup reduction (subgroup or portable, exact either way)
    let r = wg_reduce(lid, never(), busy, vec2<u32>(0u, 0u));
    if lid == 0u { display[wid.x + wid.y * nwg.x] = r.a; }
}
