// net_arrive.wgsl — the step's second phase (twin of the arrivals loop of Stepped::step in
// crates/pdes-models/src/network/engines.rs, NetState::create and NetState::arrive).
// A workgroup per segment: its threads look at every station's announcement head (a
// coalesced read) and list in workgroup memory the few that receive, then take one listed
// station each. (A thread per station kept ~20 receivers in a workgroup of 256, all of it
// resident until the last finished: each receiver is a chain of dependent loads, and the
// threads with nothing to do held the places of others that could hide them.) A station with tokens
// announced or with its source's arrivals within the bound accepts them in the sequential
// order — by (time, sender), a source after every server at the same time, its arrivals in
// their order — merging the announced tokens (by repeated selection above the last one
// taken) with the source's stream. Each external arrival takes a slot: the free stack's
// top entries first, then unused ones (the plan made sure there are enough).

struct Key {
    time: vec2<u32>,
    sender: u32,
}

fn key_lt(a: Key, b: Key) -> bool {
    if any(a.time != b.time) { return lt64(a.time, b.time); }
    return a.sender < b.sender;
}

// A slot for an external arrival (the twin's free list, in another order: slots never
// decide a random number or an order).
fn take_slot() -> u32 {
    let ticket = atomicAdd(&heads[taken_at()], 1u);
    let top = atomicLoad(&heads[free_top()]);
    if ticket < top {
        return dep_list[P.free_base + (top - 1u - ticket)];
    }
    return ctl[0].pool_used + (ticket - top);
}

// Station s's arrivals of this step; returns how many came from its source, and its next
// event in `next` (the value it writes to dep[s], not read back from there).
fn arrive_at(s: u32, head: u32, bound: vec2<u32>, errors: ptr<function, u32>, next: ptr<function, vec2<u32>>) -> u32 {
    var st = load_station(s);
    let source = select(NONE, source_index(s), has_source(s));
    let boundary = P.rule == RULE_BOUNDARY;
    var created = 0u;
    var src_count = vec2<u32>(0u);
    if source != NONE { src_count = seg_count[co_at(s, CO_SOURCE)].xy; }
    // the common case: one token announced and no source due
    // (the token's fields are loaded together: its arrival, link and the service's keys)
    var head_link = NONE;
    var head_arrived = vec2<u32>(0u);
    var head_id = vec2<u32>(0u);
    var head_visits = 0u;
    if head != NONE {
        head_link = tok[head].link;
        head_arrived = tok[head].arrived;
        head_id = tok[head].id;
        head_visits = tok[head].visits;
    }
    if head != NONE && head_link == NONE && !(source != NONE && le64(st.src_next, bound)) {
        arrive_token(s, &st, head, head_id, head_visits, head_arrived, errors);
        store_station(s, st);
        *next = station_next(s, st);
        dep[s] = *next;
        return 0u;
    }
    var prev = Key(vec2<u32>(0u, 0u), 0u);
    var have_prev = false;
    loop {
        var best = NONE;
        var best_key = prev;
        for (var t = head; t != NONE; t = tok[t].link) {
            let k = Key(tok[t].arrived, tok[t].sender);
            if (!have_prev || key_lt(prev, k)) && (best == NONE || key_lt(k, best_key)) {
                best = t;
                best_key = k;
            }
        }
        let src_due = source != NONE && le64(st.src_next, bound);
        if src_due {
            let t_src = select(st.src_next, ctl[0].exec_at, boundary);
            // a source sends after every server at the same time
            if best == NONE || lt64(t_src, best_key.time) {
                let n_src = vec2<u32>(P.sources, 0u);
                let id = add64(add64(P.population, mul64(src_count, n_src)), vec2<u32>(source, 0u));
                let slot = take_slot();
                tok[slot] = Token(id, t_src, 0u, NONE, NONE, NONE, t_src, vec2<u32>(0u), vec4<u32>(0u));
                src_count = add64(src_count, vec2<u32>(1u, 0u));
                st.src_next = add64(st.src_next, gap_of(source, source_gap(s), src_count));
                arrive_token(s, &st, slot, id, 0u, t_src, errors);
                created += 1u;
                continue;
            }
        }
        if best == NONE { break; }
        arrive_token(s, &st, best, tok[best].id, tok[best].visits, best_key.time, errors);
        prev = best_key;
        have_prev = true;
    }
    if created > 0u {
        seg_count[co_at(s, CO_SOURCE)].x = src_count.x;
        seg_count[co_at(s, CO_SOURCE)].y = src_count.y;
    }
    store_station(s, st);
    *next = station_next(s, st);
    dep[s] = *next;
    return created;
}

// The receiving stations of this workgroup's segment (NET_SEG, the stations per segment,
// is written by the host: setup.rs SEG).
var<workgroup> sh_receivers: array<u32, NET_SEG>;
var<workgroup> sh_received: atomic<u32>;

@compute @workgroup_size(WG)
fn arrive(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let seg = wid.x;
    if !step_runs(lid) { return; }
    if lid == 0u { atomicStore(&sh_received, 0u); }
    workgroupBarrier();
    let bound = ctl[0].bound;
    // the stations that receive nothing keep their next event: their minimum now
    var m = never();
    for (var i = 0u; i < NET_SEG / WG; i++) {
        let s = seg * NET_SEG + i * WG + lid;
        if s >= P.k { break; }
        let next = dep[s];
        let src_due = le64(next, bound) && has_source(s)
            && le64(seg_count[st_at(s, ST_TIMES)].zw, bound);
        if atomicLoad(&heads[s]) != NONE || src_due {
            sh_receivers[atomicAdd(&sh_received, 1u)] = s;
        } else {
            m = min64(m, next);
        }
    }
    let receivers = workgroupUniformLoad(&sh_received);
    var errors = 0u;
    var created = 0u;
    for (var j = lid; j < receivers; j += WG) {
        let s = sh_receivers[j];
        let head = atomicExchange(&heads[s], NONE);
        var next = never();
        created += arrive_at(s, head, bound, &errors, &next);
        m = min64(m, next);
    }
    // the segment's departures, counted by its DEPART_SPLIT depart workgroups: added here,
    // beside the external arrivals, so that finish_step's one workgroup reads a value a
    // segment instead of DEPART_SPLIT more (its loop of dependent loads is the step's tail)
    var events = created;
    if lid < DEPART_SPLIT { events += seg_count[seg * DEPART_SPLIT + lid].y; }
    let r = wg_reduce(lid, m, vec2<u32>(errors, 0u), vec2<u32>(events, 0u));
    // (minimum next event, causality errors, events: departures and external arrivals) of
    // the segment
    if lid == 0u { part_min[seg] = vec4<u32>(r.min, r.a.x, r.b.x); }
}
