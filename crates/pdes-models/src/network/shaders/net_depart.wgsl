// net_depart.wgsl — the step's first phase (twin of the departures loop of Stepped::step in
// crates/pdes-models/src/network/engines.rs and NetState::depart). DEPART_SPLIT workgroups
// share a segment's listed stations, a station per thread (a thread's work is a chain of
// dependent loads: more threads in flight hide more of it); each applies its station's departures
// within the bound in (time, server) order, each handing its server to the head of the
// queue; a routed token is pushed on its destination's announcement list (`heads`,
// lock-free; the destination was drawn when the service started), a token that leaves
// frees its slot. Also the `count` pass: how many external
// arrivals the listed stations' sources bring this step (the plan's pool check).

var<workgroup> sh_events: atomic<u32>;

// Server k (of s) completes its service (it was to end at `departure`); the token leaves at
// t. The queue is updated in `st`, the sums in memory, the token announced or freed. Returns
// the server's next departure (NEVER when it falls idle).
//
// Every load that does not wait for another is issued first — the server's token and
// destination, the station's sums, the next queued token's record (its index is in `st`) —
// so that their latencies overlap: the pass is a chain of dependent loads a thread, and
// each store between two loads kept the second waiting for the first.
fn depart_server(s: u32, st: ptr<function, Station>, a: u32, k: u32, departure: vec2<u32>, t: vec2<u32>) -> vec2<u32> {
    let at = sv_at(s, a, k);
    let since = seg_count[at].zw;
    let held = seg_count[at + 1u]; // (token, due mark, destination)
    let token = held.x;
    let to = held.w;
    let b = st_at(s, ST_SUMS);
    let area_at = st_at(s, ST_AREA);
    let sums = seg_count[b];
    let area = seg_count[area_at];
    let next = (*st).head;
    var next_id = vec2<u32>(0u);
    var next_visits = 0u;
    var after_next = NONE;
    if next != NONE {
        next_id = tok[next].id;
        next_visits = tok[next].visits;
        after_next = tok[next].next;
    }
    // The announcement: its returning atomic is in flight while the rest of the departure
    // waits for its own loads; only the link's store, last, needs its answer (the arrive
    // pass, a later dispatch, reads the lists).
    var link = NONE;
    if to != EXIT { link = atomicExchange(&heads[to], token); }
    let arrived = tok[token].arrived;
    let visits = tok[token].visits;
    let counted_from = max64(arrived, P.warmup);
    let measured = !lt64(t, P.warmup);
    var sojourn = sums.zw;
    if measured {
        sojourn = add64(sojourn, sub64(t, arrived));
        seg_count[area_at] = add128(area, sat_sub64(t, counted_from));
        (*st).done += 1u;
        if (*st).done == 0u { seg_count[co_at(s, CO_SOURCE)].w += 1u; } // the count's carry
    }
    seg_count[b] = vec4<u32>(add64(sums.xy, sat_sub64(departure, max64(since, P.warmup))), sojourn);
    (*st).present -= 1u;
    var end = never();
    if next == NONE {
        set_server(s, a, k, never(), t, NONE, EXIT);
    } else {
        (*st).head = after_next;
        if after_next == NONE { (*st).tail = NONE; }
        tok[next].next = NONE;
        end = start_service(s, a, k, next, next_id, next_visits, t);
    }
    if to != EXIT {
        tok[token].visits = visits + 1u;
        tok[token].arrived = t;
        tok[token].sender = k;
        tok[token].link = link;
        return end;
    }
    if measured {
        let y = co_at(s, CO_STAY);
        seg_count[y] = add128(seg_count[y], sub64(t, tok[token].entered));
    }
    let x = co_at(s, CO_EXITS);
    let exits = seg_count[x];
    seg_count[x] = vec4<u32>(
        add64(exits.xy, vec2<u32>(1u, 0u)),
        add64(exits.zw, vec2<u32>(select(0u, 1u, measured), 0u)),
    );
    tok[token] = Token(never(), vec2<u32>(0u), 0u, NONE, NONE, NONE, vec2<u32>(0u), vec2<u32>(0u), vec4<u32>(0u));
    dep_list[P.free_base + atomicAdd(&heads[free_top()], 1u)] = token;
    return end;
}

