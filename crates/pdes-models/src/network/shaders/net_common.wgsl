// net_common.wgsl — bindings, records, random streams and the two event handlers every
// pass of the network's GPU engine shares (after u64.wgsl and the Philox; before
// stepped.wgsl, whose names it declares). Twin of crates/pdes-models/src/network/state.rs
// (NetState::arrive, depart, create), routes.rs (alias tables, Philox words) and
// service.rs (ServiceTicks::sample), bit for bit.
//
// The scan's "facility" is a station: dep[s] is the station's next event — the earliest
// departure of its servers or its source's next arrival — so the shared scan lists the
// stations with an event within the step's bound.

const PHASE_FULL: u32 = 4u; // the step's external arrivals need more token slots than the pool has

struct Params {
    k: u32, n_wg: u32, rule: u32, log_len: u32,
    seed_lo: u32, seed_hi: u32, servers: u32, sources: u32,
    cold_base: u32,  // in seg_count (a multiple of 4): 4 vec4 per station (CO_* below)
    route_base: u32, // in ln_table: 3 words per alias column (outcome, alias, threshold)
    src_base: u32,   // in ln_table: 2 words per station (its source's index, its mean gap)
    st_base: u32,    // in seg_count (a multiple of 8): 8 vec4 per station (ST_* below)
    sv_base: u32,    // in seg_count: 2 vec4 per server but each station's first (that one is in its line)
    free_base: u32,  // in dep_list, last (the pool grows): the free stack
    scale: u32,      // unused here (philox.wgsl's service_ticks names it)
    pad0: u32,
    d: vec2<u32>, end_t: vec2<u32>,
    warmup: vec2<u32>, population: vec2<u32>,
    shift: vec2<u32>, // unused here (as scale)
    pad: vec2<u32>,
}

struct Ctl {
    // the head every stepped engine shares (StepCtl in crates/pdes-gpu/src/stepped.rs)
    t_min: vec2<u32>, bound: vec2<u32>,
    exec_at: vec2<u32>, limit: vec2<u32>,
    events: vec2<u32>, errors: vec2<u32>,
    step: u32, phase: u32, max_events: u32, pad0: u32,
    // the token pool
    pool_used: u32,  // slots ever handed out (the rest of the pool is untouched)
    pool_cap: u32,   // slots in the pool buffers
    pool_short: u32, // PHASE_FULL: how many slots the planned step lacked
    available: u32,  // slots free when the step was planned
}

// One token of the pool (Token in state.rs): 64 bytes, two 32-byte sectors, so that what
// its events read and write lies in one sector (a 48-byte record straddled two for half
// the slots); the second holds when it entered the network, read when it leaves.
struct Token {
    id: vec2<u32>,       // which token it is (keys its random words); NEVER when the slot is free
    arrived: vec2<u32>,  // when it arrived at its station (set by its sender for the sort)
    visits: u32,         // services completed
    next: u32,           // next token in the same queue
    link: u32,           // next token announced to the same station this step
    sender: u32,         // the server that sent it this step
    entered: vec2<u32>,  // when it entered the network
    pad0: vec2<u32>, pad1: vec4<u32>,
}

// A station's record is 8 vec4 (128 bytes: one line of the L2 cache, four 32-byte
// sectors), everything an event at the station reads: its queue and times (the arrivals'
// sector), the departures' sums, its constants and its first server. A departure or an
// arrival at a single-server station thus reads one line for the station instead of
// three (record, constants, server), and the server's place needs no constant first.
// What changes rarely is in its cold record (CO_*: a source's count, exits' sums,
// causality errors). What the twin's StationState holds besides — the queue's length and
// Σ max(arrival, warm-up) of the tokens present — follows from the queue and the tokens,
// and is counted when the state is read back (GpuNetwork::download_state). The
// completions' count is 64 bits: its low word beside the queue, its high word (carried
// when the low one wraps) in the cold record.
const ST_QUEUE: u32 = 0u;   // (head, tail, completions' low word, present)
const ST_TIMES: u32 = 1u;   // (last arrival, the source's next arrival)
const ST_SUMS: u32 = 2u;    // (busy ticks, Σ sojourn, wrapping)
const ST_AREA: u32 = 3u;    // Σ of the finished visits' time present after the warm-up (128 bits)
const ST_CONST: u32 = 4u;   // two vec4: the constants (S_* below)
const ST_SERVER: u32 = 6u;  // two vec4: the first server (sv_at)
const ST_WORDS4: u32 = 8u;
const CO_SOURCE: u32 = 0u;  // (the source's arrivals so far, the step of the latest causality error, completions' high word)
const CO_STAY: u32 = 1u;    // Σ (exit − entry) of the exits measured (128 bits)
const CO_EXITS: u32 = 2u;   // (exits, exits measured)
const CO_ERRORS: u32 = 3u;  // (causality errors, -)
const CO_WORDS4: u32 = 4u;

