// mmck_replication.wgsl — one replication in a consumer thread (composed after mmck.wgsl):
// its state as the event loop carries it (`Rep`), loaded from and stored to its record,
// its event, and the end of a phase. A consumer thread runs one replication, or two
// (PAIRED: the two events of a loop's turn are independent, so one warp's instructions
// fill the waits of each other's chains where a lone warp's scheduler would idle;
// bench/NOTES.md, "M/M/c/k in pairs"). Every function takes the replication by pointer, so
// that both stay in registers and one text serves either way.

// Everything one replication's events carry from one to the next but its arrays, which
// are variables of their own, passed by pointer: a struct with an array indexed in a
// loop was kept in the thread's local memory on the H100 (16% slower at 7,168
// replications; bench/NOTES.md, "M/M/c/k in pairs"), separate arrays in registers.
struct Rep {
    // its record (the last one where the thread's place is past the last replication:
    // such a replication runs no event and is not stored) and its place in the
    // workgroup's rings, cursors and state times
    r: u32,
    slot: u32,
    // still running events in this dispatch, and as the current phase began
    runs: bool,
    in_phase: bool,
    // the times (`Time`: times_offsets.wgsl or times_ticks.wgsl) from `base`, in ticks
    base: vec2<u32>,
    t: Time,
    next_arr: Time,
    limit: Time,
    n: u32,
    qhead: u32,
    gaps: vec2<u32>,
    services: vec2<u32>,
    deps: vec2<u32>,
    events: vec2<u32>,
    t_start: vec2<u32>,
    arrivals: vec2<u32>,
    blocked: vec2<u32>,
    departures: vec2<u32>,
    starts: vec2<u32>,
    // the parts of the sojourn and waiting sums known where the tally began (`load_rep`)
    sojourn_base: vec2<u32>,
    wait_base: vec2<u32>,
    // The event's counters count in 32 bits from the dispatch's start (at most
    // P.max_events events) and are added to their 64-bit values at its end: one add an
    // event each, not a 64-bit add and its carry (−7% at 7,168 replications). The draws'
    // indices need only their low words inside the loop (`ticks`, `refill`).
    gaps_here: u32,
    services_here: u32,
    deps_here: u32,
    // the tally's arrivals, departures and service starts are the gaps, departures and
    // services counted from these (the counts at the warm-up's end): three adds an event
    // fewer; the blocked arrivals are those not admitted: arrivals − (n's rise +
    // departures) since the same point, where n was `n_tallied_from`
    gaps_tallied_from: u32,
    deps_tallied_from: u32,
    services_tallied_from: u32,
    n_tallied_from: u32,
    // departures still to come (all 32 bits' worth where more), and the departure at
    // which the warm-up ends, counted from the dispatch's start (0 where it is not ahead
    // in this dispatch: only a warm_at above the departures so far is a stop)
    deps_left: u32,
    warm_at: u32,
    // events run in this dispatch
    done_here: u32,
    // a thread's own draws (PRODUCERS = 0)
    gap_draws: Draws,
    service_draws: Draws,
    // the current phase's events run, the most it may run, the departure count it stops
    // at, and its departures as it began
    ran: u32,
    todo: u32,
    stop_at: u32,
    deps_from: u32,
}

// A replication's arrays: the time in each state in ticks, and what the phase has added
// to each where the states are not in workgroup memory (a duration of a phase fits a
// `Time`); per server its departure (`never`: idle) and its customer's arrival; the
// waiting customers' arrivals, a ring from `qhead`.
alias StateTimes = array<vec2<u32>, K1>;
alias PhaseTimes = array<Time, K1>;
alias Servers = array<Time, C>;
alias Waiting = array<Time, RING>;

// The customers waiting where n are in the system: those the servers do not hold. A server
// is idle only where nobody waits (an arrival takes an idle server, a departure the queue's
// head), so the queue's length is n − min(n, c), not kept an event (the record holds it
// for the CPU).
fn waiting(n: u32) -> u32 { return max(n, C) - C; }

