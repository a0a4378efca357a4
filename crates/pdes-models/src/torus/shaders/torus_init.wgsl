// torus_init.wgsl — the initial state, written on the GPU (twin of TorusState::new): P
// tokens at every facility of every replica, the first in service from time 0 with its
// service time and route drawn from (its replica's seed, its token, visit 0), the others
// queued in order. The host uploads nothing of it (a sweep's 80 replicas of 256² were
// 500 MB built and copied on the host); the buffers start as zeros, which is already the
// rest of the state (last arrivals 0, mailboxes, lists, sums). A thread per facility,
// grid-stride (the largest tori have more than 65,535 workgroups of them).

const INIT_WG: u32 = 256u;

@compute @workgroup_size(INIT_WG)
fn init_state(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let p = P.tok1 / P.k1; // tokens per facility (at least one)
    for (var g = gid.x; g < P.k; g += nwg.x * INIT_WG) {
        let rep = g / P.k1;
        let c = ctl[rep];
        // replica rep's tokens start at rep·tok1 = rep·k1·p: facility g's first is g·p
        let first = g * p;
        let words = replica_words(first, 0u, rep, c.seed);
        dep[g] = service_ticks_of(words.x, c.shift, c.scale); // from time 0
        var head = NONE;
        var tail = NONE;
        if p > 1u {
            head = first + 1u;
            tail = first + p - 1u;
        }
        store_fac(g, Fac(vec2<u32>(0u, 0u), first | ((words.y >> 30u) << 30u), head, tail,
                         vec2<u32>(0u, 0u), 0u));
        for (var j = 0u; j < p; j++) {
            // arrived at 0, visits 0; linked to the next queued one (the serving token's
            // link is NONE, as TorusState::start_service leaves it)
            let next = select(NONE, first + j + 1u, j >= 1u && j + 1u < p);
            fac[tok_base() + first + j] = vec4<u32>(0u, 0u, next, 0u);
        }
    }
}
