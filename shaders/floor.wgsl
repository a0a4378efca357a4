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
