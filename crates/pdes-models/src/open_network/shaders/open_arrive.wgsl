// open_arrive.wgsl — arrivals phase of one step (twin of the arrivals loop in
// crates/pdes-models/src/open_network/two_phase.rs and OpenState::arrive). Workgroup w handles the
// receivers its segment listed, and a share of the source's. Each receiver takes its
// announcement list and accepts the tokens in the sequential order — by (time, sender,
// arrival number) — by repeated selection of the smallest key above the last accepted
// one (a line's first server may receive from every line and the source, so the list
// has no fixed length; it is short on average).

struct Key {
    time: vec2<u32>,
    sender: u32,
    arrival: vec2<u32>,
}

fn key_of(t: u32) -> Key {
    let r = tok[t];
    return Key(r.arrived, r.sender, r.arrival);
}

fn key_lt(a: Key, b: Key) -> bool {
    if any(a.time != b.time) { return lt64(a.time, b.time); }
    if a.sender != b.sender { return a.sender < b.sender; }
    return lt64(a.arrival, b.arrival);
}

fn accept(g: u32, st: ptr<function, vec4<u32>>, token: u32, t: vec2<u32>, errors: ptr<function, u32>) {
    if P.rule == RULE_ORIGINAL {
        if lt64(t, dep[last_arr_base() + (g)]) {
            *errors += 1u;
            (*st).w = ctl[0].step;
        } else {
            dep[last_arr_base() + (g)] = t;
        }
    }
    if (*st).x == NONE {
        let s = max64(t, dep[start_t_base() + (g)]);
        dep[start_t_base() + (g)] = s;
        dep[g] = service_end(tok[token], s);
        (*st).x = token;
    } else {
        if (*st).z == NONE {
            (*st).y = token;
        } else {
            tok[(*st).z].next = token;
        }
        (*st).z = token;
    }
}

fn arrive_at(g: u32, errors: ptr<function, u32>) {
    let head = atomicExchange(&heads[g], NONE);
    var st = seg_count[fac_base() + (g)];
    var prev = Key(vec2<u32>(0u, 0u), 0u, vec2<u32>(0u, 0u));
    var have_prev = false;
    loop {
        var best = NONE;
        var best_key = prev;
        for (var t = head; t != NONE; t = tok[t].link) {
            let k = key_of(t);
            if (!have_prev || key_lt(prev, k)) && (best == NONE || key_lt(k, best_key)) {
                best = t;
                best_key = k;
            }
        }
        if best == NONE { break; }
        accept(g, &st, best, best_key.time, errors);
        prev = best_key;
        have_prev = true;
    }
    seg_count[fac_base() + (g)] = st;
}

@compute @workgroup_size(WG)
fn arrive(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    if uniform_phase(lid, 0u) != PHASE_PLANNED { return; } // the segment lists are stale
    var m = never();
    var errors = 0u;
    let total = seg_count[wg].y;
    for (var j = lid; j < total; j += WG) {
        let g = dep_list[recv_list_base() + (wg * SEG + j)];
        arrive_at(g, &errors);
        m = min64(m, dep[g]);
    }
    let from_source = ctl[0].src_count;
    for (var j = wg * WG + lid; j < from_source; j += P.n_wg * WG) {
        let g = dep_list[recv_list_base() + (P.k + j)];
        arrive_at(g, &errors);
        m = min64(m, dep[g]);
    }
    let r = wg_reduce(lid, m, vec2<u32>(errors, 0u), vec2<u32>(0u, 0u));
    if lid == 0u {
        part_min[wg] = vec4<u32>(part_min[wg].xy, r.min);
        seg_count[wg].z = r.a.x;
    }
}