// Σ (t − a) over the n customers in the system at the replication's clock (xy) and over
// those waiting (zw), in ticks: a busy server's customer (its departure is not `never`)
// arrived at `who`, the ring's `waiting(n)` places from `qhead` hold the waiting ones'
// arrivals. With the time in each state this gives the sojourn and waiting sums without a
// sum an event (`load_rep`, `store_rep`).
fn ages(s: ptr<function, Rep>, dep: ptr<function, Servers>, who: ptr<function, Servers>, ring: ptr<function, Waiting>) -> vec4<u32> {
    let qlen = waiting((*s).n);
    let now = t_to((*s).base, (*s).t);
    var waiting = vec2<u32>(0u);
    for (var j = 0u; j < RING; j++) {
        let held = (j + RING - (*s).qhead) % RING < qlen;
        waiting = select(waiting, add64(waiting, sub64(now, t_to_past((*s).base, (*ring)[j]))), held);
    }
    var all_in = waiting;
    for (var i = 0u; i < C; i++) {
        all_in = select(all_in, add64(all_in, sub64(now, t_to_past((*s).base, (*who)[i]))), !t_is_never((*dep)[i]));
    }
    return vec4<u32>(all_in, waiting);
}

// Σ_j (j − min(j, past)) · st_j modulo 2⁶⁴: ∫n dt for past = 0, ∫(waiting customers) dt for
// past = C, over the time the state times cover.
fn weighted(st: array<vec2<u32>, K1>, past: u32) -> vec2<u32> {
    var sum = vec2<u32>(0u);
    for (var j = 0u; j < K1; j++) {
        sum = add64(sum, mul64(st[j], vec2<u32>(j - min(j, past), 0u)));
    }
    return sum;
}

// Replication record `r` into `s`, at place `slot`; `real`: a replication of this run
// (else it runs no event).
fn load_rep(s: ptr<function, Rep>, st: ptr<function, StateTimes>, st_phase: ptr<function, PhaseTimes>, dep: ptr<function, Servers>, who: ptr<function, Servers>, ring: ptr<function, Waiting>, r: u32, slot: u32, real: bool) {
    (*s).r = r;
    (*s).slot = slot;
    (*s).runs = real;
    (*s).in_phase = real;
    let t_then = get64(r, 0u);
    (*s).base = t_base(t_then);
    (*s).t = t_from((*s).base, t_then);
    (*s).next_arr = t_from((*s).base, get64(r, 2u));
    (*s).limit = t_limit((*s).base, P.limit);
    (*s).n = rep[4u * P.reps + r];
    (*s).qhead = rep[5u * P.reps + r];
    (*s).gaps = get64(r, 8u);
    (*s).services = get64(r, 10u);
    (*s).deps = get64(r, 12u);
    (*s).events = get64(r, 14u);
    (*s).t_start = get64(r, T_START);
    (*s).arrivals = get64(r, ARRIVALS);
    (*s).blocked = get64(r, BLOCKED);
    (*s).departures = get64(r, DEPARTURES);
    (*s).starts = get64(r, STARTS);
    for (var j = 0u; j < K1; j++) {
        (*st)[j] = get64(r, P.state_off + 2u * j);
        (*st_phase)[j] = TIME_ZERO;
        if K1 <= STATES_IN_WORKGROUP && real { st_shared[j * SLOTS + slot] = TIME_ZERO; }
    }
    for (var i = 0u; i < C; i++) {
        (*dep)[i] = t_from((*s).base, get64(r, P.server_off + 4u * i));
        (*who)[i] = t_from_past((*s).base, get64(r, P.server_off + 4u * i + 2u));
    }
    for (var j = 0u; j < RING; j++) { (*ring)[j] = t_from_past((*s).base, get64(r, P.queue_off + 2u * j)); }
    (*s).gaps_here = 0u;
    (*s).services_here = 0u;
    (*s).deps_here = 0u;
    (*s).gaps_tallied_from = 0u;
    (*s).deps_tallied_from = 0u;
    (*s).services_tallied_from = 0u;
    (*s).n_tallied_from = (*s).n;
    let left = sub64(P.customers, (*s).deps);
    (*s).deps_left = select(select(left.x, 0xffffffffu, left.y != 0u), 0u, !lt64((*s).deps, P.customers));
    let warmup_left = sub64(P.warmup, (*s).deps);
    (*s).warm_at = select(0u, warmup_left.x, warmup_left.y == 0u);
    (*s).done_here = 0u;
    if PRODUCERS == 0u {
        (*s).gap_draws = draws_from(P.first + r, 0u, (*s).gaps);
        (*s).service_draws = draws_from(P.first + r, 1u, (*s).services);
    }
    // The books: the sums of sojourn and waiting times are not kept an event (removing them
    // saved 7% of an event at 7,168 replications on the H100; found this way instead, 2.5%
    // at 57,344, nothing measurable at 7,168) but from the time in each state. Over
    // the time from t0 to t, Σ (departure − arrival) over the departures is ∫n dt plus the
    // ages at t0 of those then in the system less the ages at t of those in it at t (each
    // customer's stay, cut to [t0, t], counted once); the same holds for the waits, the
    // customers starting service from the queue, with ∫(n − c)⁺ dt and the waiting ones'
    // ages. Exact in integers, so modulo 2⁶⁴ the CPU's sums bit for bit. Here the parts
    // known at t0; at the warm-up's end (sums and state times back to zero) again.
    let ages_then = ages(s, dep, who, ring);
    (*s).sojourn_base = add64(sub64(get64(r, SOJOURN), weighted(*st, 0u)), ages_then.xy);
    (*s).wait_base = add64(sub64(get64(r, WAIT), weighted(*st, C)), ages_then.zw);
}

