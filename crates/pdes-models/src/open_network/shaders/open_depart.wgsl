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

struct Departed {
    busy: vec2<u32>,
    sojourn: vec2<u32>,
    exit_time: vec2<u32>, // 0 unless it left
    stay: vec2<u32>,      // 0 unless it left
    dest: u32,            // NONE when it left
    first: bool,          // the first announcement to dest this step
}

fn depart_one(f: u32) -> Departed {
    let zero = vec2<u32>(0u, 0u);
    let t = dep[f];
    let t_exec = select(t, ctl[0].exec_at, P.rule == RULE_BOUNDARY);
    var st = fac[f];
    let token = st.x;
    var tk = tok[token];
    let busy = sub64(t, start_t[f]);
    let soj = sub64(t_exec, tk.arrived); // may wrap: negative under interval/original
    let words = visit_words(tk.arrival, tk.visits);
    tk.visits += 1u;
    if st.y == NONE {
        st.x = NONE;
        dep[f] = never();
        start_t[f] = t_exec; // free since
    } else {
        let next = st.y;
        let nt = tok[next];
        st.y = nt.next;
        if st.y == NONE { st.z = NONE; }
        tok[next].next = NONE;
        dep[f] = service_end(nt, t_exec);
        start_t[f] = t_exec;
        st.x = next;
    }
    fac[f] = st;
    var dest: u32;
    let position = f % P.servers;
    if position + 1u < P.servers {
        dest = f + 1u;
    } else if exits(words.y) {
        tok[token] = Token(never(), zero, zero, 0u, NONE, NONE, NONE, 0u, 0u);
        free_stack[atomicAdd(&heads[P.k], 1u)] = token;
        return Departed(busy, soj, t_exec, sub64(t_exec, tk.entered), NONE, false);
    } else {
        dest = choose(words.z, P.lines) * P.servers;
    }
    tk.arrived = t_exec;
    tk.sender = f;
    tk.link = atomicExchange(&heads[dest], token);
    tok[token] = tk;
    return Departed(busy, soj, zero, zero, dest, tk.link == NONE);
}

@compute @workgroup_size(WG)
fn depart(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let wg = wid.x;
    if uniform_phase(lid, 0u) != PHASE_PLANNED { return; } // the segment lists are stale
    if lid == 0u {
        atomicStore(&sh_count, 0u);
        atomicStore(&sh_exits, 0u);
    }
    workgroupBarrier();
    var busy = vec2<u32>(0u, 0u);
    var soj = vec2<u32>(0u, 0u);
    var exit_time = vec2<u32>(0u, 0u);
    var stay = vec2<u32>(0u, 0u);
    var m = never();
    let total = seg_count[wg].x;
    for (var j = lid; j < total; j += WG) {
        let f = dep_list[wg * SEG + j];
        let r = depart_one(f);
        busy = add64(busy, r.busy);
        soj = add64(soj, r.sojourn);
        exit_time = add64(exit_time, r.exit_time);
        stay = add64(stay, r.stay);
        m = min64(m, dep[f]);
        if r.dest == NONE {
            atomicAdd(&sh_exits, 1u);
        } else if r.first {
            recv_list[wg * SEG + atomicAdd(&sh_count, 1u)] = r.dest;
        }
    }
    workgroupBarrier();
    let n = atomicLoad(&sh_count);
    let n_exits = atomicLoad(&sh_exits);
    let r = wg_reduce(lid, m, busy, soj);
    let x = wg_reduce(lid, never(), exit_time, stay);
    if lid == 0u {
        let a = wg * ACC_PER_SEGMENT;
        wg_acc[a + ACC_BUSY] = add128(wg_acc[a + ACC_BUSY], r.a);
        wg_acc[a + ACC_SOJOURN] = add128_signed(wg_acc[a + ACC_SOJOURN], r.b);
        wg_acc[a + ACC_EXIT_TIME] = add128(wg_acc[a + ACC_EXIT_TIME], x.a);
        wg_acc[a + ACC_STAY] = add128(wg_acc[a + ACC_STAY], x.b);
        wg_acc[a + ACC_EXITS] = add128(wg_acc[a + ACC_EXITS], vec2<u32>(n_exits, 0u));
        part_min[wg] = vec4<u32>(r.min, part_min[wg].zw);
        seg_count[wg].y = n;
        seg_count[wg].w = n_exits;
    }
}
