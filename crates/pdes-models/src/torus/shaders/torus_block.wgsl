// torus_block.wgsl — the window algorithm with temporal blocking (after u64.wgsl and
// philox.wgsl; `const R`, `const BWG` and `const MAX_H` are prepended by the host: the
// region's width in facilities, the threads per workgroup, the most windows per block).
// Twin: Stepped with windows anchored at base + k·d (crates/pdes-models/src/torus/blocked.rs, cpu side),
// and, for the result, `sequential`.
//
// Every service lasts at least d, so a token moves at most one facility per window
// [base + k·d, base + (k+1)·d), and the state of a facility after window k depends only on
// its own and its four neighbours' states before it. A workgroup therefore loads an R × R
// region (its TI × TI tile plus a halo of H facilities on every side) into shared memory and
// runs H windows on it with no global synchronisation: after k windows the facilities at
// least k from the region's edge are exact, so after H the tile is. The tile's changes are
// staged, not written: other workgroups are still reading this block's starting state
// (their halos overlap this tile), so `commit`, the next dispatch, applies them.
//
// Queues: a facility's queue at block start is a list through the global token records,
// which no one writes during `block`; tokens that join a queue during the block are
// entries of the workgroup's own list area (`entry`, one per departure, at most H·R² per
// block), appended after the global part. Times inside the block are u32 offsets from the
// block's base (the host keeps H·d below 2^31 ticks); the two values that can predate the
// base are sentinels resolved from the global records at departure or at commit:
// START_OLD (service start / free-since unchanged) and ARR_FAC / ARR_TOK (the serving
// token's arrival time is in the facility record / in its token record).

struct Params {
    rows: u32, cols: u32, tiles_x: u32, tiles_y: u32,
    ti: u32, halo: u32, cap: u32, stage_cap: u32,
    seed_lo: u32, seed_hi: u32, scale: u32, lanes: u32,
    shift: vec2<u32>, d: vec2<u32>,
    warmup: vec2<u32>, pad: vec2<u32>,
}

// One block (a dynamic offset per dispatch): its base time, the end of its last window
// (the run's end or the caller's limit), its number of windows (≤ halo) and its place
// in the batch's event log.
struct Block {
    base: vec2<u32>, limit: vec2<u32>,
    windows: u32, log_block: u32, pad0: u32, pad1: u32,
}

@group(0) @binding(0) var<uniform> P: Params;
@group(0) @binding(1) var<storage, read_write> dep: array<vec2<u32>>;    // departure time, NEVER when idle
@group(0) @binding(2) var<storage, read_write> fac: array<vec4<u32>>;    // two per facility: struct Fac of common.wgsl
@group(0) @binding(3) var<storage, read_write> tok: array<vec4<u32>>;    // per token: (arrival u64, next, visits)
@group(0) @binding(4) var<storage, read_write> entry: array<vec4<u32>>;  // per tile, cap: (token, arrival − base, visits, next entry)
@group(0) @binding(5) var<storage, read_write> stage: array<vec4<u32>>;  // per tile, stage_cap × 3: a changed facility
@group(0) @binding(6) var<storage, read_write> stage_count: array<u32>;  // per tile
@group(0) @binding(7) var<storage, read_write> tile_acc: array<vec4<u32>>; // per tile, cumulative: (busy, sojourn), (completions, events)
@group(0) @binding(8) var<storage, read_write> blog: array<atomic<u32>>;  // per block of the batch, window and lane: interior events
@group(0) @binding(9) var<storage, read> ln_table: array<u32>;
@group(1) @binding(0) var<uniform> BK: Block;

const TOKEN_MASK: u32 = 0x3fffffffu;
const SLOTS: u32 = R * R;
const NIL: u32 = 0xffffu;            // no entry (16-bit list links)
const EMPTY: u32 = 0xffffffffu;      // no local list: head NIL | tail NIL << 16
const START_OLD: u32 = 0xffffffffu;  // service start / free-since as at block start (≤ base)
const ARR_FAC: u32 = 0xffffffffu;    // the serving token's arrival: the facility record's
const ARR_TOK: u32 = 0xfffffffeu;    // the serving token's arrival: its token record's