// Station s's departures within the bound, in (time, server) order: with several servers
// the due ones are marked first (a service started here may end within the bound under
// interval/original; it departs next step, as on the CPU); one server departs at most once
// without marks. Returns how many.
fn depart_station(s: u32, bound: vec2<u32>) -> u32 {
    let a = stat(s, S_FIRST);
    let c = stat(s, S_SERVERS);
    var st = load_station(s);
    // the first server is in the station's line: its load need not wait for `a`
    let first = seg_count[st_at(s, ST_SERVER)].xy;
    let boundary = P.rule == RULE_BOUNDARY;
    var n = 0u;
    if c == 1u {
        if le64(first, bound) {
            let end = depart_server(s, &st, a, a, first, select(first, ctl[0].exec_at, boundary));
            store_queue(s, st);
            // its next event: the server's new departure or its source's next arrival
            dep[s] = min64(end, select(never(), st.src_next, has_source(s)));
            return 1u;
        }
    } else {
        for (var k = a; k < a + c; k++) {
            let d = srv_dep(s, a, k);
            set_due(s, a, k, select(never(), d, le64(d, bound)));
        }
        loop {
            var best = NONE;
            var best_t = never();
            for (var k = a; k < a + c; k++) {
                let d = srv_due(s, a, k);
                if lt64(d, best_t) { best = k; best_t = d; }
            }
            if best == NONE { break; }
            set_due(s, a, best, never());
            _ = depart_server(s, &st, a, best, best_t, select(best_t, ctl[0].exec_at, boundary));
            n += 1u;
        }
    }
    store_queue(s, st);
    dep[s] = station_next(s, st);
    return n;
}

// DEPART_WG threads a workgroup, DEPART_SPLIT workgroups a segment: written by setup.rs
// (depart_shape).
@compute @workgroup_size(DEPART_WG)
fn depart(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let w = wid.x;
    if !step_runs(lid) { return; }
    if lid == 0u { atomicStore(&sh_events, 0u); }
    workgroupBarrier();
    let bound = ctl[0].bound;
    let seg = w / DEPART_SPLIT;
    let total = seg_count[seg].x;
    var n = 0u;
    for (var j = (w % DEPART_SPLIT) * DEPART_WG + lid; j < total; j += DEPART_SPLIT * DEPART_WG) {
        n += depart_station(dep_list[seg * SEG + j], bound);
    }
    atomicAdd(&sh_events, n);
    workgroupBarrier();
    // this workgroup's departures (finish_step adds them up)
    if lid == 0u { seg_count[w].y = atomicLoad(&sh_events); }
}

// External arrivals of s's source within the bound (times only: nothing changes).
fn arrivals_within(s: u32, bound: vec2<u32>) -> u32 {
    if !has_source(s) { return 0u; }
    let i = source_index(s);
    var t = seg_count[st_at(s, ST_TIMES)].zw;
    var c = seg_count[co_at(s, CO_SOURCE)].xy;
    var n = 0u;
    while le64(t, bound) {
        n += 1u;
        c = add64(c, vec2<u32>(1u, 0u));
        t = add64(t, gap_of(i, source_gap(s), c));
    }
    return n;
}

@compute @workgroup_size(WG)
fn count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    if uniform_phase(lid, 0u) != PHASE_PLANNED { return; }
    if lid == 0u { atomicStore(&sh_events, 0u); }
    workgroupBarrier();
    let bound = ctl[0].bound;
    let total = seg_count[wg].x;
    var n = 0u;
    for (var j = lid; j < total; j += WG) {
        n += arrivals_within(dep_list[wg * SEG + j], bound);
    }
    atomicAdd(&sh_events, n);
    workgroupBarrier();
    if lid == 0u {
        let all = atomicLoad(&sh_events);
        if all > 0u { atomicAdd(&heads[needed_at()], all); }
    }
}
