// torus_arrive.wgsl — arrivals phase of one step (twin of the arrivals loop in
// src/sim/stepped.rs and TorusState::arrive), fused with the first level of the next
// step's t_min reduction. Each facility pulls the tokens its four neighbours sent it,
// orders them by (time, sending facility) — the sequential tie order — and accepts them.
// With `init` (entry point `initial_min`) only the reduction runs.

var<workgroup> sh_min: array<vec2<u32>, WG>;
var<workgroup> sh_err: array<u32, WG>;

fn accept(g: u32, f_state: ptr<function, vec4<u32>>, token: u32, t: vec2<u32>, errors: ptr<function, u32>) {
    if lt64(t, last_arr[g]) {
        *errors += 1u;
        (*f_state).w = ctl.step;
    } else {
        last_arr[g] = t;
    }
    if (*f_state).x == NONE {
        let link = tok_link[token];
        let words = token_words(token, link.y);
        let s = max64(t, start_t[g]);
        start_t[g] = s;
        dep[g] = add64(s, service_ticks(words.x));
        (*f_state).x = token | ((words.y >> 30u) << 30u);
    } else {
        if (*f_state).z == NONE {
            (*f_state).y = token;
        } else {
            let tail = (*f_state).z;
            tok_link[tail] = vec2<u32>(token, tok_link[tail].y);
        }
        (*f_state).z = token;
    }
}

struct Arrival {
    time: vec2<u32>,
    src: u32,
    token: u32,
}

// The token facility g receives from direction dir this step (token NONE if none). Empty
// slots sort last: their time is the largest possible.
fn pull(g: u32, dir: u32) -> Arrival {
    let h = sources(g)[dir];
    let o = outbox[h];
    if o != NONE && (o >> 30u) == dir {
        let token = o & TOKEN_MASK;
        return Arrival(tok_arrived[token], h, token);
    }
    return Arrival(never(), NONE, NONE);
}

// Sequential order of two arrivals: by time, then by sending facility.
fn before(a: Arrival, b: Arrival) -> bool {
    return lt64(a.time, b.time) || (all(a.time == b.time) && a.src < b.src);
}

fn reduce_and_store(wg: u32, lid: u32, m: vec2<u32>, errors: u32) {
    sh_min[lid] = m;
    sh_err[lid] = errors;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if lid < s {
            sh_min[lid] = min64(sh_min[lid], sh_min[lid + s]);
            sh_err[lid] += sh_err[lid + s];
        }
        workgroupBarrier();
    }
    if lid == 0u {
        wg_min[wg] = sh_min[0];
        wg_count[wg].y = sh_err[0];
    }
}

var<workgroup> sh_list: array<u32, WG * ITEMS>; // facilities that receive tokens
var<workgroup> sh_count: atomic<u32>;

// The outbox words of the four sources of g (see `sources`).
fn inbox(g: u32) -> vec4<u32> {
    let s = sources(g);
    return vec4<u32>(outbox[s.x], outbox[s.y], outbox[s.z], outbox[s.w]);
}

// True when some source sent its token towards g (direction dir in component dir).
fn receives(o: vec4<u32>) -> bool {
    let sent = o != vec4<u32>(NONE);
    let toward = (o >> vec4<u32>(30u)) == vec4<u32>(0u, 1u, 2u, 3u);
    return any(sent & toward);
}

// Accepts the (up to four) arrivals at g in sequential order: gathered into registers and
// sorted by (time, source) with a 5-comparator network — no dynamically indexed local
// arrays, which GPUs place in slow, zero-initialised local memory.
fn arrive_at(g: u32, errors: ptr<function, u32>) {
    var a0 = pull(g, 0u);
    var a1 = pull(g, 1u);
    var a2 = pull(g, 2u);
    var a3 = pull(g, 3u);
    var x: Arrival;
    if before(a1, a0) { x = a0; a0 = a1; a1 = x; }
    if before(a3, a2) { x = a2; a2 = a3; a3 = x; }
    if before(a2, a0) { x = a0; a0 = a2; a2 = x; }
    if before(a3, a1) { x = a1; a1 = a3; a3 = x; }
    if before(a2, a1) { x = a1; a1 = a2; a2 = x; }
    var st = fac[g];
    if a0.token != NONE { accept(g, &st, a0.token, a0.time, errors); }
    if a1.token != NONE { accept(g, &st, a1.token, a1.time, errors); }
    if a2.token != NONE { accept(g, &st, a2.token, a2.time, errors); }
    if a3.token != NONE { accept(g, &st, a3.token, a3.time, errors); }
    fac[g] = st;
}

// Phase 1 lists the facilities that receive tokens (and takes the minimum over the
// others, whose departure does not change); phase 2 spreads the listed ones over all
// threads of the workgroup, as in torus_depart.wgsl.
@compute @workgroup_size(WG)
fn arrive(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    if uniform_phase(lid) != PHASE_PLANNED { return; }
    if lid == 0u { atomicStore(&sh_count, 0u); }
    workgroupBarrier();
    var m = never();
    // Loads first, as in torus_depart.wgsl.
    var ins: array<vec4<u32>, ITEMS>;
    var ds: array<vec2<u32>, ITEMS>;
    for (var i = 0u; i < ITEMS; i++) {
        let g = min(item_facility(wg, lid, i), P.k - 1u);
        ins[i] = inbox(g);
        ds[i] = dep[g];
    }
    for (var i = 0u; i < ITEMS; i++) {
        let g = item_facility(wg, lid, i);
        if g < P.k {
            if receives(ins[i]) {
                sh_list[atomicAdd(&sh_count, 1u)] = g;
            } else {
                m = min64(m, ds[i]);
            }
        }
    }
    workgroupBarrier();
    let n = atomicLoad(&sh_count);
    var errors = 0u;
    for (var j = lid; j < n; j += WG) {
        let g = sh_list[j];
        arrive_at(g, &errors);
        m = min64(m, dep[g]);
    }
    reduce_and_store(wg, lid, m, errors);
}

@compute @workgroup_size(WG)
fn initial_min(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    var m = never();
    for (var i = 0u; i < ITEMS; i++) {
        let g = item_facility(wg, lid, i);
        if g >= P.k { break; }
        m = min64(m, dep[g]);
    }
    reduce_and_store(wg, lid, m, 0u);
}