var<workgroup> sh_dep: array<vec2<u32>, SLOTS>;
var<workgroup> sh_start: array<u32, SLOTS>;
var<workgroup> sh_arr: array<u32, SLOTS>;
var<workgroup> sh_serv: array<u32, SLOTS>;   // token | route << 30, NONE when idle
var<workgroup> sh_vis: array<u32, SLOTS>;    // the serving token's visits
var<workgroup> sh_ghead: array<u32, SLOTS>;  // head of what is left of the global queue
var<workgroup> sh_lists: array<u32, SLOTS>;  // local queue: head entry | tail entry << 16
var<workgroup> sh_out: array<u32, SLOTS>;    // this window's departure: entry | dir << 16, or NONE
var<workgroup> sh_list: array<u32, SLOTS>;  // this phase's slots with an event
var<workgroup> sh_ndep: atomic<u32>;
var<workgroup> sh_nrecv: atomic<u32>;
var<workgroup> sh_alloc: atomic<u32>;
var<workgroup> sh_nstage: atomic<u32>;
var<workgroup> sh_wev: array<atomic<u32>, MAX_H>;
var<workgroup> sh_limbs: array<atomic<u32>, 8>;
var<workgroup> sh_compl: atomic<u32>;

fn tile_of(wid: vec3<u32>) -> u32 { return wid.y * P.tiles_x + wid.x; }

// The facility of region slot s of tile (tx, ty): rows and columns wrap around the torus.
fn slot_fac(tx: u32, ty: u32, s: u32) -> u32 {
    let r = (ty * P.ti + s / R + P.rows * P.halo - P.halo) % P.rows;
    let c = (tx * P.ti + s % R + P.cols * P.halo - P.halo) % P.cols;
    return r * P.cols + c;
}

// Whether slot s is in the tile proper (and on the torus: edge tiles may be partial).
fn interior(tx: u32, ty: u32, s: u32) -> bool {
    let ry = s / R;
    let rx = s % R;
    if ry < P.halo || rx < P.halo || ry >= P.halo + P.ti || rx >= P.halo + P.ti { return false; }
    return ty * P.ti + ry - P.halo < P.rows && tx * P.ti + rx - P.halo < P.cols;
}

// The slot that reaches s by moving in direction dir (0 up, 1 down, 2 left, 3 right), or
// NONE outside the region.
fn source_slot(s: u32, dir: u32) -> u32 {
    let ry = s / R;
    let rx = s % R;
    switch dir {
        case 0u: { if ry + 1u < R { return s + R; } }   // moving up: from below
        case 1u: { if ry > 0u { return s - R; } }        // moving down: from above
        case 2u: { if rx + 1u < R { return s + 1u; } }   // moving left: from the right
        default: { if rx > 0u { return s - 1u; } }       // moving right: from the left
    }
    return NONE;
}

fn at(base: vec2<u32>, rel: u32) -> vec2<u32> { return add64(base, vec2<u32>(rel, 0u)); }

fn words_of(token: u32, visits: u32) -> vec4<u32> {
    return seeded_token_words(vec2<u32>(P.seed_lo, P.seed_hi), token, visits);
}

// Puts `token` (its visits, its arrival as an offset or sentinel) into service at s at
// offset t_rel.
fn start_service(s: u32, token: u32, visits: u32, arr: u32, t_rel: u32) {
    let w = words_of(token, visits);
    sh_dep[s] = add64(at(BK.base, t_rel), service_ticks(w.x));
    sh_serv[s] = token | ((w.y >> 30u) << 30u);
    sh_vis[s] = visits;
    sh_arr[s] = arr;
    sh_start[s] = t_rel;
}

struct Arrival { time: u32, src: u32, e: u32 }

fn before(a: Arrival, b: Arrival) -> bool {
    return a.time < b.time || (a.time == b.time && a.src < b.src);
}

// Appends entry e to s's local queue.
fn enqueue(s: u32, ebase: u32, e: u32) {
    let l = sh_lists[s];
    if l == EMPTY {
        sh_lists[s] = e | (e << 16u);
    } else {
        entry[ebase + (l >> 16u)].w = e;
        sh_lists[s] = (l & 0xffffu) | (e << 16u);
    }
}

