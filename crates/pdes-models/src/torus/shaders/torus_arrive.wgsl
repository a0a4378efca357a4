// torus_arrive.wgsl — arrivals phase of one step (twin of the arrivals loop in
// crates/pdes-models/src/torus/two_phase.rs and TorusState::arrive): workgroup w spreads the receivers its
// segment listed over its threads. Each pulls the tokens its neighbours sent it from its mailbox
// (emptying it), orders them by (time, sending facility) — the sequential tie order — and
// accepts them; then its departure time feeds the per-workgroup minimum.


struct Arrival {
    time: vec2<u32>,
    src: u32,
    token: u32,
    visits: u32,
}

// The arrival of `token` (NONE: none) from neighbour h, read from the token's record. Empty
// slots sort last: their time is the largest possible.
fn pull(h: u32, token: u32) -> Arrival {
    if token != NONE {
        let r = fac[tok_base() + (token)];
        return Arrival(r.xy, h, token, r.w);
    }
    return Arrival(never(), NONE, NONE, 0u);
}

// Sequential order of two arrivals: by time, then by sending facility.
fn before(a: Arrival, b: Arrival) -> bool {
    return lt64(a.time, b.time) || (all(a.time == b.time) && a.src < b.src);
}

fn accept(g: u32, rep: u32, c: Ctl, st: ptr<function, Fac>, dep_g: ptr<function, vec2<u32>>, a: Arrival, errors: ptr<function, u32>) {
    let t = a.time;
    if P.rule == RULE_ORIGINAL {
        if lt64(t, dep[last_arr_base() + (g)]) {
            *errors += 1u;
            recv_list[err_step_base() + (g)] = c.step;
        } else {
            dep[last_arr_base() + (g)] = t;
        }
    }
    if (*st).serving == NONE {
        let words = replica_words(a.token, a.visits, rep, c.seed);
        let s = max64(t, (*st).start);
        (*st).start = s;
        *dep_g = add64(s, service_ticks_of(words.x, c.shift, c.scale));
        dep[g] = *dep_g;
        (*st).serving = a.token | ((words.y >> 30u) << 30u);
        (*st).arrived = t;
        (*st).visits = a.visits;
    } else {
        if (*st).tail == NONE {
            (*st).head = a.token;
        } else {
            fac[tok_base() + ((*st).tail)].z = a.token;
        }
        (*st).tail = a.token;
    }
}

// Accepts the (up to four) arrivals at g in sequential order, sorted in registers with a
// 5-comparator network (dynamically indexed local arrays would live in slow local memory),
// and returns g's departure time after them.
fn arrive_at(g: u32, rep: u32, c: Ctl, errors: ptr<function, u32>) -> vec2<u32> {
    // g's record and departure time first: only this thread touches them in this pass, so
    // their latency overlaps the mailbox's instead of following it.
    var st = load_fac(g);
    var dep_g = dep[g];
    let s = sources(g);
    // The mask, then the words it flags together, then the tokens' records (a word read
    // after the previous direction's record read would wait for it). Words whose bit is
    // clear hold stale tokens and are not read; the caller clears the mask.
    let mask = atomicLoad(&mail[MAIL * g + MAIL_MASK]);
    var box = vec4<u32>(NONE);
    if (mask & 1u) != 0u { box.x = atomicLoad(&mail[MAIL * g]); }
    if (mask & 2u) != 0u { box.y = atomicLoad(&mail[MAIL * g + 1u]); }
    if (mask & 4u) != 0u { box.z = atomicLoad(&mail[MAIL * g + 2u]); }
    if (mask & 8u) != 0u { box.w = atomicLoad(&mail[MAIL * g + 3u]); }
    var a0 = pull(s.x, box.x);
    var a1 = pull(s.y, box.y);
    var a2 = pull(s.z, box.z);
    var a3 = pull(s.w, box.w);
    var x: Arrival;
    if before(a1, a0) { x = a0; a0 = a1; a1 = x; }
    if before(a3, a2) { x = a2; a2 = a3; a3 = x; }
    if before(a2, a0) { x = a0; a0 = a2; a2 = x; }
    if before(a3, a1) { x = a1; a1 = a3; a3 = x; }
    if before(a2, a1) { x = a1; a1 = a2; a2 = x; }
    if a0.token != NONE { accept(g, rep, c, &st, &dep_g, a0, errors); }
    if a1.token != NONE { accept(g, rep, c, &st, &dep_g, a1, errors); }
    if a2.token != NONE { accept(g, rep, c, &st, &dep_g, a2, errors); }
    if a3.token != NONE { accept(g, rep, c, &st, &dep_g, a3, errors); }
    store_fac(g, st);
    return dep_g;
}

var<workgroup> sh_plan: Ctl;

// The step as its scan planned it is ctl[R + rep] (torus_plan.wgsl); the replica's first
// workgroup hands it on to the next scan as the host's block ctl[rep], marked executed,
// and clears the accumulators of the step the scan closed (the parity that is not this
// step's), which nothing reads any more in this step.
@compute @workgroup_size(WG)
fn arrive(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    let rep = segment_replica(wg);
    if lid == 0u {
        let planned = ctl[P.replicas + rep];
        sh_plan = planned;
        sh_phase = planned.phase;
        if wg == rep * P.n_wg1 {
            var h = planned;
            if planned.phase == PHASE_PLANNED { h.executed = 1u; }
            ctl[rep] = h;
            clear_acc((planned.step + 1u) & 1u, rep); // the closed step's
        }
    }
    if workgroupUniformLoad(&sh_phase) != PHASE_PLANNED { return; } // the segment lists are stale
    let c = sh_plan;
    let par = c.step & 1u;
    var m = never();
    var errors = 0u;
    let total = seg_count[wg].y;
    for (var j = lid; j < total; j += WG) {
        let g = recv_list[wg * SEG + j];
        let dep_g = arrive_at(g, rep, c, &errors);
        atomicStore(&mail[MAIL * g + MAIL_MASK], 0u);
        m = min64(m, dep_g);
    }
    let r = wg_reduce(lid, m, vec2<u32>(errors, 0u), vec2<u32>(0u, 0u));
    if lid == 0u {
        part_min[par * P.n_wg + wg].z = r.min.x; // by component: no read of the record
        part_min[par * P.n_wg + wg].w = r.min.y;
        seg_count[wg].z = r.a.x;
        note_min(par, rep, c.t_min, r.min);
        if r.a.x > 0u { atomicAdd(&mail[step_acc_base() + (acc_word(par, rep, 2u))], r.a.x); }
    }
}