// A phase begins: its events stop at the dispatch's cap, at the departure that ends the
// warm-up (where it is ahead) and at the last: one test of the departures an event, and
// the loop's count, where there were three tests (the cap and the warm-up's end tested
// apart).
fn phase_begin(s: ptr<function, Rep>) {
    (*s).in_phase = (*s).runs;
    (*s).ran = 0u;
    (*s).todo = select(0u, min(PHASE, P.max_events - (*s).done_here), (*s).runs);
    (*s).deps_from = (*s).deps_here;
    (*s).stop_at = select((*s).deps_left, min((*s).deps_left, (*s).warm_at), (*s).warm_at > (*s).deps_here);
}

// Whether the phase has another event to run.
fn going(s: ptr<function, Rep>) -> bool {
    return (*s).ran < (*s).todo && (*s).deps_here != (*s).stop_at;
}

// The replication's next event, if it comes before the budget's time limit (else the
// replication stops: TIME_LIMITED, an override, is false where the limit is `never`, and
// then no event is tested against it — 5% of an event at 7,168 replications on the H100).
fn event(s: ptr<function, Rep>, st_phase: ptr<function, PhaseTimes>, dep: ptr<function, Servers>, who: ptr<function, Servers>, ring: ptr<function, Waiting>) {
    if PRODUCERS == 0u {
        // a warp's threads compute their blocks together, at the same events (the gaps'
        // at events ≡ 0 mod 4, the services' at ≡ 2), not whenever one of them runs out
        // (which, over 32 threads, is nearly every event)
        switch ((*s).done_here + (*s).ran) & 3u {
            case 0u: { (*s).gap_draws = refill((*s).gap_draws, P.first + (*s).r, 0u, (*s).gaps.x + (*s).gaps_here); }
            case 2u: { (*s).service_draws = refill((*s).service_draws, P.first + (*s).r, 1u, (*s).services.x + (*s).services_here); }
            default: {}
        }
    }
    // the earliest departure (the lowest-numbered server of equal ones), by selects: no
    // branch a server (1–3% at 7,168 replications on the H100)
    var server = 0u;
    var first_dep = (*dep)[0];
    for (var i = 1u; i < C; i++) {
        let earlier = t_lt((*dep)[i], first_dep);
        first_dep = select(first_dep, (*dep)[i], earlier);
        server = select(server, i, earlier);
    }
    let departs = !t_lt((*s).next_arr, first_dep);
    let te = select((*s).next_arr, first_dep, departs);
    // the next service time: a departure that frees a server to the queue's head and an
    // arrival that finds one idle both draw this one, so a warp whose replications
    // diverge computes it once, not once in each branch (−13% at 7,168 replications)
    let sv = ticks((*s).slot, 1u, (*s).service_draws, (*s).services.x + (*s).services_here, P.scale);
    if TIME_LIMITED && !t_lt(te, (*s).limit) {
        (*s).runs = false;
        (*s).todo = 0u;
        return;
    }
    let dt = t_sub(te, (*s).t);
    let n = (*s).n;
    // the time in state n
    if K1 <= STATES_IN_WORKGROUP {
        let at = n * SLOTS + (*s).slot;
        st_shared[at] = t_add(st_shared[at], dt);
    } else {
        (*st_phase)[n] = t_add((*st_phase)[n], dt);
    }
    let t = te;
    (*s).t = t;
    // both kinds of event as selects, no branch: a warp whose replications diverge ran
    // one branch after the other; here the two paths' instructions may interleave
    // (0.102 → 0.095 s at 7,168 replications on the H100)
    let arrives = !departs;
    let admitted = arrives && n != K;
    let queued = n > C; // waiting(n) > 0
    let from_queue = departs && queued;
    var free = C;
    for (var i = C; i > 0u; i--) {
        free = select(free, i - 1u, t_is_never((*dep)[i - 1u]));
    }
    let to_server = admitted && free < C;
    let to_queue = admitted && free == C;
    let qhead = (*s).qhead;
    // the queue's head; a short ring by selects over its slots, so that it stays in
    // registers (0.095 → 0.089 s at 7,168 replications with the write below, −4% at
    // 57,344), a long one by its index: selects would cost two per slot an event
    var a: Time;
    if RING <= SLOTS_IN_REGISTERS {
        a = (*ring)[0];
        for (var j = 1u; j < RING; j++) { a = select(a, (*ring)[j], j == qhead); }
    } else {
        a = (*ring)[qhead];
    }
    // the server whose departure and customer change (C: none), and to what; a server
    // left idle keeps its last customer's arrival until the record is stored (where it is
    // zero, as on the CPU)
    let changed = select(select(C, free, admitted), server, departs);
    let new_dep = select(t_add(t, sv), t_never(), departs && !queued);
    let new_who = select(t, a, departs);
    let who_changed = select(changed, C, departs && !queued);
    let slot = (qhead + n - C) % RING; // where n ≥ c: read only then
    if RING <= SLOTS_IN_REGISTERS {
        for (var j = 0u; j < RING; j++) { (*ring)[j] = select((*ring)[j], t, to_queue && j == slot); }
    } else if to_queue {
        (*ring)[slot] = t;
    }
    (*s).n = n + u32(admitted) - u32(departs);
    (*s).qhead = select(qhead, (qhead + 1u) % RING, from_queue);
    (*s).deps_here += u32(departs);
    (*s).services_here += u32(from_queue || to_server);
    let gap = ticks((*s).slot, 0u, (*s).gap_draws, (*s).gaps.x + (*s).gaps_here, P.arr_scale);
    (*s).next_arr = select((*s).next_arr, t_add(t, gap), arrives);
    (*s).gaps_here += u32(arrives);
    // one loop of writes over the servers for both branches: a warp whose replications
    // diverge runs it once, not a loop in each branch (with the books at the end, −12% at
    // 7,168 replications and −18% at 57,344)
    for (var i = 0u; i < C; i++) {
        (*dep)[i] = select((*dep)[i], new_dep, i == changed);
        (*who)[i] = select((*who)[i], new_who, i == who_changed);
    }
    (*s).ran += 1u;
}