// The part of a station's record a thread keeps while it works on the station: its first
// sector. The sums are read and written where an event changes them, so that no register
// holds them across the event's random draws (the passes were limited by registers:
// fewer threads in flight).
struct Station {
    head: u32, tail: u32, done: u32, present: u32,
    last_arrival: vec2<u32>, src_next: vec2<u32>,
}

fn load_station(s: u32) -> Station {
    var st: Station;
    let q = seg_count[st_at(s, ST_QUEUE)];
    let t = seg_count[st_at(s, ST_TIMES)];
    st.head = q.x; st.tail = q.y; st.done = q.z; st.present = q.w;
    st.last_arrival = t.xy; st.src_next = t.zw;
    return st;
}
fn store_queue(s: u32, st: Station) {
    seg_count[st_at(s, ST_QUEUE)] = vec4<u32>(st.head, st.tail, st.done, st.present);
}
fn store_station(s: u32, st: Station) {
    store_queue(s, st);
    seg_count[st_at(s, ST_TIMES)] = vec4<u32>(st.last_arrival, st.src_next);
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> ctl: array<Ctl, 1>;
@group(0) @binding(2) var<storage, read_write> seg_count: array<vec4<u32>>; // per workgroup (listed, departures, -, -); then the stations; then the servers
@group(0) @binding(3) var<storage, read_write> tok: array<Token>;
@group(0) @binding(4) var<storage, read_write> dep: array<vec2<u32>>;     // each station's next event
@group(0) @binding(5) var<storage, read_write> dep_list: array<u32>;      // per segment: its stations with events; then the free stack
@group(0) @binding(6) var<storage, read_write> heads: array<atomic<u32>>; // [s < K]: first token announced to s; [K] free-stack top; [K+1] slots the step needs; [K+2] slots taken
@group(0) @binding(7) var<storage, read_write> scan_min: array<vec2<u32>>;
@group(0) @binding(8) var<storage, read_write> part_min: array<vec4<u32>>; // per arrive workgroup: (minimum next event, causality errors, external arrivals)
@group(0) @binding(9) var<storage, read> ln_table: array<u32>;            // the ln table; then the alias columns; the sources
@group(0) @binding(10) var<storage, read_write> steplog: array<LogEntry>;

// A station's constants (8 words, the sector ST_CONST of its record).
const S_FIRST: u32 = 0u;       // first server
const S_SERVERS: u32 = 1u;     // servers
const S_ROUTE_FIRST: u32 = 2u; // first alias column
const S_ROUTES: u32 = 3u;      // alias columns
const S_LAW: u32 = 4u;         // ServiceTicks::kind | phases << 8 | 1 << 31 when it has a source
const S_SCALE: u32 = 5u;
const S_BASE: u32 = 6u;        // two words

const KIND_DETERMINISTIC: u32 = 1u;
const KIND_UNIFORM: u32 = 2u;
const HAS_SOURCE: u32 = 0x80000000u;
const EXIT: u32 = 0xffffffffu;
const ARRIVAL_STREAM: u32 = 0x5E7A11A5u;

fn stat(s: u32, i: u32) -> u32 { return seg_count[st_at(s, ST_CONST + i / 4u)][i % 4u]; }
fn has_source(s: u32) -> bool { return (stat(s, S_LAW) & HAS_SOURCE) != 0u; }
fn source_index(s: u32) -> u32 { return ln_table[P.src_base + 2u * s]; }
fn source_gap(s: u32) -> u32 { return ln_table[P.src_base + 2u * s + 1u]; }

// A server: (departure, since), then (token, due mark, destination) — one 32-byte sector:
// station s's first server `a` in the station's record, another server k at
// sv_base + 2 (k − s − 1): the servers before it but the first s + 1 stations' first ones.
// The destination of the token in service is drawn when its service starts (from the
// visit's words, which the service time needs then anyway): its departure announces it
// without waiting for the token's record, the draw and the route's column.
fn sv_at(s: u32, a: u32, k: u32) -> u32 {
    if k == a { return st_at(s, ST_SERVER); }
    return P.sv_base + 2u * (k - s - 1u);
}
fn srv_dep(s: u32, a: u32, k: u32) -> vec2<u32> { return seg_count[sv_at(s, a, k)].xy; }
fn srv_since(s: u32, a: u32, k: u32) -> vec2<u32> { return seg_count[sv_at(s, a, k)].zw; }
fn srv_token(s: u32, a: u32, k: u32) -> u32 { return seg_count[sv_at(s, a, k) + 1u].x; }
// (the due mark is NEVER outside a station's departures, and cleared before its server
// departs: the whole second half is written)
fn set_server(s: u32, a: u32, k: u32, departure: vec2<u32>, since: vec2<u32>, token: u32, to: u32) {
    let at = sv_at(s, a, k);
    seg_count[at] = vec4<u32>(departure, since);
    seg_count[at + 1u] = vec4<u32>(token, never(), to);
}
fn srv_due(s: u32, a: u32, k: u32) -> vec2<u32> { return seg_count[sv_at(s, a, k) + 1u].yz; }
fn set_due(s: u32, a: u32, k: u32, t: vec2<u32>) {
    let at = sv_at(s, a, k) + 1u;
    seg_count[at].y = t.x;
    seg_count[at].z = t.y;
}

fn free_top() -> u32 { return P.k; }
fn needed_at() -> u32 { return P.k + 1u; }
fn taken_at() -> u32 { return P.k + 2u; }

fn st_at(s: u32, part: u32) -> u32 { return P.st_base + ST_WORDS4 * s + part; }
fn co_at(s: u32, part: u32) -> u32 { return P.cold_base + CO_WORDS4 * s + part; }

// a + x, 128-bit accumulator and 64-bit value.
fn add128(a: vec4<u32>, x: vec2<u32>) -> vec4<u32> {
    let lo = add64(a.xy, x);
    let carry = select(0u, 1u, lt64(lo, x));
    return vec4<u32>(lo, add64(a.zw, vec2<u32>(carry, 0u)));
}
// floor(x · scale / 2^27) (scale_q27).
fn scale_q27(x: u32, scale: u32) -> vec2<u32> {
    let p = mul32x32(x, scale);
    return vec2<u32>((p.x >> 27u) | (p.y << 5u), p.y >> 27u);
}

// The counter and key of a visit (visit_counter) and its four words (visit_words).
fn visit_counter(id: vec2<u32>, visit: u32) -> vec4<u32> { return vec4<u32>(visit, id.y, P.seed_hi, 0u); }
fn visit_key(id: vec2<u32>) -> vec2<u32> { return vec2<u32>(id.x, P.seed_lo); }
fn visit_words(id: vec2<u32>, visit: u32) -> vec4<u32> {
    return philox4x32_10(visit_counter(id, visit), visit_key(id));
}

// The words of arrival k of source i (arrival_words), and its gap for a mean of `mean`
// ticks (gap_of).
fn arrival_words(i: u32, k: vec2<u32>) -> vec4<u32> {
    return philox4x32_10(vec4<u32>(k.x, k.y, P.seed_hi, 0x80000000u | i), vec2<u32>(ARRIVAL_STREAM, P.seed_lo));
}
fn gap_of(i: u32, mean: u32, k: vec2<u32>) -> vec2<u32> {
    return scale_q27(neg_ln_q27(arrival_words(i, k).x), mean);
}

// Station s's service time for a visit whose words are `words` (ServiceTicks::sample).
fn service_time(s: u32, words: vec4<u32>, id: vec2<u32>, visit: u32) -> vec2<u32> {
    let law = stat(s, S_LAW);
    let kind = law & 0xffu;
    let base = vec2<u32>(stat(s, S_BASE), stat(s, S_BASE + 1u));
    let scale = stat(s, S_SCALE);
    if kind == KIND_DETERMINISTIC { return base; }
    if kind == KIND_UNIFORM { return add64(base, vec2<u32>(mul32x32(words.z, scale + 1u).y, 0u)); }
    var total = base;
    var more = vec4<u32>(0u, 0u, 0u, 0u);
    let c = visit_counter(id, visit);
    let phases = (law >> 8u) & 0xffu;
    for (var ph = 0u; ph < phases; ph++) {
        var w = words.z;
        if ph == 1u {
            w = words.w;
        } else if ph >= 2u {
            let j = (ph - 2u) % 4u;
            if j == 0u { more = philox4x32_10(vec4<u32>(c.x, c.y, c.z, 1u + (ph - 2u) / 4u), visit_key(id)); }
            w = more[j];
        }
        total = add64(total, scale_q27(neg_ln_q27(w), scale));
    }
    return total;
}

// Where a token goes after service at s, from a visit's words 0 and 1 (RouteTables::draw).
fn route(s: u32, words: vec4<u32>) -> u32 {
    let c = stat(s, S_ROUTE_FIRST) + mul32x32(words.x, stat(s, S_ROUTES)).y;
    let at = P.route_base + 3u * c;
    let outcome = ln_table[at];
    let other = ln_table[at + 1u];
    if words.y < ln_table[at + 2u] || other == outcome { return outcome; }
    return other;
}

// Puts `token` into service at server k of s (whose first server is a) at t
// (NetState::start), with the destination its departure will take (NetState::depart's
// draw, from the same visit's words).
// `id` and `visits` are the token's (its caller read them beside its other loads, so that
// they are in flight together). Returns the service's end.
fn start_service(s: u32, a: u32, k: u32, token: u32, id: vec2<u32>, visits: u32, t: vec2<u32>) -> vec2<u32> {
    let words = visit_words(id, visits);
    let end = add64(t, service_time(s, words, id, visits));
    set_server(s, a, k, end, t, token, route(s, words));
    return end;
}


// `token` (its `id` and `visits`) arrives at s at t (NetState::arrive): the server free the
// longest takes it at the later of t and that time, or it joins the queue. Counts a
// causality error.
fn arrive_token(s: u32, st: ptr<function, Station>, token: u32, id: vec2<u32>, visits: u32, t: vec2<u32>, errors: ptr<function, u32>) {
    tok[token].arrived = t;
    if lt64(t, (*st).last_arrival) {
        let e = co_at(s, CO_ERRORS);
        seg_count[e] = vec4<u32>(add64(seg_count[e].xy, vec2<u32>(1u, 0u)), 0u, 0u);
        seg_count[co_at(s, CO_SOURCE)].z = ctl[0].step; // the latest error's step
        *errors += 1u;
    } else {
        (*st).last_arrival = t;
    }
    (*st).present += 1u;
    let a = stat(s, S_FIRST);
    let b = a + stat(s, S_SERVERS);
    var idle = NONE;
    var idle_since = never();
    for (var k = a; k < b; k++) {
        if srv_token(s, a, k) == NONE {
            let since = srv_since(s, a, k);
            if idle == NONE || lt64(since, idle_since) {
                idle = k;
                idle_since = since;
            }
        }
    }
    if idle != NONE {
        _ = start_service(s, a, idle, token, id, visits, max64(t, idle_since));
        return;
    }
    if (*st).tail == NONE {
        (*st).head = token;
    } else {
        tok[(*st).tail].next = token;
    }
    (*st).tail = token;
}

// The earliest event of s: its servers' departures and its source's next arrival.
fn station_next(s: u32, st: Station) -> vec2<u32> {
    var m = select(never(), st.src_next, has_source(s));
    let a = stat(s, S_FIRST);
    let b = a + stat(s, S_SERVERS);
    for (var k = a; k < b; k++) { m = min64(m, srv_dep(s, a, k)); }
    return m;
}

// One thread's view of the step: it may run (the phase is PLANNED and the pool holds the
// step's arrivals). Every thread calls it; the answer is uniform.
var<workgroup> sh_go: u32;
fn step_runs(lid: u32) -> bool {
    if lid == 0u {
        let ok = ctl[0].phase == PHASE_PLANNED && atomicLoad(&heads[needed_at()]) <= ctl[0].available;
        sh_go = select(0u, 1u, ok);
    }
    return workgroupUniformLoad(&sh_go) == 1u;
}

// The network has one replica; the step's start needs nothing of its own.
fn segment_replica(wg: u32) -> u32 { return 0u; }
fn step_start(lid: u32) {}
