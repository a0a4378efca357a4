// open_depart.wgsl — departures phase of one step (twin of the departures loop in
// crates/pdes-models/src/open_network/two_phase.rs and OpenState::depart). Workgroup w spreads the
// departures its segment listed over its threads. Each completes its service, starts its
// next queued token, and routes the departed one: to its line's next server, out of the
// system (its slot goes back on the free stack), or through the switch to a random line's
// first server. A routed token is pushed on its destination's announcement list
// (`heads`, lock-free); the first push to a destination lists it in the segment's part
// of `recv_list`. Per-segment sums are kept exactly in 128 bits.

var<workgroup> sh_count: atomic<u32>;
var<workgroup> sh_exits: atomic<u32>;
var<workgroup> sh_exits_measured: atomic<u32>;
var<workgroup> sh_visits_measured: atomic<u32>;
var<workgroup> sh_exits_uniform: u32; // the step's exits, readable as a uniform value

struct Departed {
    busy: vec2<u32>,         // from the warm-up on
    sojourn: vec2<u32>,      // 0 unless the visit is measured
    exited_entry: vec2<u32>, // max(entry, warm-up); 0 unless it left
    stay: vec2<u32>,         // exit − entry; 0 unless it left, measured
    area: vec2<u32>,         // exit − max(entry, warm-up); 0 unless it left, measured
    dest: u32,               // NONE when it left
    first: bool,             // the first announcement to dest this step
    measured: bool,          // completed at or after the warm-up
}

fn depart_one(f: u32) -> Departed {
    let zero = vec2<u32>(0u, 0u);
    let t = dep[f];
    let t_exec = select(t, ctl[0].exec_at, P.rule == RULE_BOUNDARY);
    var st = seg_count[fac_base() + (f)];
    let token = st.x;
    var tk = tok[token];
    // the twin of OpenState::depart's warm-up cut
    let counted_from = max64(dep[start_t_base() + (f)], P.warmup);
    let busy = select(vec2<u32>(0u, 0u), sub64(t, counted_from), lt64(counted_from, t));
    let measured = !lt64(t_exec, P.warmup);
    // may wrap: negative under interval/original
    let soj = select(zero, sub64(t_exec, tk.arrived), measured);
    let words = visit_words(tk.arrival, tk.visits);
    tk.visits += 1u;
    if st.y == NONE {
        st.x = NONE;
        dep[f] = never();
        dep[start_t_base() + (f)] = t_exec; // free since
    } else {
        let next = st.y;
        let nt = tok[next];
        st.y = nt.next;
        if st.y == NONE { st.z = NONE; }
        tok[next].next = NONE;
        dep[f] = service_end(nt, t_exec);
        dep[start_t_base() + (f)] = t_exec;
        st.x = next;
    }
    seg_count[fac_base() + (f)] = st;
    var dest: u32;
    let position = f % P.servers;
    if position + 1u < P.servers {
        dest = f + 1u;
    } else if exits(words.y) {
        tok[token] = Token(never(), zero, zero, 0u, NONE, NONE, NONE, 0u, 0u);
        dep_list[free_stack_base() + (atomicAdd(&heads[P.k], 1u))] = token;
        let entry = max64(tk.entered, P.warmup);
        let stay = select(zero, sub64(t_exec, tk.entered), measured);
        let area = select(zero, sub64(t_exec, entry), measured);
        return Departed(busy, soj, entry, stay, area, NONE, false, measured);
    } else {
        dest = choose(words.z, P.lines) * P.servers;
    }
    tk.arrived = t_exec;
    tk.sender = f;
    tk.link = atomicExchange(&heads[dest], token);
    tok[token] = tk;
    return Departed(busy, soj, zero, zero, zero, dest, tk.link == NONE, measured);
}

