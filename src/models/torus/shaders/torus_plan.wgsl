// torus_plan.wgsl — closes a step and plans the next one, on the GPU (one workgroup), so
// that no step needs a CPU round trip. Twin of Stepped::advance / StepRule::bound in
// src/models/torus/stepped.rs.
//
// Step state machine (ctl.phase):
//   PLANNED  a step's bound is set; depart + arrive run it, then `finish_step` closes it;
//   IDLE     between steps;
//   HELD     the next t_min is at or past ctl.limit (the caller's budget): nothing runs
//            until the caller raises the limit and `resume` plans again;
//   DONE     the next t_min is at or past the end time.


// floor(a / b) for b > 0, by shift and subtract (one thread, once per step).
fn div64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    var q = vec2<u32>(0u, 0u);
    var r = vec2<u32>(0u, 0u);
    for (var i = 63i; i >= 0; i--) {
        // r = (r << 1) | bit i of a
        let bit = select((a.x >> u32(i)) & 1u, (a.y >> u32(i - 32)) & 1u, i >= 32);
        r = vec2<u32>((r.x << 1u) | bit, (r.y << 1u) | (r.x >> 31u));
        if !lt64(r, b) {
            r = sub64(r, b);
            if i >= 32 { q.y |= 1u << u32(i - 32); } else { q.x |= 1u << u32(i); }
        }
    }
    return q;
}

// Reduces this step's per-segment minima (scan, depart and arrive) and counts. Four independent loads per iteration keep several memory requests in flight:
// this one workgroup runs alone, so its latency is the cost.
fn reduce_partials(lid: u32) -> Reduced {
    var m0 = never(); var m1 = never(); var m2 = never(); var m3 = never();
    var n = vec2<u32>(0u, 0u); // (departures, causality errors)
    var w = lid;
    for (; w + WG < P.n_wg; w += 2u * WG) {
        let a = part_min[w];
        let b = part_min[w + WG];
        m0 = min64(m0, scan_min[w]);
        m1 = min64(m1, scan_min[w + WG]);
        m2 = min64(min64(m2, a.xy), a.zw);
        m3 = min64(min64(m3, b.xy), b.zw);
        n += seg_count[w].xz + seg_count[w + WG].xz;
    }
    for (; w < P.n_wg; w += WG) {
        let a = part_min[w];
        m0 = min64(min64(m0, scan_min[w]), min64(a.xy, a.zw));
        n += seg_count[w].xz;
    }
    // (departures, causality errors) of this step: at most K each, so u32 per thread
    return wg_reduce(lid, min64(min64(m0, m1), min64(m2, m3)), vec2<u32>(n.x, 0u), vec2<u32>(n.y, 0u));
}

// Thread 0 only, after reduce_partials: the next step's bound from t_min.
fn plan(t_min: vec2<u32>) {
    if !lt64(t_min, P.end_t) {
        ctl.phase = PHASE_DONE;
        ctl.t_min = t_min;
        return;
    }
    if !lt64(t_min, ctl.limit) {
        ctl.phase = PHASE_HELD;
        ctl.t_min = t_min;
        return;
    }
    let last = sub64(P.end_t, vec2<u32>(1u, 0u));
    var bound: vec2<u32>;
    var exec_at = vec2<u32>(0u, 0u);
    if P.rule == RULE_WINDOW {
        bound = sub64(add64(t_min, P.d), vec2<u32>(1u, 0u));
    } else {
        let q = div64(sub64(add64(t_min, P.d), vec2<u32>(1u, 0u)), P.d);
        exec_at = mul64(q, P.d);
        bound = exec_at;
    }
    bound = min64(bound, last);
    ctl.t_min = t_min;
    ctl.bound = bound;
    ctl.exec_at = exec_at;
    steplog[ctl.step % P.log_len] = LogEntry(t_min, bound, 0u, 0u, 0u, 0u);
    ctl.phase = PHASE_PLANNED;
}

@compute @workgroup_size(WG)
fn finish_step(@builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    if uniform_phase(lid) != PHASE_PLANNED { return; }
    let r = reduce_partials(lid);
    if lid == 0u {
        let i = ctl.step % P.log_len;
        let events = r.a.x;
        let errors = r.b.x;
        steplog[i].events = events;
        steplog[i].errors = errors;
        ctl.events = add64(ctl.events, vec2<u32>(events, 0u));
        ctl.errors = add64(ctl.errors, vec2<u32>(errors, 0u));
        ctl.max_events = max(ctl.max_events, events);
        ctl.step += 1u;
        plan(r.min);
    }
}

// Plans a step when none is planned: after set-up (IDLE: reduce the initial minima) or
// when the caller raised the limit of a HELD engine (t_min is already known).
@compute @workgroup_size(WG)
fn resume(@builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let phase = uniform_phase(lid);
    if phase == PHASE_IDLE {
        let r = reduce_partials(lid);
        if lid == 0u { plan(r.min); }
    } else if phase == PHASE_HELD && lid == 0u {
        plan(ctl.t_min);
    }
}

