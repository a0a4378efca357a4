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
