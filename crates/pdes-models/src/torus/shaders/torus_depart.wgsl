// torus_depart.wgsl — the scan and the departures phase of one step, in one pass (after
// stepped_scan.wgsl; twin of the departures loop in crates/pdes-models/src/torus/two_phase.rs and
// TorusState::depart). Workgroup w lists the departures of its segment (the shared scan)
// and spreads them over its threads. Each completes its service, puts its token in its
// destination's mailbox, starts its next queued token, and counts the announcement;
// the first announcement to a destination lists it in the segment's part of `recv_list`.
// Per-segment sums of busy and sojourn time and the count of completed visits are kept
// exactly in 64 bits, from the warm-up on (as TorusState::depart: busy cut at the warm-up,
// a visit counted when it completes at or after it).

var<workgroup> sh_recv: atomic<u32>;
var<workgroup> sh_done: atomic<u32>;

struct Departed {
    busy: vec2<u32>,
    sojourn: vec2<u32>,
    dest: u32,
    counted: bool,
    next_dep: vec2<u32>, // the facility's new departure time (NEVER when it falls idle)
    first: bool,         // the first announcement to dest this step: dest is to be listed
}

// Facility f's departure in the step planned as `c`.
fn depart_one(f: u32, rep: u32, c: Ctl) -> Departed {
    let t = dep[f];
    let t_exec = select(t, c.exec_at, P.rule == RULE_BOUNDARY);
    var st = load_fac(f);
    let token = st.serving & TOKEN_MASK;
    let dir = st.serving >> 30u;
    // The token into its destination's mailbox first: that needs only the token and its
    // route, so the announcement's returning atomic is in flight while the rest of the
    // departure waits for its own loads (arrive reads the mailboxes in the next pass, so the
    // order inside this one does not matter).
    let s = sources(f); // s[d ^ 1] is f's neighbour in direction d
    let dest = s[dir ^ 1u];
    atomicStore(&mail[MAIL * dest + dir], token); // dest reads it from its box, by direction
    let first = atomicOr(&mail[MAIL * dest + MAIL_MASK], 1u << dir) == 0u;
    let counted_from = max64(st.start, P.warmup);
    let busy = select(vec2<u32>(0u, 0u), sub64(t, counted_from), lt64(counted_from, t));
    let counted = !lt64(t_exec, P.warmup);
    let soj = select(vec2<u32>(0u, 0u), sub64(t_exec, st.arrived), counted);
    // It arrives at its destination at t_exec: its whole record in one store, without
    // reading it (the facility holds its arrival time and visits). A token in transit is in
    // no queue, so its link is NONE; while it was in service the link was left stale (below).
    fac[tok_base() + (token)] = vec4<u32>(t_exec, NONE, st.visits + 1u);
    var next_dep = never();
    if st.head == NONE {
        st.serving = NONE;
        st.start = t_exec; // free since
    } else {
        let next = st.head;
        let nt = fac[tok_base() + (next)];
        st.head = nt.z;
        if st.head == NONE { st.tail = NONE; }
        // Its record is not rewritten: nothing reads a serving token's record (the
        // facility's copies stand for it), and its departure rewrites it whole, the stale
        // link included (decode_state clears it, as TorusState::depart does).
        let words = replica_words(next, nt.w, rep, c.seed);
        next_dep = add64(t_exec, service_ticks_of(words.x, c.shift, c.scale));
        st.start = t_exec;
        st.serving = next | ((words.y >> 30u) << 30u);
        st.arrived = nt.xy;
        st.visits = nt.w;
    }
    dep[f] = next_dep;
    store_fac(f, st);
    return Departed(busy, soj, dest, counted, next_dep, first);
}

var<workgroup> sh_plan: Ctl;

// The scan and the departures of segment wg in one workgroup (stepped_scan.wgsl lists the
// segment's departures in shared memory; this workgroup then processes them). Safe in one
// pass: a departure changes only its own facility's departure time (the scan's input) and
// the destinations' mailboxes, which only the arrive pass reads. First, the workgroup closes
// the step before and plans this one (torus_plan.wgsl): no pass of its own for that.
@compute @workgroup_size(WG)
fn scan_depart(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    let rep = segment_replica(wg);
    let writer = wg == rep * P.n_wg1; // the replica's first segment publishes the plan
    // What the workgroup's tail reads (thread 0: the segment's accumulators), loaded now so
    // that the latency overlaps the scan instead of adding to the tail's chain.
    var acc = vec4<u32>(0u);
    var completed = vec4<u32>(0u);
    if lid == 0u {
        acc = seg_count[wg_acc_base() + (2u * wg)];
        completed = seg_count[wg_acc_base() + (2u * wg + 1u)];
        atomicStore(&sh_count, 0u);
        atomicStore(&sh_recv, 0u);
        atomicStore(&sh_done, 0u);
    }
    let planned = close_and_plan(lid, rep, writer);
    if lid == 0u {
        if writer { ctl[P.replicas + rep] = planned; } // for the arrive pass
        sh_plan = planned;
        sh_phase = planned.phase;
    }
    if workgroupUniformLoad(&sh_phase) != PHASE_PLANNED { return; }
    let c = sh_plan; // written before the barrier of the load above
    let par = c.step & 1u;
    var m = list_departures(wg, lid, c.bound); // the others' least departure
    let total = atomicLoad(&sh_count);
    var done = 0u;
    var busy = vec2<u32>(0u, 0u);
    var soj = vec2<u32>(0u, 0u);
    for (var j = lid; j < total; j += WG) {
        let f = sh_list[j];
        let r = depart_one(f, rep, c);
        busy = add64(busy, r.busy);
        soj = add64(soj, r.sojourn);
        done += select(0u, 1u, r.counted);
        m = min64(m, r.next_dep);
        if r.first {
            recv_list[wg * SEG + atomicAdd(&sh_recv, 1u)] = r.dest;
        }
    }
    atomicAdd(&sh_done, done);
    workgroupBarrier();
    let n = atomicLoad(&sh_recv);
    let n_done = atomicLoad(&sh_done);
    let r = wg_reduce(lid, m, busy, soj);
    if lid == 0u {
        seg_count[wg_acc_base() + (2u * wg)] = vec4<u32>(add64(acc.xy, r.a), add64(acc.zw, r.b));
        seg_count[wg_acc_base() + (2u * wg + 1u)] = vec4<u32>(add64(completed.xy, vec2<u32>(n_done, 0u)), completed.zw);
        // the segment's least departure after its departures (the fallback reduction's input;
        // part_min's depart half stays NEVER from set-up: the torus departs in this pass)
        scan_min[par * P.n_wg + wg] = r.min;
        seg_count[wg].x = total;
        seg_count[wg].y = n;
        note_min(par, rep, c.t_min, r.min);
        if total > 0u { atomicAdd(&mail[step_acc_base() + (acc_word(par, rep, 1u))], total); }
    }
}
