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
    let b = step_bound(t_min);
    ctl.t_min = t_min;
    ctl.bound = b.xy;
    ctl.exec_at = b.zw;
    steplog[ctl.step % P.log_len] = LogEntry(t_min, b.xy, 0u, 0u, 0u, 0u);
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