fn pull(tx: u32, ty: u32, s: u32, dir: u32, ebase: u32) -> Arrival {
    let src = source_slot(s, dir);
    if src != NONE {
        let o = sh_out[src];
        if o != NONE && (o >> 16u) == dir {
            let e = o & 0xffffu;
            return Arrival(entry[ebase + e].y, slot_fac(tx, ty, src), e);
        }
    }
    return Arrival(NONE, NONE, NONE);
}

@compute @workgroup_size(BWG)
fn block(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let tx = wid.x;
    let ty = wid.y;
    let tile = tile_of(wid);
    let ebase = tile * P.cap;
    for (var s = lid; s < SLOTS; s += BWG) {
        let f = slot_fac(tx, ty, s);
        sh_dep[s] = dep[f];
        let a = fac[2u * f];
        sh_serv[s] = a.z;
        sh_ghead[s] = a.w;
        sh_vis[s] = fac[2u * f + 1u].w;
        sh_start[s] = START_OLD;
        sh_arr[s] = ARR_FAC;
        sh_lists[s] = EMPTY;
        sh_out[s] = NONE;
    }
    if lid == 0u {
        atomicStore(&sh_alloc, 0u);
        atomicStore(&sh_ndep, 0u);
        atomicStore(&sh_nstage, 0u);
        atomicStore(&sh_compl, 0u);
        for (var i = 0u; i < 8u; i++) { atomicStore(&sh_limbs[i], 0u); }
        for (var i = 0u; i < MAX_H; i++) { atomicStore(&sh_wev[i], 0u); }
    }
    workgroupBarrier();
    var busy = vec2<u32>(0u, 0u);
    var soj = vec2<u32>(0u, 0u);
    var compl = 0u;
    for (var k = 0u; k < BK.windows; k++) {
        let w_hi = min64(add64(BK.base, mul64(P.d, vec2<u32>(k + 1u, 0u))), BK.limit);
        // Departures: every facility whose departure falls in the window (at most one each).
        // Compaction first (a few percent of the slots have an event, and a warp that
        // walked the slots would run the random stream for one lane in 32): the due slots
        // into a shared list, then one event per thread.
        if lid == 0u { atomicStore(&sh_nrecv, 0u); }
        for (var s = lid; s < SLOTS; s += BWG) {
            sh_out[s] = NONE; // read by the previous window's arrivals, before the barrier
            if lt64(sh_dep[s], w_hi) { sh_list[atomicAdd(&sh_ndep, 1u)] = s; }
        }
        workgroupBarrier();
        let n_dep = atomicLoad(&sh_ndep);
        var ev = 0u;
        for (var j = lid; j < n_dep; j += BWG) {
            let s = sh_list[j];
            let t = sh_dep[s];
            let t_rel = sub64(t, BK.base).x;
            let serv = sh_serv[s];
            let token = serv & TOKEN_MASK;
            if interior(tx, ty, s) {
                let f = slot_fac(tx, ty, s);
                let st = sh_start[s];
                let start = select(at(BK.base, st), fac[2u * f].xy, st == START_OLD);
                let counted_from = max64(start, P.warmup);
                if lt64(counted_from, t) { busy = add64(busy, sub64(t, counted_from)); }
                if !lt64(t, P.warmup) {
                    let ar = sh_arr[s];
                    var arrived = at(BK.base, ar);
                    if ar == ARR_FAC { arrived = fac[2u * f + 1u].yz; }
                    if ar == ARR_TOK { arrived = tok[token].xy; }
                    soj = add64(soj, sub64(t, arrived));
                    compl += 1u;
                }
                ev += 1u;
            }
            let e = atomicAdd(&sh_alloc, 1u);
            entry[ebase + e] = vec4<u32>(token, t_rel, sh_vis[s] + 1u, NIL);
            sh_out[s] = e | ((serv >> 30u) << 16u);
            // the next token: what is left of the global queue first, then the local one
            let g = sh_ghead[s];
            let l = sh_lists[s];
            var next = NONE;
            var visits = 0u;
            var arr = ARR_TOK;
            if g != NONE {
                let nt = tok[g];
                sh_ghead[s] = nt.z;
                next = g;
                visits = nt.w;
            } else if l != EMPTY {
                let en = entry[ebase + (l & 0xffffu)];
                sh_lists[s] = select((l & 0xffff0000u) | en.w, EMPTY, en.w == NIL);
                next = en.x;
                visits = en.z;
                arr = en.y;
            }
            if next != NONE {
                start_service(s, next, visits, arr, t_rel);
            } else {
                sh_serv[s] = NONE;
                sh_start[s] = t_rel; // free since
                sh_dep[s] = never();
            }
        }
        if ev > 0u { atomicAdd(&sh_wev[k], ev); }
        storageBarrier();
        workgroupBarrier();
        // Arrivals: the receivers into the list (compacted as above), then each pulls from
        // its four neighbours' departures and accepts them in the sequential order (time,
        // sending facility).
        if lid == 0u { atomicStore(&sh_ndep, 0u); }
        for (var s = lid; s < SLOTS; s += BWG) {
            for (var dir = 0u; dir < 4u; dir++) {
                let src = source_slot(s, dir);
                if src != NONE && sh_out[src] != NONE && (sh_out[src] >> 16u) == dir {
                    sh_list[atomicAdd(&sh_nrecv, 1u)] = s;
                    break;
                }
            }
        }
        workgroupBarrier();
        let n_recv = atomicLoad(&sh_nrecv);
        for (var j = lid; j < n_recv; j += BWG) {
            let s = sh_list[j];
            var a0 = pull(tx, ty, s, 0u, ebase);
            var a1 = pull(tx, ty, s, 1u, ebase);
            var a2 = pull(tx, ty, s, 2u, ebase);
            var a3 = pull(tx, ty, s, 3u, ebase);
            var x: Arrival;
            if before(a1, a0) { x = a0; a0 = a1; a1 = x; }
            if before(a3, a2) { x = a2; a2 = a3; a3 = x; }
            if before(a2, a0) { x = a0; a0 = a2; a2 = x; }
            if before(a3, a1) { x = a1; a1 = a3; a3 = x; }
            if before(a2, a1) { x = a1; a1 = a2; a2 = x; }
            // an idle server takes the first arrival (one call site of the random stream:
            // each inlined copy of Philox costs registers, and registers cost occupancy);
            // every later one queues
            if sh_serv[s] == NONE {
                let en = entry[ebase + a0.e];
                let st = sh_start[s];
                let start = select(max(a0.time, st), a0.time, st == START_OLD);
                start_service(s, en.x, en.z, a0.time, start);
            } else {
                enqueue(s, ebase, a0.e);
            }
            if a1.e != NONE { enqueue(s, ebase, a1.e); }
            if a2.e != NONE { enqueue(s, ebase, a2.e); }
            if a3.e != NONE { enqueue(s, ebase, a3.e); }
        }
        storageBarrier();
        workgroupBarrier();
    }
    // Stage the tile's changed facilities for `commit`; a facility changed iff it departed
    // or received (its start became an offset) or a token joined its queue.
    for (var s = lid; s < SLOTS; s += BWG) {
        if !interior(tx, ty, s) { continue; }
        if sh_start[s] == START_OLD && sh_lists[s] == EMPTY { continue; }
        let n = atomicAdd(&sh_nstage, 1u);
        let i = 3u * (tile * P.stage_cap + n);
        let dp = sh_dep[s];
        stage[i] = vec4<u32>(slot_fac(tx, ty, s), dp, sh_start[s]);
        stage[i + 1u] = vec4<u32>(sh_arr[s], sh_serv[s], sh_vis[s], sh_ghead[s]);
        stage[i + 2u] = vec4<u32>(sh_lists[s], 0u, 0u, 0u);
    }
    // The tile's sums, exactly: 16-bit limbs of 64-bit values never overflow a u32 sum of
    // 256 threads.
    atomicAdd(&sh_limbs[0], busy.x & 0xffffu);
    atomicAdd(&sh_limbs[1], busy.x >> 16u);
    atomicAdd(&sh_limbs[2], busy.y & 0xffffu);
    atomicAdd(&sh_limbs[3], busy.y >> 16u);
    atomicAdd(&sh_limbs[4], soj.x & 0xffffu);
    atomicAdd(&sh_limbs[5], soj.x >> 16u);
    atomicAdd(&sh_limbs[6], soj.y & 0xffffu);
    atomicAdd(&sh_limbs[7], soj.y >> 16u);
    atomicAdd(&sh_compl, compl);
    workgroupBarrier();
    if lid == 0u {
        stage_count[tile] = atomicLoad(&sh_nstage);
        var events = 0u;
        for (var k = 0u; k < BK.windows; k++) {
            let n = atomicLoad(&sh_wev[k]);
            events += n;
            if n > 0u {
                atomicAdd(&blog[((BK.log_block * MAX_H) + k) * P.lanes + tile % P.lanes], n);
            }
        }
        let b = limbs_sum(0u);
        let o = limbs_sum(4u);
        let acc = tile_acc[2u * tile];
        tile_acc[2u * tile] = vec4<u32>(add64(acc.xy, b), add64(acc.zw, o));
        let c = tile_acc[2u * tile + 1u];
        tile_acc[2u * tile + 1u] = vec4<u32>(
            add64(c.xy, vec2<u32>(atomicLoad(&sh_compl), 0u)),
            add64(c.zw, vec2<u32>(events, 0u)),
        );
    }
}

