// torus_depart.wgsl — departures phase of one step (twin of the departures loop in
// src/models/torus/stepped.rs and TorusState::depart). Workgroup w spreads the departures its
// segment listed over its threads. Each completes its service, puts its token in its
// outbox, starts its next queued token, and announces the token to its destination;
// the first announcement to a destination lists it in the segment's part of `recv_list`.
// Per-segment sums of busy and sojourn time are kept exactly in 64 bits.

var<workgroup> sh_count: atomic<u32>;

struct Departed {
    busy: vec2<u32>,
    sojourn: vec2<u32>,
    dest: u32,
}

fn depart_one(f: u32, rep: u32) -> Departed {
    let t = dep[f];
    let t_exec = select(t, ctl[rep].exec_at, P.rule == RULE_BOUNDARY);
    var st = fac[f];
    let token = st.x & TOKEN_MASK;
    let dir = st.x >> 30u;
    let busy = sub64(t, start_t[f]);
    let tk = tok[token];
    let soj = sub64(t_exec, tk.xy);
    tok[token] = vec4<u32>(t_exec, tk.z, tk.w + 1u); // it arrives at its destination at t_exec
    outbox[f] = token | (dir << 30u);
    if st.y == NONE {
        st.x = NONE;
        dep[f] = never();
        start_t[f] = t_exec; // free since
    } else {
        let next = st.y;
        let nt = tok[next];
        st.y = nt.z;
        if st.y == NONE { st.z = NONE; }
        tok[next] = vec4<u32>(nt.xy, NONE, nt.w);
        let words = replica_words(next, nt.w, rep);
        dep[f] = add64(t_exec, service_ticks(words.x));
        start_t[f] = t_exec;
        st.x = next | ((words.y >> 30u) << 30u);
    }
    fac[f] = st;
    let s = sources(f); // s[d ^ 1] is f's neighbour in direction d
    return Departed(busy, soj, s[dir ^ 1u]);
}

@compute @workgroup_size(WG)
fn depart(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    let rep = segment_replica(wg);
    if uniform_phase(lid, rep) != PHASE_PLANNED { return; } // the segment lists are stale
    if lid == 0u { atomicStore(&sh_count, 0u); }
    workgroupBarrier();
    var busy = vec2<u32>(0u, 0u);
    var soj = vec2<u32>(0u, 0u);
    var m = never();
    let total = seg_count[wg].x;
    for (var j = lid; j < total; j += WG) {
        let f = dep_list[wg * SEG + j];
        let r = depart_one(f, rep);
        busy = add64(busy, r.busy);
        soj = add64(soj, r.sojourn);
        m = min64(m, dep[f]);
        if atomicAdd(&inbox[r.dest], 1u) == 0u {
            recv_list[wg * SEG + atomicAdd(&sh_count, 1u)] = r.dest;
        }
    }
    workgroupBarrier();
    let n = atomicLoad(&sh_count);
    let r = wg_reduce(lid, m, busy, soj);
    if lid == 0u {
        let acc = wg_acc[wg];
        wg_acc[wg] = vec4<u32>(add64(acc.xy, r.a), add64(acc.zw, r.b));
        part_min[wg] = vec4<u32>(r.min, part_min[wg].zw);
        seg_count[wg].y = n;
    }
}
