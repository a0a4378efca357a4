// open_plan.wgsl — closes a step and plans the next one on the GPU (one workgroup), so
// that no step needs a CPU round trip. Twin of Stepped::advance and the source's part of
// Stepped::step in crates/pdes-models/src/open_network/two_phase.rs.
//
// Step state machine (ctl.phase), as for the torus plus one state:
//   PLANNED  a step's bound is set and its external arrivals created; depart + arrive run
//            it, then `finish_step` closes it;
//   IDLE     before the first plan;
//   HELD     the next t_min is at or past ctl.limit (the caller's budget);
//   FULL     the next step's arrivals need more token slots than the pool has: nothing
//            runs until the host grows the pool (between batches), sets HELD and resumes;
//   DONE     the next t_min is at or past the end time.
//
// The plan counts the source's arrivals within the bound and checks the pool; they are
// created when the step starts (step_start in common.wgsl), so that a planned step that
// has not run yet has changed nothing.

var<workgroup> plan_go: u32;
var<workgroup> plan_bound: vec4<u32>; // (bound, exec_at)

// The next step from the facilities' minimum departure (valid in thread 0): every
// thread calls it; thread 0 decides and writes ctl, all count the arrivals.
fn plan(lid: u32, departures_min: vec2<u32>) {
    if lid == 0u {
        plan_go = 0u;
        let t_min = min64(departures_min, ctl[0].next_arrival);
        ctl[0].t_min = t_min;
        if !lt64(t_min, P.end_t) {
            ctl[0].phase = PHASE_DONE;
        } else if !lt64(t_min, ctl[0].limit) {
            ctl[0].phase = PHASE_HELD;
        } else {
            plan_bound = step_bound(t_min);
            plan_go = 1u;
        }
    }
    if workgroupUniformLoad(&plan_go) == 0u { return; }
    let b = plan_bound;
    // How many arrivals fall within the bound (their times only), before taking slots.
    let n = count_arrivals(lid, b.xy);
    if lid == 0u {
        let available = atomicLoad(&heads[P.k]) + (ctl[0].pool_cap - ctl[0].pool_used);
        if n > available {
            ctl[0].pool_short = n - available;
            ctl[0].phase = PHASE_FULL;
            return;
        }
        ctl[0].step_arrivals = n; // created by step_start, when the step starts
        ctl[0].bound = b.xy;
        ctl[0].exec_at = b.zw;
        steplog[ctl[0].step % P.log_len] = LogEntry(ctl[0].t_min, b.xy, 0u, 0u, 0u, 0u);
        ctl[0].phase = PHASE_PLANNED;
    }
}

@compute @workgroup_size(WG)
fn finish_step(@builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    if uniform_phase(lid, 0u) != PHASE_PLANNED { return; }
    let r = reduce_partials(lid, 0u, P.n_wg);
    if lid == 0u {
        let i = ctl[0].step % P.log_len;
        let events = r.a.x + ctl[0].step_arrivals;
        let errors = r.b.x;
        steplog[i].events = events;
        steplog[i].errors = errors;
        ctl[0].events = add64(ctl[0].events, vec2<u32>(events, 0u));
        ctl[0].errors = add64(ctl[0].errors, vec2<u32>(errors, 0u));
        ctl[0].max_events = max(ctl[0].max_events, events);
        ctl[0].step += 1u;
    }
    plan(lid, r.min);
}

// Plans a step when none is planned: after set-up (IDLE: reduce the initial minima) or
// when the caller raised the limit of a HELD engine or grew the pool of a FULL one (the
// facilities' minimum is unchanged since: nothing ran).
@compute @workgroup_size(WG)
fn resume(@builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let phase = uniform_phase(lid, 0u);
    if phase == PHASE_IDLE {
        let r = reduce_partials(lid, 0u, P.n_wg);
        plan(lid, r.min);
    } else if phase == PHASE_HELD {
        plan(lid, ctl[0].t_min);
    }
}