// The phase's end, for a replication that ran in it: its time in each state into the
// 64-bit sums, the times' base to the clock (with one-word times; a word pair's base stays
// 0), the tally's start where the warm-up ended, and whether it runs on. Returns 1 where
// it stopped in this phase (for the workgroup's count of those running), else 0.
fn phase_end(s: ptr<function, Rep>, st: ptr<function, StateTimes>, st_phase: ptr<function, PhaseTimes>, dep: ptr<function, Servers>, who: ptr<function, Servers>, ring: ptr<function, Waiting>) -> u32 {
    if !(*s).in_phase { return 0u; }
    (*s).done_here += (*s).ran;
    for (var j = 0u; j < K1; j++) {
        if K1 <= STATES_IN_WORKGROUP {
            let at = j * SLOTS + (*s).slot;
            (*st)[j] = add64((*st)[j], t_wide(st_shared[at]));
            st_shared[at] = TIME_ZERO;
        } else {
            (*st)[j] = add64((*st)[j], t_wide((*st_phase)[j]));
            (*st_phase)[j] = TIME_ZERO;
        }
    }
    let by = t_shift((*s).t);
    (*s).base = add64((*s).base, t_wide(by));
    (*s).t = t_rebase((*s).t, by);
    (*s).next_arr = t_rebase((*s).next_arr, by);
    for (var i = 0u; i < C; i++) {
        (*dep)[i] = t_rebase((*dep)[i], by);
        (*who)[i] = t_rebase_past((*who)[i], by);
    }
    for (var j = 0u; j < RING; j++) { (*ring)[j] = t_rebase_past((*ring)[j], by); }
    (*s).limit = t_limit((*s).base, P.limit);
    if (*s).deps_from < (*s).warm_at && (*s).deps_here == (*s).warm_at {
        // the warm-up ended at the last event: the tally starts again from here. Out of
        // the event loop, which stops for it (the rest of the phase's events go to the
        // next phase): a branch in every event, never taken but once, cost 7% at 7,168
        // replications on the H100
        (*s).t_start = t_to((*s).base, (*s).t);
        (*s).arrivals = vec2<u32>(0u);
        (*s).blocked = vec2<u32>(0u);
        (*s).departures = vec2<u32>(0u);
        (*s).n_tallied_from = (*s).n;
        (*s).gaps_tallied_from = (*s).gaps_here;
        (*s).deps_tallied_from = (*s).deps_here;
        (*s).services_tallied_from = (*s).services_here;
        (*s).starts = vec2<u32>(0u);
        for (var j = 0u; j < K1; j++) { (*st)[j] = vec2<u32>(0u); }
        let ages_now = ages(s, dep, who, ring);
        (*s).sojourn_base = ages_now.xy;
        (*s).wait_base = ages_now.zw;
    }
    (*s).runs = (*s).runs && (*s).deps_here < (*s).deps_left;
    if (*s).runs && (*s).done_here >= P.max_events {
        // stopped by the dispatch's cap with events to run: another dispatch is due
        atomicAdd(&status[0], 1u);
        (*s).runs = false;
    }
    return u32(!(*s).runs);
}