// The 64-bit value (mod 2^64, as the sums wrap on the CPU) of four limb sums from i.
fn limbs_sum(i: u32) -> vec2<u32> {
    let l0 = atomicLoad(&sh_limbs[i]);
    let l1 = atomicLoad(&sh_limbs[i + 1u]);
    let l2 = atomicLoad(&sh_limbs[i + 2u]);
    let l3 = atomicLoad(&sh_limbs[i + 3u]);
    var v = vec2<u32>(l0, 0u);
    v = add64(v, vec2<u32>(l1 << 16u, l1 >> 16u));
    v = add64(v, vec2<u32>(0u, l2));
    v = add64(v, vec2<u32>(0u, l3 << 16u));
    return v;
}

// Applies the staged changes of tile (one workgroup per tile, after every `block`): the
// facility record, its departure time, and the records of the tokens now at it that the
// block moved or relinked.
@compute @workgroup_size(BWG)
fn commit(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    let tile = tile_of(wid);
    let ebase = tile * P.cap;
    let n = stage_count[tile];
    for (var j = lid; j < n; j += BWG) {
        let i = 3u * (tile * P.stage_cap + j);
        let a = stage[i];
        let b = stage[i + 1u];
        let l = stage[i + 2u].x;
        let f = a.x;
        let old0 = fac[2u * f];
        let old1 = fac[2u * f + 1u];
        let serv = b.y;
        let token = serv & TOKEN_MASK;
        let start = select(at(BK.base, a.w), old0.xy, a.w == START_OLD);
        var arrived = at(BK.base, b.x);
        if b.x == ARR_FAC { arrived = old1.yz; }
        if b.x == ARR_TOK && serv != NONE { arrived = tok[token].xy; }
        let lh = l & 0xffffu;
        let lt = l >> 16u;
        let first_local = select(entry[ebase + lh].x, NONE, l == EMPTY);
        let last_local = select(entry[ebase + lt].x, NONE, l == EMPTY);
        var head = b.w;
        var tail = old1.x;
        if b.w == NONE {
            head = first_local;
            tail = last_local;
        } else if l != EMPTY {
            tok[old1.x].z = first_local; // the global queue's tail now leads to the local part
            tail = last_local;
        }
        var e = select(lh, NIL, l == EMPTY);
        while e != NIL {
            let en = entry[ebase + e];
            let next = select(entry[ebase + en.w].x, NONE, en.w == NIL);
            tok[en.x] = vec4<u32>(at(BK.base, en.y), next, en.z);
            e = en.w;
        }
        if serv != NONE && b.x != ARR_FAC {
            tok[token] = vec4<u32>(arrived, NONE, b.z);
        }
        fac[2u * f] = vec4<u32>(start, serv, head);
        fac[2u * f + 1u] = vec4<u32>(tail, arrived, b.z);
        dep[f] = a.yz;
    }
}
