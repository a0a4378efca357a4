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
