// torus_depart.wgsl — departures phase of one step (twin of the departures loop in
// src/sim/stepped.rs and TorusState::depart). Every facility whose departure is within
// the step's bound completes it, sends its token (outbox), and starts its next queued
// token. Per-workgroup sums of busy and sojourn time are kept exactly in 64 bits.

var<workgroup> sh_busy: array<vec2<u32>, WG>;
var<workgroup> sh_soj: array<vec2<u32>, WG>;
var<workgroup> sh_n: array<u32, WG>;

@compute @workgroup_size(WG)
fn depart(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    if uniform_phase(lid) != PHASE_PLANNED { return; } // uniform: the same value for every thread
    let bound = ctl.bound;
    let boundary = P.rule == RULE_BOUNDARY;
    var busy = vec2<u32>(0u, 0u);
    var soj = vec2<u32>(0u, 0u);
    var n = 0u;
    for (var i = 0u; i < ITEMS; i++) {
        let f = item_facility(wg, lid, i);
        if f >= P.k { break; }
        let t = dep[f];
        if !le64(t, bound) {
            outbox[f] = NONE;
            continue;
        }
        n += 1u;
        let t_exec = select(t, ctl.exec_at, boundary);
        var st = fac[f];
        let token = st.x & TOKEN_MASK;
        let dir = st.x >> 30u;
        busy = add64(busy, sub64(t, start_t[f]));
        soj = add64(soj, sub64(t_exec, tok_arrived[token]));
        let link = tok_link[token];
        tok_link[token] = vec2<u32>(link.x, link.y + 1u);
        tok_arrived[token] = t_exec; // it arrives at its destination at t_exec
        outbox[f] = token | (dir << 30u);
        if st.y == NONE {
            st.x = NONE;
            dep[f] = never();
            start_t[f] = t_exec; // free since
        } else {
            let next = st.y;
            let nl = tok_link[next];
            st.y = nl.x;
            if st.y == NONE { st.z = NONE; }
            tok_link[next] = vec2<u32>(NONE, nl.y);
            let words = token_words(next, nl.y);
            dep[f] = add64(t_exec, service_ticks(words.x));
            start_t[f] = t_exec;
            st.x = next | ((words.y >> 30u) << 30u);
        }
        fac[f] = st;
    }
    sh_busy[lid] = busy;
    sh_soj[lid] = soj;
    sh_n[lid] = n;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if lid < s {
            sh_busy[lid] = add64(sh_busy[lid], sh_busy[lid + s]);
            sh_soj[lid] = add64(sh_soj[lid], sh_soj[lid + s]);
            sh_n[lid] += sh_n[lid + s];
        }
        workgroupBarrier();
    }
    if lid == 0u {
        let acc = wg_acc[wg];
        let b = add64(acc.xy, sh_busy[0]);
        let j = add64(acc.zw, sh_soj[0]);
        wg_acc[wg] = vec4<u32>(b, j);
        wg_count[wg].x = sh_n[0];
    }
}
