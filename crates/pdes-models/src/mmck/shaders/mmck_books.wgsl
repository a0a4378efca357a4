// mmck_books.wgsl — a run's records at time 0 written where they live (`init`), and the
// summary's sums added up where they live (`reduce`), so that neither a run's records
// (2.5 GB at 10⁷ replications) cross the bus before its first event nor after its last.
// Twins: records.rs's `template_words` with `Replication::first_arrival` (init), and
// summary.rs's `Pooled::add` (reduce). Composed after u64.wgsl, the products, philox.wgsl
// and mmck_common.wgsl.
//
// `reduce` writes one block of BOOK words per workgroup of BOOKS_WG replications into `aux`
// (summary.rs, `Books`, reads them): every 64-bit value as four 16-bit digits, each digit
// summed over the workgroup in its own word (at most 256 · 2¹⁶ = 2²⁴: no carries to move
// between words; the host weighs them), so that the sums are exact integers whatever order
// the threads add in:
//   0 events (4 digits), 4 finished replications, 5 measured replications,
//   6 the nine counters of the measured ones (the measured length in place of t_start),
//   42 their time in each state n = 0..=k, then Σ q (4 digits) and Σ q² (8 columns of
//   digit products' halves), q = ⌊L̂ · 2³²⌋ = ⌊area · 2³² / length⌋.

@group(0) @binding(3) var<storage, read_write> aux: array<u32>;

const BOOKS_WG: u32 = 256u;
const BOOK_FINISHED: u32 = 4u;
const BOOK_MEASURED: u32 = 5u;
const BOOK_COUNTERS: u32 = 6u;
const BOOK_STATES: u32 = 42u;
// The most words of a block: k ≤ 256 (config.rs, MAX_CAPACITY).
const BOOK_MOST: u32 = BOOK_STATES + 4u * 257u + 12u;

var<workgroup> book: array<atomic<u32>, BOOK_MOST>;

// Words of a block for this run's capacity.
fn book_words() -> u32 { return BOOK_STATES + 4u * (P.capacity + 1u) + 12u; }

// Replication r's record at time 0: `aux` holds the record every replication starts from
// (the host's, for replication P.first); only its first arrival, draw 0 of its arrival
// stream, differs between replications.
@compute @workgroup_size(BOOKS_WG)
fn init(@builtin(global_invocation_id) gid: vec3<u32>) {
    let r = gid.x;
    if r >= P.reps { return; }
    for (var i = 0u; i < P.stride; i++) { rep[i * P.reps + r] = aux[i]; }
    let p = mul32x32(block(P.first + r, 0u, vec2<u32>(0u)).x, P.arr_scale);
    // rng::scale_q27: ⌊draw · mean / 2²⁷⌋ ticks
    put64(r, 2u, vec2<u32>((p.x >> 27u) | (p.y << 5u), p.y >> 27u));
}

// `v`'s four 16-bit digits into the block's words from `at`.
fn add_digits(at: u32, v: vec2<u32>) {
    atomicAdd(&book[at], v.x & 0xffffu);
    atomicAdd(&book[at + 1u], v.x >> 16u);
    atomicAdd(&book[at + 2u], v.y & 0xffffu);
    atomicAdd(&book[at + 3u], v.y >> 16u);
}

// ⌊area · 2³² / len⌋ modulo 2⁶⁴ (len > 0), by restoring division over the 96 bits of
// area · 2³², most significant first; the remainder keeps the bit shifted out of its top.
fn quotient(area: vec2<u32>, len: vec2<u32>) -> vec2<u32> {
    var rem = vec2<u32>(0u);
    var q = vec2<u32>(0u);
    for (var i = 0u; i < 96u; i++) {
        let b = 95u - i;
        let word = select(select(0u, area.x, b >= 32u), area.y, b >= 64u);
        let bit = (word >> (b & 31u)) & 1u;
        let carry = rem.y >> 31u;
        rem = vec2<u32>((rem.x << 1u) | bit, (rem.y << 1u) | (rem.x >> 31u));
        let take = carry == 1u || !lt64(rem, len);
        if take { rem = sub64(rem, len); }
        q = vec2<u32>((q.x << 1u) | u32(take), (q.y << 1u) | (q.x >> 31u));
    }
    return q;
}

// q² as eight columns from `at`: the digit products d_i · d_j (each below 2³²) split into
// their low half, weighed 2^(16(i+j)), and their high half, weighed 2^(16(i+j+1)).
fn add_square(at: u32, q: vec2<u32>) {
    var d = array<u32, 4>(q.x & 0xffffu, q.x >> 16u, q.y & 0xffffu, q.y >> 16u);
    var cols = array<u32, 8>(0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    for (var i = 0u; i < 4u; i++) {
        for (var j = 0u; j < 4u; j++) {
            let p = d[i] * d[j];
            cols[i + j] += p & 0xffffu;
            cols[i + j + 1u] += p >> 16u;
        }
    }
    for (var c = 0u; c < 8u; c++) { atomicAdd(&book[at + c], cols[c]); }
}

@compute @workgroup_size(BOOKS_WG)
fn reduce(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let words = book_words();
    for (var i = lid; i < words; i += BOOKS_WG) { atomicStore(&book[i], 0u); }
    workgroupBarrier();
    let r = wg.x * BOOKS_WG + lid;
    if r < P.reps {
        let t = get64(r, 0u);
        let deps = get64(r, 12u);
        add_digits(0u, get64(r, 14u));
        if !lt64(deps, P.customers) { atomicAdd(&book[BOOK_FINISHED], 1u); }
        let t_start = get64(r, T_START);
        let len = sat_sub64(t, t_start);
        if !lt64(deps, P.warmup) && any(len != vec2<u32>(0u)) {
            atomicAdd(&book[BOOK_MEASURED], 1u);
            add_digits(BOOK_COUNTERS, len);
            for (var j = 1u; j < 9u; j++) { add_digits(BOOK_COUNTERS + 4u * j, get64(r, T_START + 2u * j)); }
            let states = P.capacity + 1u;
            for (var n = 0u; n < states; n++) { add_digits(BOOK_STATES + 4u * n, get64(r, P.state_off + 2u * n)); }
            let q = quotient(get64(r, AREA), len);
            add_digits(BOOK_STATES + 4u * states, q);
            add_square(BOOK_STATES + 4u * states + 4u, q);
        }
    }
    workgroupBarrier();
    for (var i = lid; i < words; i += BOOKS_WG) { aux[wg.x * words + i] = atomicLoad(&book[i]); }
}
