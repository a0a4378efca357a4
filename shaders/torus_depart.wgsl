// torus_depart.wgsl — departures phase of one step (twin of the departures loop in
// src/sim/stepped.rs and TorusState::depart). Every facility whose departure is within
// the step's bound completes it, sends its token (outbox), and starts its next queued
// token. Per-workgroup sums of busy and sojourn time are kept exactly in 64 bits.

var<workgroup> sh_busy: array<vec2<u32>, WG>;
var<workgroup> sh_soj: array<vec2<u32>, WG>;
var<workgroup> sh_list: array<u32, WG * ITEMS>; // this workgroup's departing facilities
var<workgroup> sh_count: atomic<u32>;

// Completes the departure of facility f at the step's bound (see TorusState::depart).
// Returns (service time, sojourn time) to be summed.
fn depart_one(f: u32) -> vec4<u32> {
    let t = dep[f];
    let t_exec = select(t, ctl.exec_at, P.rule == RULE_BOUNDARY);
    var st = fac[f];
    let token = st.x & TOKEN_MASK;
    let dir = st.x >> 30u;
    let busy = sub64(t, start_t[f]);
    let soj = sub64(t_exec, tok_arrived[token]);
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
    return vec4<u32>(busy, soj);
}

// Two phases per workgroup: scan its facilities and list those that depart (compaction in
// shared memory), then let all threads work through the list. Only ~d/M of the
// facilities depart in a step; processing them where they lie would leave most lanes of a
// warp idle while one runs Philox (measured: bench/NOTES.md).
@compute @workgroup_size(WG)
fn depart(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    if uniform_phase(lid) != PHASE_PLANNED { return; }
    if lid == 0u { atomicStore(&sh_count, 0u); }
    workgroupBarrier();
    let bound = ctl.bound;
    // All loads first (constant-trip loops unroll into registers), so that they are in
    // flight together: the compiler cannot move a load past a store to another binding.
    var ts: array<vec2<u32>, ITEMS>;
    for (var i = 0u; i < ITEMS; i++) {
        let f = item_facility(wg, lid, i);
        ts[i] = select(never(), dep[min(f, P.k - 1u)], f < P.k);
    }
    for (var i = 0u; i < ITEMS; i++) {
        let f = item_facility(wg, lid, i);
        if f < P.k {
            if le64(ts[i], bound) {
                sh_list[atomicAdd(&sh_count, 1u)] = f;
            } else {
                outbox[f] = NONE;
            }
        }
    }
    workgroupBarrier();
    let n = atomicLoad(&sh_count);
    var busy = vec2<u32>(0u, 0u);
    var soj = vec2<u32>(0u, 0u);
    for (var j = lid; j < n; j += WG) {
        let r = depart_one(sh_list[j]);
        busy = add64(busy, r.xy);
        soj = add64(soj, r.zw);
    }
    sh_busy[lid] = busy;
    sh_soj[lid] = soj;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if lid < s {
            sh_busy[lid] = add64(sh_busy[lid], sh_busy[lid + s]);
            sh_soj[lid] = add64(sh_soj[lid], sh_soj[lid + s]);
        }
        workgroupBarrier();
    }
    if lid == 0u {
        let acc = wg_acc[wg];
        wg_acc[wg] = vec4<u32>(add64(acc.xy, sh_busy[0]), add64(acc.zw, sh_soj[0]));
        wg_count[wg].x = n;
    }
}
