// net_plan.wgsl — closes a step and plans the next one on the GPU (one workgroup), so that
// no step needs a CPU round trip. Twin of Stepped::advance in
// crates/pdes-models/src/network/engines.rs.
//
// Step state machine (ctl.phase), as for the open network:
//   PLANNED  a step's bound is set; scan, count (open networks), depart and arrive run it,
//            then `finish_step` closes it;
//   IDLE     before the first plan;
//   HELD     the next t_min is at or past ctl.limit (the caller's budget);
//   FULL     the step's external arrivals (counted by the `count` pass) need more token
//            slots than the pool has: depart and arrive did nothing, and nothing runs
//            until the host grows the pool (between batches), sets HELD and resumes —
//            the same step is then planned again;
//   DONE     the next t_min is at or past the end time.

// The next step from the stations' minimum next event (thread 0).
fn plan(t_min: vec2<u32>) {
    ctl[0].t_min = t_min;
    if !lt64(t_min, P.end_t) {
        ctl[0].phase = PHASE_DONE;
    } else if !lt64(t_min, ctl[0].limit) {
        ctl[0].phase = PHASE_HELD;
    } else {
        let b = step_bound(t_min);
        ctl[0].bound = b.xy;
        ctl[0].exec_at = b.zw;
        atomicStore(&heads[needed_at()], 0u);
        ctl[0].available = atomicLoad(&heads[free_top()]) + (ctl[0].pool_cap - ctl[0].pool_used);
        steplog[ctl[0].step % P.log_len] = LogEntry(t_min, b.xy, 0u, 0u, 0u, 0u);
        ctl[0].phase = PHASE_PLANNED;
    }
}


// The step's minimum next event (the scan's of the stations not listed, the arrive pass's of
// every station), its events (departures and external arrivals, summed a segment by the
// arrive pass) and causality errors, in thread 0.
fn reduce_step(lid: u32) -> Reduced {
    var m = never();
    var events = 0u;
    var errors = 0u;
    for (var w = lid; w < P.n_wg; w += WG) { // a workgroup per segment
        let p = part_min[w];
        m = min64(m, min64(scan_min[w], p.xy));
        errors += p.z;
        events += p.w; // its departures and external arrivals (the arrive pass's sums)
    }
    return wg_reduce(lid, m, vec2<u32>(events, 0u), vec2<u32>(errors, 0u));
}

@compute @workgroup_size(WG)
fn finish_step(@builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    if uniform_phase(lid, 0u) != PHASE_PLANNED { return; }
    if lid == 0u {
        let needed = atomicLoad(&heads[needed_at()]);
        sh_go = select(0u, 1u, needed <= ctl[0].available);
        if needed > ctl[0].available {
            ctl[0].pool_short = needed - ctl[0].available;
            ctl[0].phase = PHASE_FULL;
        }
    }
    if workgroupUniformLoad(&sh_go) == 0u { return; }
    let r = reduce_step(lid);
    if lid == 0u {
        let i = ctl[0].step % P.log_len;
        let events = r.a.x;
        let errors = r.b.x;
        steplog[i].events = events;
        steplog[i].errors = errors;
        ctl[0].events = add64(ctl[0].events, vec2<u32>(events, 0u));
        ctl[0].errors = add64(ctl[0].errors, vec2<u32>(errors, 0u));
        ctl[0].max_events = max(ctl[0].max_events, events);
        ctl[0].step += 1u;
        // the slots the arrivals took: the free stack's top first, then unused ones
        let taken = atomicLoad(&heads[taken_at()]);
        let top = atomicLoad(&heads[free_top()]);
        let from_stack = min(taken, top);
        atomicStore(&heads[free_top()], top - from_stack);
        ctl[0].pool_used += taken - from_stack;
        atomicStore(&heads[taken_at()], 0u);
        plan(r.min);
    }
}

// Plans a step when none is planned: after set-up (IDLE: reduce the initial minima) or
// when the caller raised the limit of a HELD engine or grew the pool of a FULL one (the
// stations' minimum is unchanged since: nothing ran).
@compute @workgroup_size(WG)
fn resume(@builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let phase = uniform_phase(lid, 0u);
    if phase == PHASE_IDLE {
        let r = reduce_step(lid);
        if lid == 0u { plan(r.min); }
    } else if phase == PHASE_HELD {
        if lid == 0u { plan(ctl[0].t_min); }
    }
}