@compute @workgroup_size(WG)
fn depart(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    if uniform_phase(lid, 0u) != PHASE_PLANNED { return; } // the segment lists are stale
    if lid == 0u {
        atomicStore(&sh_count, 0u);
        atomicStore(&sh_exits, 0u);
        atomicStore(&sh_exits_measured, 0u);
        atomicStore(&sh_visits_measured, 0u);
    }
    workgroupBarrier();
    var busy = vec2<u32>(0u, 0u);
    var soj = vec2<u32>(0u, 0u);
    var exited_entry = vec2<u32>(0u, 0u);
    var stay = vec2<u32>(0u, 0u);
    var area = vec2<u32>(0u, 0u);
    var m = never();
    let total = seg_count[wg].x;
    for (var j = lid; j < total; j += WG) {
        let f = dep_list[wg * SEG + j];
        let r = depart_one(f);
        busy = add64(busy, r.busy);
        soj = add64(soj, r.sojourn);
        exited_entry = add64(exited_entry, r.exited_entry);
        stay = add64(stay, r.stay);
        area = add64(area, r.area);
        m = min64(m, dep[f]);
        if r.measured {
            atomicAdd(&sh_visits_measured, 1u);
        }
        if r.dest == NONE {
            atomicAdd(&sh_exits, 1u);
            if r.measured {
                atomicAdd(&sh_exits_measured, 1u);
            }
        } else if r.first {
            dep_list[recv_list_base() + (wg * SEG + atomicAdd(&sh_count, 1u))] = r.dest;
        }
    }
    workgroupBarrier();
    let n = atomicLoad(&sh_count);
    let n_exits = atomicLoad(&sh_exits);
    let n_exits_measured = atomicLoad(&sh_exits_measured);
    let n_visits_measured = atomicLoad(&sh_visits_measured);
    let r = wg_reduce(lid, m, busy, soj);
    // the exits' sums only where a token left this step (most workgroups of most steps
    // have none: two reductions fewer, each a chain of barriers)
    if lid == 0u { sh_exits_uniform = n_exits; }
    let any_exit = workgroupUniformLoad(&sh_exits_uniform) > 0u;
    var x = Reduced(never(), vec2<u32>(0u, 0u), vec2<u32>(0u, 0u));
    var y = x;
    if any_exit {
        x = wg_reduce(lid, never(), exited_entry, stay);
        y = wg_reduce(lid, never(), area, vec2<u32>(0u, 0u));
    }
    if lid == 0u {
        let a = wg * ACC_PER_SEGMENT;
        seg_count[wg_acc_base() + (a + ACC_BUSY)] = add128(seg_count[wg_acc_base() + (a + ACC_BUSY)], r.a);
        seg_count[wg_acc_base() + (a + ACC_SOJOURN)] = add128_signed(seg_count[wg_acc_base() + (a + ACC_SOJOURN)], r.b);
        seg_count[wg_acc_base() + (a + ACC_EXITED_ENTRY)] = add128(seg_count[wg_acc_base() + (a + ACC_EXITED_ENTRY)], x.a);
        seg_count[wg_acc_base() + (a + ACC_STAY)] = add128(seg_count[wg_acc_base() + (a + ACC_STAY)], x.b);
        seg_count[wg_acc_base() + (a + ACC_EXITS)] = add128(seg_count[wg_acc_base() + (a + ACC_EXITS)], vec2<u32>(n_exits, 0u));
        seg_count[wg_acc_base() + (a + ACC_AREA)] = add128(seg_count[wg_acc_base() + (a + ACC_AREA)], y.a);
        let counts = seg_count[wg_acc_base() + (a + ACC_COUNTS)];
        seg_count[wg_acc_base() + (a + ACC_COUNTS)] = vec4<u32>(
            add64(counts.xy, vec2<u32>(n_exits_measured, 0u)),
            add64(counts.zw, vec2<u32>(n_visits_measured, 0u)),
        );
        part_min[wg] = vec4<u32>(r.min, part_min[wg].zw);
        seg_count[wg].y = n;
        seg_count[wg].w = n_exits;
    }
}
