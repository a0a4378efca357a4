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


// Every replica runs this state machine on its own control block, in its own workgroup
// of these passes (workgroup r plans replica r), with its own step count and log.

// Thread 0 only: replica rep's next step's bound from t_min, into its control block `c`
// (a private copy: finish_step and resume load the block once and store it once, so the
// one thread that closes a step waits for one round trip to memory, not one per field).
fn plan(rep: u32, c: ptr<function, Ctl>, t_min: vec2<u32>) {
    (*c).t_min = t_min;
    if !lt64(t_min, P.end_t) {
        (*c).phase = PHASE_DONE;
        return;
    }
    let b = step_bound(t_min);
    (*c).bound = b.xy; // a held step's bound too: the display pass outlines it
    if !lt64(t_min, (*c).limit) {
        (*c).phase = PHASE_HELD;
        return;
    }
    (*c).exec_at = b.zw;
    steplog[log_slot(rep, (*c).step)] = LogEntry(t_min, b.xy, 0u, 0u, 0u, 0u);
    (*c).phase = PHASE_PLANNED;
}

// Replica rep's log entry of step `step`.
fn log_slot(rep: u32, step: u32) -> u32 {
    return rep * P.log_len + step % P.log_len;
}

// Replica rep's partials: its segments.
fn reduce_replica(lid: u32, rep: u32) -> Reduced {
    return reduce_partials(lid, rep * P.n_wg1, (rep + 1u) * P.n_wg1);
}

var<workgroup> sh_rel: u32;

@compute @workgroup_size(WG)
fn finish_step(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let rep = wid.x;
    // Thread 0 loads the control block and the step's three atomic words at once (one
    // round trip to memory, not one per dependent read: this one workgroup runs alone).
    var c: Ctl;
    var events = 0u;
    var errors = 0u;
    if lid == 0u {
        c = ctl[rep];
        sh_phase = c.phase;
        sh_rel = atomicLoad(&step_acc[4u * rep]);
        events = atomicLoad(&step_acc[4u * rep + 1u]);
        errors = atomicLoad(&step_acc[4u * rep + 2u]);
    }
    if workgroupUniformLoad(&sh_phase) != PHASE_PLANNED { return; }
    // The passes' atomic minimum (common.wgsl, note_min); reduce the segments' partials only
    // when it could not hold the offset.
    let rel = workgroupUniformLoad(&sh_rel);
    var next = vec2<u32>(0u, 0u);
    if rel == NONE {
        next = reduce_replica(lid, rep).min;
    }
    if lid == 0u {
        if rel != NONE {
            next = add64(c.t_min, vec2<u32>(rel, 0u));
        }
        let i = log_slot(rep, c.step);
        atomicStore(&step_acc[4u * rep], NONE);
        atomicStore(&step_acc[4u * rep + 1u], 0u);
        atomicStore(&step_acc[4u * rep + 2u], 0u);
        steplog[i].events = events;
        steplog[i].errors = errors;
        c.events = add64(c.events, vec2<u32>(events, 0u));
        c.errors = add64(c.errors, vec2<u32>(errors, 0u));
        c.max_events = max(c.max_events, events);
        c.step += 1u;
        plan(rep, &c, next);
        ctl[rep] = c;
    }
}

// Plans a step when none is planned: after set-up (IDLE: reduce the initial minima) or
// when the caller raised the limit of a HELD engine (t_min is already known).
@compute @workgroup_size(WG)
fn resume(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let rep = wid.x;
    let phase = uniform_phase(lid, rep);
    if phase == PHASE_IDLE {
        let r = reduce_replica(lid, rep);
        if lid == 0u {
            var c = ctl[rep];
            plan(rep, &c, r.min);
            ctl[rep] = c;
        }
    } else if phase == PHASE_HELD && lid == 0u {
        var c = ctl[rep];
        plan(rep, &c, c.t_min);
        ctl[rep] = c;
    }
}