// The replication back into its record.
fn store_rep(s: ptr<function, Rep>, st: ptr<function, StateTimes>, dep: ptr<function, Servers>, who: ptr<function, Servers>, ring: ptr<function, Waiting>) {
    let r = (*s).r;
    let gaps_here = (*s).gaps_here;
    let deps_here = (*s).deps_here;
    let services_here = (*s).services_here;
    let arrivals = add64((*s).arrivals, vec2<u32>(gaps_here - (*s).gaps_tallied_from, 0u));
    let admitted = (*s).n - (*s).n_tallied_from + (deps_here - (*s).deps_tallied_from);
    let blocked = add64((*s).blocked, vec2<u32>(gaps_here - (*s).gaps_tallied_from - admitted, 0u));
    let departures = add64((*s).departures, vec2<u32>(deps_here - (*s).deps_tallied_from, 0u));
    let starts = add64((*s).starts, vec2<u32>(services_here - (*s).services_tallied_from, 0u));
    put64(r, 0u, t_to((*s).base, (*s).t));
    put64(r, 2u, t_to((*s).base, (*s).next_arr));
    rep[4u * P.reps + r] = (*s).n;
    rep[5u * P.reps + r] = (*s).qhead;
    rep[6u * P.reps + r] = waiting((*s).n);
    put64(r, 8u, add64((*s).gaps, vec2<u32>(gaps_here, 0u)));
    put64(r, 10u, add64((*s).services, vec2<u32>(services_here, 0u)));
    put64(r, 12u, add64((*s).deps, vec2<u32>(deps_here, 0u)));
    put64(r, 14u, add64((*s).events, vec2<u32>((*s).done_here, 0u)));
    put64(r, T_START, (*s).t_start);
    // ∫n dt and ∫min(n, c) dt start at zero with the time in each state (st) and grow
    // with it, so they are Σ_j j·st_j and Σ_j min(j, c)·st_j modulo 2⁶⁴ at any moment, the
    // CPU's per-event sums exactly: computed here, not two 64-bit products an event (every
    // phase that ran has added its states' times to st)
    let area = weighted(*st, 0u);
    let queue_area = weighted(*st, C);
    put64(r, AREA, area);
    put64(r, BUSY, sub64(area, queue_area));
    let ages_now = ages(s, dep, who, ring);
    put64(r, SOJOURN, sub64(add64((*s).sojourn_base, area), ages_now.xy));
    put64(r, WAIT, sub64(add64((*s).wait_base, queue_area), ages_now.zw));
    put64(r, ARRIVALS, arrivals);
    put64(r, BLOCKED, blocked);
    put64(r, DEPARTURES, departures);
    put64(r, STARTS, starts);
    for (var j = 0u; j < K1; j++) { put64(r, P.state_off + 2u * j, (*st)[j]); }
    for (var i = 0u; i < C; i++) {
        let idle = t_is_never((*dep)[i]);
        put64(r, P.server_off + 4u * i, t_to((*s).base, (*dep)[i]));
        // an idle server has no customer: its arrival is stored as zero (as on the CPU)
        put64(r, P.server_off + 4u * i + 2u, select(t_to_past((*s).base, (*who)[i]), vec2<u32>(0u), idle));
    }
    for (var j = 0u; j < RING; j++) { put64(r, P.queue_off + 2u * j, t_to_past((*s).base, (*ring)[j])); }
}
