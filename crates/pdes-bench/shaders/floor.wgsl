// floor.wgsl — what a step costs before it does any work: a dispatch that does nothing,
// and one that reads and writes a storage word the next dispatch reads (so the driver must
// order them, as it orders a step's dependent passes). `pdes-lab bench --suite floor`.

@group(0) @binding(0) var<storage, read_write> word: array<u32>;

@compute @workgroup_size(64)
fn empty() {}

@compute @workgroup_size(64)
fn dependent(@builtin(local_invocation_id) lid: vec3<u32>) {
    if lid.x == 0u { word[0] = word[0] + 1u; }
}

// The same as `dependent`, as a second pipeline: a chain alternating the two measures what
// switching pipelines between dependent dispatches costs (a torus step alternates two).
@compute @workgroup_size(64)
fn dependent_b(@builtin(local_invocation_id) lid: vec3<u32>) {
    if lid.x == 0u { word[0] = word[0] + 1u; }
}

// Memory floors (separate bind group layout): `big` is read, `sink` is written only if a
// sum hits a value it never takes, so the reads cannot be dropped.
@group(0) @binding(0) var<storage, read_write> big: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> sink: array<u32>;

const MAGIC: u32 = 0x9e3779b9u;

// Streams all of `big` once: thread i reads elements i, i + T, i + 2T, ... (T threads in
// all, so every warp's loads are contiguous).
@compute @workgroup_size(256)
fn stream(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = arrayLength(&big);
    let total = nwg.x * 256u;
    var acc = vec4<u32>(0u);
    for (var i = gid.x; i < n; i += total) {
        acc ^= big[i];
    }
    if acc.x == MAGIC && acc.y == MAGIC { sink[gid.x & 255u] = acc.z; }
}

// Reads GATHER random 16-byte words per thread, each from its own 32-byte sector (index
// from a hash of the thread and the read), as an event's record accesses do.
const GATHER: u32 = 4u;

fn hash(x: u32) -> u32 {
    var h = x * 0x9e3779b1u;
    h ^= h >> 15u;
    h *= 0x85ebca77u;
    h ^= h >> 13u;
    return h;
}

@compute @workgroup_size(256)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>) {
    let sectors = arrayLength(&big) / 2u;
    var acc = vec4<u32>(0u);
    for (var k = 0u; k < GATHER; k++) {
        let s = hash(gid.x * GATHER + k) % sectors;
        acc ^= big[2u * s];
    }
    if acc.x == MAGIC && acc.y == MAGIC { sink[gid.x & 255u] = acc.z; }
}

// The gather's reads in pairs: GATHER sectors per thread as GATHER / 2 random 64-byte
// blocks, both sectors of each. Against `gather`, whether two sectors in one 64-byte block
// cost one memory access or two (what putting two records of an event side by side saves).
@compute @workgroup_size(256)
fn gather_pairs(@builtin(global_invocation_id) gid: vec3<u32>) {
    let blocks = arrayLength(&big) / 4u;
    var acc = vec4<u32>(0u);
    for (var k = 0u; k < GATHER / 2u; k++) {
        let b = hash(gid.x * GATHER + k) % blocks;
        acc ^= big[4u * b] ^ big[4u * b + 2u];
    }
    if acc.x == MAGIC && acc.y == MAGIC { sink[gid.x & 255u] = acc.z; }
}

// A one-pass step at its floor: copies all of `big` into `copy_to` (read once, written
// once, coalesced). The host chains such passes, each reading what the previous one wrote,
// at the sizes of a real step's state (`floor::pass_floors`).
@group(0) @binding(1) var<storage, read_write> copy_to: array<vec4<u32>>;

@compute @workgroup_size(256)
fn copy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = arrayLength(&big);
    let total = nwg.x * 256u;
    for (var i = gid.x; i < n; i += total) {
        copy_to[i] = big[i];
    }
}

// The latency floor of a pass whose threads each follow a chain of dependent
// random reads, as a step's events do (an event reads its facility's record, then the
// token that record names, then the record that token's route names, ...).
// `pdes-lab bench --suite floor` times chains of such passes (`floor::chase_ladder`); hash
// as the gather's (separate bind group layout).
//
// Thread `lid < ACTIVE` of every workgroup starts from its cursor word, reads DEPTH
// 16-byte words one after the other, each from the 32-byte sector the previous word and
// the cursor pick, and stores where it ended; the next pass starts from there, so the
// passes depend on each other as a step's do.

override DEPTH: u32 = 4u;
override ACTIVE: u32 = 256u;

@group(0) @binding(0) var<storage, read> records: array<vec4<u32>>; // two per sector
@group(0) @binding(1) var<storage, read_write> cursor: array<u32>;

@compute @workgroup_size(256)
fn chase(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    if lid.x >= ACTIVE { return; }
    let mask = arrayLength(&records) / 2u - 1u; // sectors: a power of two
    var a = cursor[gid.x];
    for (var k = 0u; k < DEPTH; k++) {
        a = hash(records[2u * (a & mask)].x ^ a);
    }
    cursor[gid.x] = a;
}

