// torus_plan.wgsl — closes a step and plans the next one, on the GPU, so that no step
// needs a CPU round trip. Twin of Stepped::advance / StepRule::bound in
// crates/pdes-models/src/torus/two_phase.rs. Composed into the scan's module (which closes the step
// before it, below) and into the plan module (finish_step, resume).
//
// Step state machine (ctl.phase):
//   PLANNED  a step's bound is set; scan_depart + arrive run it (then `executed` = 1), and
//            the next step's scan closes it — or, after a batch's last step, finish_step;
//   IDLE     before the first plan;
//   HELD     the next t_min is at or past ctl.limit (the caller's budget): nothing runs
//            until the caller raises the limit and `resume` plans again;
//   DONE     the next t_min is at or past the end time.
//
// Two passes per step, and no pass of one workgroup between them: every workgroup of a
// step's scan closes the step before it for itself (the same inputs give every one the same
// plan) from the host's control block ctl[r] and that step's accumulators. So nothing the
// scan reads may change during it: the replica's first workgroup writes the new plan to
// ctl[R + r], which the arrive pass reads, and the arrive pass's first workgroup copies it to
// ctl[r] (marked executed) for the next scan, and clears the closed step's accumulators.
// The accumulators (step_acc) and the segment minima (scan_min, part_min) come in two sets,
// by the parity of the step's number, because a scan writes its own step's while its
// workgroups read the closed step's. After a batch's last step, finish_step closes it, so
// between batches ctl[r] is a planned, not executed step, as the host expects.

// Replica rep's log entry of step `step`.
fn log_slot(rep: u32, step: u32) -> u32 {
    return rep * P.log_len + step % P.log_len;
}

// Thread 0 only: replica rep's next step's bound from t_min, into its control block `c` (a
// private copy: loaded once and stored once). `writer`: this workgroup writes the step log
// (one workgroup per replica does).
fn plan(rep: u32, c: ptr<function, Ctl>, t_min: vec2<u32>, writer: bool) {
    (*c).t_min = t_min;
    if !lt64(t_min, P.end_t) {
        (*c).phase = PHASE_DONE;
        return;
    }
    let b = step_bound_d(t_min, (*c).d); // the replica's own d
    (*c).bound = b.xy; // a held step's bound too: the display pass outlines it
    if !lt64(t_min, (*c).limit) {
        (*c).phase = PHASE_HELD;
        return;
    }
    (*c).exec_at = b.zw;
    if writer {
        steplog[log_slot(rep, (*c).step)] = LogEntry(t_min, b.xy, 0u, 0u, 0u, 0u);
    }
    (*c).phase = PHASE_PLANNED;
}

// The least pending departure of replica rep after its step of parity `par`, from the
// segments' minima (the fallback when the step's offset word could not hold it). Every
// thread calls it.
fn replica_min(lid: u32, rep: u32, par: u32) -> vec2<u32> {
    let base = par * P.n_wg;
    var m0 = never();
    var m1 = never();
    for (var w = rep * P.n_wg1 + lid; w < (rep + 1u) * P.n_wg1; w += WG) {
        let a = part_min[base + w];
        m0 = min64(m0, scan_min[base + w]);
        m1 = min64(m1, min64(a.xy, a.zw));
    }
    return wg_min(lid, min64(m0, m1));
}

var<workgroup> sh_close: u32; // 0: nothing to close; else 1 + the executed step's parity
var<workgroup> sh_rel: u32;

// Replica rep's control block ctl[rep], with its executed step (if it has one) closed and
// the next planned: every thread calls it, thread 0's result is the block (the others'
// is not). Thread 0 loads the block and the step's three accumulator words at once (one
// round trip to memory, not one per dependent read). `writer`: this workgroup writes the
// closed step's and the planned step's log entries.
fn close_and_plan(lid: u32, rep: u32, writer: bool) -> Ctl {
    var c: Ctl;
    var events = 0u;
    var errors = 0u;
    if lid == 0u {
        c = ctl[rep];
        let par = c.step & 1u;
        sh_rel = atomicLoad(&mail[step_acc_base() + (acc_word(par, rep, 0u))]);
        events = atomicLoad(&mail[step_acc_base() + (acc_word(par, rep, 1u))]);
        errors = atomicLoad(&mail[step_acc_base() + (acc_word(par, rep, 2u))]);
        sh_close = select(0u, 1u + par, c.phase == PHASE_PLANNED && c.executed != 0u);
    }
    let close = workgroupUniformLoad(&sh_close);
    if close == 0u { return c; }
    // The passes' atomic minimum (note_min); reduce the segments' minima only when it could
    // not hold the offset.
    let rel = workgroupUniformLoad(&sh_rel);
    var next = vec2<u32>(0u, 0u);
    if rel == NONE {
        next = replica_min(lid, rep, close - 1u);
    }
    if lid == 0u {
        if rel != NONE {
            next = add64(c.t_min, vec2<u32>(rel, 0u));
        }
        if writer {
            let i = log_slot(rep, c.step);
            steplog[i].events = events;
            steplog[i].errors = errors;
        }
        c.events = add64(c.events, vec2<u32>(events, 0u));
        c.errors = add64(c.errors, vec2<u32>(errors, 0u));
        c.max_events = max(c.max_events, events);
        c.step += 1u;
        c.executed = 0u;
        plan(rep, &c, next, writer);
    }
    return c;
}

// Closes a batch's last step (when it ran) and plans the next, so that the host reads a
// closed step; clears both sets of accumulators (nothing is pending between batches).
@compute @workgroup_size(WG)
fn finish_step(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let rep = wid.x;
    let c = close_and_plan(lid, rep, true);
    if lid == 0u {
        clear_acc(0u, rep);
        clear_acc(1u, rep);
        ctl[rep] = c;
    }
}

// Plans a step when none is planned: after set-up (IDLE: reduce the initial minima, the
// first scan_min set) or when the caller raised the limit of a HELD engine (t_min is
// already known).
@compute @workgroup_size(WG)
fn resume(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let rep = wid.x;
    let phase = uniform_phase(lid, rep);
    if phase == PHASE_IDLE {
        let m = replica_min(lid, rep, 0u);
        if lid == 0u {
            var c = ctl[rep];
            plan(rep, &c, m, true);
            ctl[rep] = c;
        }
    } else if phase == PHASE_HELD && lid == 0u {
        var c = ctl[rep];
        plan(rep, &c, c.t_min, true);
        ctl[rep] = c;
    }
}
