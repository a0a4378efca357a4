// chase.wgsl — the latency floor of a pass whose threads each follow a chain of dependent
// random reads, as a step's events do (an event reads its facility's record, then the
// token that record names, then the record that token's route names, ...).
// `pdes-lab bench --suite floor` times chains of such passes (`floor::chase_ladder`).
//
// Thread `lid < ACTIVE` of every workgroup starts from its cursor word, reads DEPTH
// 16-byte words one after the other, each from the 32-byte sector the previous word and
// the cursor pick, and stores where it ended; the next pass starts from there, so the
// passes depend on each other as a step's do.

override DEPTH: u32 = 4u;
override ACTIVE: u32 = 256u;

@group(0) @binding(0) var<storage, read> records: array<vec4<u32>>; // two per sector
@group(0) @binding(1) var<storage, read_write> cursor: array<u32>;

fn chase_hash(x: u32) -> u32 {
    var h = x * 0x9e3779b1u;
    h ^= h >> 15u;
    h *= 0x85ebca77u;
    h ^= h >> 13u;
    return h;
}

@compute @workgroup_size(256)
fn chase(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    if lid.x >= ACTIVE { return; }
    let mask = arrayLength(&records) / 2u - 1u; // sectors: a power of two
    var a = cursor[gid.x];
    for (var k = 0u; k < DEPTH; k++) {
        a = chase_hash(records[2u * (a & mask)].x ^ a);
    }
    cursor[gid.x] = a;
}