// Does a sector read in one pass make the other sector of its 64-byte block cheap in the
// next pass (as a facility's mailbox, touched by its senders, and its record, read by the
// arrival a pass later, would be if they shared a block)? `floor::block_ladder` chains
// pairs of passes: `block_first` reads a random sector per active thread and keeps its
// number beside the thread's state (two cursor words per thread), `block_second` reads the
// other sector of that sector's 64-byte block (NEAR) or another random one, and leaves the
// next state. Bindings as the chase's.
override NEAR: bool = true;

@compute @workgroup_size(256)
fn block_first(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    if lid.x >= ACTIVE { return; }
    let mask = arrayLength(&records) / 2u - 1u; // sectors: a power of two
    let state = cursor[2u * gid.x];
    let s = hash(state) & mask;
    // the thread's state stays 32 bits wide: a state narrowed to the sector number would
    // make the threads' walks merge into a few sectors that L2 holds
    cursor[2u * gid.x] = state ^ records[2u * s].x;
    cursor[2u * gid.x + 1u] = s;
}

@compute @workgroup_size(256)
fn block_second(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    if lid.x >= ACTIVE { return; }
    let mask = arrayLength(&records) / 2u - 1u;
    let state = cursor[2u * gid.x];
    let s = select(hash(state ^ 0x27d4eb2fu) & mask, cursor[2u * gid.x + 1u] ^ 1u, NEAR);
    cursor[2u * gid.x] = hash(state ^ records[2u * s].x);
}

// The events' memory operations alone (`floor::event_ladder`): a torus step's two passes —
// departures, then arrivals — doing what a step's events do to memory, at the same
// addresses' spread and in the same order, with no simulation around them (the listing's
// reads, but not its decisions; no random numbers, no reductions). The difference from a
// real step at the same events per workgroup is what the simulation adds to its memory
// operations.
//
// Facilities are a COLS-wide torus in segments of SEG (one 256-thread workgroup each).
// In the step of salt s, workgroup w departs ACTIVE distinct facilities of its segment,
// SEG / ACTIVE apart from a random start, each in a direction drawn from its number and s.
// Two departures may reach one destination, from different directions: each writes its own
// mailbox word, the count or mask is an atomic sum, and the destination is listed once —
// by whichever segment announced first, the one thing the threads' order decides (the
// check compares the union of the lists). Records, as the torus engine's: ev_fac two
// 16-byte words per facility, ev_dep the departure time, ev_mail eight words per facility
// (four directions, the announcement count or mask), ev_tok two token records per facility
// ([f] the one serving at f, [K + f] the head of f's queue).
// Bit 0 of a facility's ev_fac[2f].w says its queue is not empty (a departure dequeues),
// bit 0 of .z that its server is busy (an arrival queues); half of them, from the set-up.

override COLS: u32 = 2048u;
override MASKED: bool = false;
const SEG: u32 = 4096u;
const EV_NONE: u32 = 0xffffffffu;

@group(0) @binding(0) var<storage, read_write> ev_fac: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> ev_dep: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> ev_mail: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> ev_tok: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> ev_list: array<u32>; // per segment: its receivers
@group(0) @binding(5) var<storage, read_write> ev_ctl: array<u32>;  // [0] the step's salt, [1 + w] segment w's receivers

var<workgroup> ev_n: atomic<u32>;

// The neighbour of f in direction dir (0 up, 1 down, 2 left, 3 right) on the torus.
fn ev_neighbour(f: u32, dir: u32) -> u32 {
    let rows = arrayLength(&ev_dep) / COLS;
    let r = f / COLS;
    let c = f - r * COLS;
    switch dir {
        case 0u: { return select(r - 1u, rows - 1u, r == 0u) * COLS + c; }
        case 1u: { return select(r + 1u, 0u, r + 1u == rows) * COLS + c; }
        case 2u: { return r * COLS + select(c - 1u, COLS - 1u, c == 0u); }
        default: { return r * COLS + select(c + 1u, 0u, c + 1u == COLS); }
    }
}

// The step's departures (after the segment's listing): each reads its facility's departure
// time and record, announces
// its token in the destination's mailbox (a store, then the returning count), rewrites the
// token's record in one store, reads the next queued token when there is one, and stores
// the facility's departure time and record; the first announcement lists the receiver.
@compute @workgroup_size(256)
fn ev_depart(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let w = wid.x;
    let lid = lid3.x;
    if lid == 0u { atomicStore(&ev_n, 0u); }
    // The scan's listing first, as a step's: every departure time of the segment read once
    // (16 per thread, coalesced), which keeps them in L2 for the departures and arrivals.
    var seen = vec2<u32>(0u);
    for (var i = 0u; i < SEG / 256u; i += 8u) {
        let at = w * SEG + lid + 256u * i;
        seen ^= ev_dep[at] ^ ev_dep[at + 256u] ^ ev_dep[at + 512u] ^ ev_dep[at + 768u]
            ^ ev_dep[at + 1024u] ^ ev_dep[at + 1280u] ^ ev_dep[at + 1536u] ^ ev_dep[at + 1792u];
    }
    // never taken in practice (a 2^-64 chance); past any receiver list the check compares
    if seen.x == MAGIC && seen.y == MAGIC { ev_list[w * SEG + SEG - 1u] = seen.x; }
    workgroupBarrier();
    let salt = ev_ctl[0];
    let k = arrayLength(&ev_dep);
    let offset = hash(salt ^ (w * MAGIC));
    // evenly spaced from a random start, as a step's departures, listed in facility order,
    // lie on average (their spacing decides how many share a DRAM page)
    let spacing = max(SEG / max(ACTIVE, 1u), 1u);
    for (var j = lid; j < ACTIVE; j += 256u) {
        let f = w * SEG + ((offset + j * spacing) & (SEG - 1u)); // distinct within the segment
        let t = ev_dep[f];
        let a = ev_fac[2u * f];
        let b = ev_fac[2u * f + 1u];
        let dir = hash(f ^ salt) >> 30u; // each departure its own way, as a step's tokens go
        let dest = ev_neighbour(f, dir);
        atomicStore(&ev_mail[8u * dest + dir], f);
        var before: u32;
        if MASKED {
            before = atomicOr(&ev_mail[8u * dest + 4u], 1u << dir);
        } else {
            before = atomicAdd(&ev_mail[8u * dest + 4u], 1u);
        }
        let first = before == 0u;
        ev_tok[f] = vec4<u32>(t, EV_NONE, b.w + 1u);
        var next = t.x + a.x + 1u;
        if (a.w & 1u) == 1u {
            let nt = ev_tok[k + f];
            next += nt.x ^ nt.z;
        }
        ev_dep[f] = vec2<u32>(next, t.y);
        ev_fac[2u * f] = vec4<u32>(a.x + 1u, a.yzw);
        ev_fac[2u * f + 1u] = vec4<u32>(b.x, t, b.w + 1u);
        if first { ev_list[w * SEG + atomicAdd(&ev_n, 1u)] = dest; }
    }
    workgroupBarrier();
    if lid == 0u { ev_ctl[1u + w] = atomicLoad(&ev_n); }
}

// The step's arrivals: each receiver reads its record, departure time and four mailbox
// words together, the records of the tokens announced, empties the words it found full,
// then queues (a 4-byte store of the queue's link) or serves (a new departure time), and
// stores its record and a cleared count. With MASKED, the mailbox as the torus keeps it
// since 70ce220: word 4 is a mask of the directions announced (atomicOr), the arrival reads
// the mask, then only the words it flags, and empties nothing but the mask. The next
// step's salt comes from this one's.
@compute @workgroup_size(256)
fn ev_arrive(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>) {
    let w = wid.x;
    let lid = lid3.x;
    let k = arrayLength(&ev_dep);
    let n = ev_ctl[1u + w];
    for (var j = lid; j < n; j += 256u) {
        let g = ev_list[w * SEG + j];
        let a = ev_fac[2u * g];
        let b = ev_fac[2u * g + 1u];
        let dg = ev_dep[g];
        var box = vec4<u32>(EV_NONE);
        if MASKED {
            let mask = atomicLoad(&ev_mail[8u * g + 4u]);
            for (var d = 0u; d < 4u; d++) {
                if ((mask >> d) & 1u) != 0u { box[d] = atomicLoad(&ev_mail[8u * g + d]); }
            }
        } else {
            box = vec4<u32>(
                atomicLoad(&ev_mail[8u * g]),
                atomicLoad(&ev_mail[8u * g + 1u]),
                atomicLoad(&ev_mail[8u * g + 2u]),
                atomicLoad(&ev_mail[8u * g + 3u]),
            );
        }
        var sum = 0u;
        for (var d = 0u; d < 4u; d++) {
            if box[d] != EV_NONE {
                let r = ev_tok[box[d]];
                sum += r.x + r.w;
                if !MASKED { atomicStore(&ev_mail[8u * g + d], EV_NONE); }
            }
        }
        if (a.z & 1u) == 1u {
            ev_tok[k + g].z = sum;
        } else {
            ev_dep[g] = vec2<u32>(dg.x + sum, dg.y);
        }
        ev_fac[2u * g] = vec4<u32>(a.x ^ sum, a.yzw);
        ev_fac[2u * g + 1u] = vec4<u32>(b.x, b.y + 1u, b.zw);
        atomicStore(&ev_mail[8u * g + 4u], 0u);
    }
    if w == 0u && lid == 0u { ev_ctl[0] = hash(ev_ctl[0]); }
}
