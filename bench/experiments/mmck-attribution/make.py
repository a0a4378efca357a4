#!/usr/bin/env python3
"""Writes the M/M/c/k attribution-by-removal kernels into DIR/<variant>/mmck.wgsl
(PDES_WGSL_DIR experiments, issue 32 item 1): copies of the built-in replication shader
with one part of an event replaced by something nearly free, so that the time a part
takes is what its removal saves per event. A removal changes the sample path (the draws,
or the books), so no variant's output is a result; the time per event (wall / events) is:
- no-philox: each Philox block replaced by a multiply-xor hash of the same inputs;
- no-ln: the −ln transform (its two table reads, the interpolation) replaced by a shift
  with the same mean (a uniform draw in Q5.27 instead of an exponential one);
- no-rng: both;
- no-tallies: the per-event books (the time in each state; before 1a54212 also ∫n dt and
  ∫min(n,c) dt) left out;
- no-draws (eighth session): no block computed after the dispatch's start (`refill` keeps
  its blocks) and a draw a hash of its index: what the event costs with its draws made
  elsewhere, for free — the most that moving the draws off the event's warp could save;
- draws-shared: a draw read from workgroup memory at its index (64 places a stream a
  thread, laid out so that a warp's lanes never share a bank, filled once at the
  dispatch's start): what the event costs if other warps made the draws and left them
  there;
- no-books (eighth session): the sojourn and waiting-time sums left out of the event;
- no-warm-check (eighth session, on 8239ef1): the test for the warm-up's end, and what it
  resets, left out — exact where the run has no warm-up. Measured (−7%) and built in as the
  reset out of the event loop (be0d4a2), so its text left (commit e3dc61b's make.py).
- ninth session (on 961790e, one-word times): no-states, the time in state n left out of
  the event (its read, add and write in workgroup memory); no-who, the servers' customer
  arrivals not written (their selects); no-ring, the waiting ring not written (nor its head
  read: the head is slot 0); no-limit, the budget's time limit not tested; no-blocked, the
  blocked arrivals not counted. Each left-out part's cost on the event's chain.
A variant whose text the shader no longer has (the draws' variants after the producers of
8239ef1, say) is skipped with a line that says so; the texts are matched at any
indentation.
The folders are copies of the shader as it is when make.py runs (each results folder
names the commit its variants came from). Usage: make.py DIR (from the repository root)."""
import os
import sys

FILE = "crates/pdes-models/src/mmck/shaders/mmck.wgsl"
# (the replication's number is `rep_no` since 8239ef1, `P.first + r` before)
PHILOX = "    let w = philox4x32_10(vec4<u32>(b.x, b.y, P.seed_hi, stream), vec2<u32>(rep_no, P.seed_lo));"
CHEAP = """    let h = (b.x * 747796405u + 2891336453u) ^ (rep_no * 2654435761u) ^ (stream * 40503u) ^ b.y;
    let w = vec4<u32>(h, h * 3u + 1u, h * 5u + 7u, h * 9u + 3u);"""
LN = "    return vec4<u32>(neg_ln_q27(w.x), neg_ln_q27(w.y), neg_ln_q27(w.z), neg_ln_q27(w.w));"
NO_LN = "    return w >> vec4<u32>(4u);"
# since 1a54212 ∫n dt and ∫min(n, c) dt come from the state times at a dispatch's end,
# and since a2ff793 a few state times are kept by selects
TALLIES = """        // the time in state n; a few states by selects, so that they stay in registers
        // (−7% at 7,168 and 57,344 replications, −8% at 10⁶ on the H100)
        if K1 <= SLOTS_IN_REGISTERS {
            var time_in_n = st[0];
            for (var j = 1u; j < K1; j++) { time_in_n = select(time_in_n, st[j], j == n); }
            time_in_n = add64(time_in_n, dt);
            for (var j = 0u; j < K1; j++) { st[j] = select(st[j], time_in_n, j == n); }
        } else {
            st[n] = add64(st[n], dt);
        }
"""

REFILL = "    let fresh = block(r, stream, add64(block_of(d.base), vec2<u32>(2u, 0u)));"
NO_REFILL = "    let fresh = d.hi;"
TICKS = """    let off = i_lo - d.base.x;"""
HASH_TICKS = """    let p0 = mul32x32(((i_lo * 2654435761u) ^ (r_of_draws * 40503u)) >> 4u, mean);
    return vec2<u32>((p0.x >> 27u) | (p0.y << 5u), p0.y >> 27u);
    let off = i_lo - d.base.x;"""
SHARED_TICKS = """    let p0 = mul32x32(pool[(((i_lo & 63u) * 2u + select(0u, 1u, mean == P.scale)) * 64u) + LID], mean);
    return vec2<u32>((p0.x >> 27u) | (p0.y << 5u), p0.y >> 27u);
    let off = i_lo - d.base.x;"""
ENTRY = "fn advance(@builtin(global_invocation_id) gid: vec3<u32>) {\n    let r = gid.x;"
HASH_ENTRY = "fn advance(@builtin(global_invocation_id) gid: vec3<u32>) {\n    let r = gid.x;\n    r_of_draws = r;"
SHARED_ENTRY = """fn advance(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let r = gid.x;
    LID = lid;
    for (var i = 0u; i < 128u; i++) { pool[i * 64u + lid] = ((i * 2654435761u) ^ (r * 40503u)) >> 4u; }"""
HASH_DECL = "var<private> r_of_draws: u32;\n"
SHARED_DECL = "var<private> LID: u32;\nvar<workgroup> pool: array<u32, 8192>;\n"

BOOKS = """        sojourn = select(sojourn, add64(sojourn, sub64(t, leaving)), departs);
        wait = select(wait, add64(wait, sub64(t, a)), from_queue);
"""
STATES9 = """                if K1 <= STATES_IN_WORKGROUP {
                    let at = n * CONSUMERS + lane;
                    st_shared[at] = t_add(st_shared[at], dt);
                } else {"""
NO_STATES9 = """                if false {
                } else if K1 > STATES_IN_WORKGROUP {"""
WHO9 = "                    who[i] = select(who[i], new_who, i == who_changed);"
RING9 = "                    for (var j = 0u; j < RING; j++) { ring[j] = select(ring[j], t, to_queue && j == slot); }"
HEAD9 = "                    for (var j = 1u; j < RING; j++) { a = select(a, ring[j], j == qhead); }"
LIMIT9 = "                if !t_lt(te, limit) { runs = false; break; }"
BLOCKED9 = "                blocked_here += u32(arrives && n == K);"
VARIANTS = {
    "no-states": [(STATES9, NO_STATES9)],
    "no-who": [(WHO9, "")],
    "no-ring": [(RING9, ""), (HEAD9, "")],
    "no-limit": [(LIMIT9, "")],
    "no-blocked": [(BLOCKED9, "")],
    "no-draws": [(REFILL, NO_REFILL), (TICKS, HASH_TICKS), (ENTRY, HASH_ENTRY), ("struct Params {", HASH_DECL + "struct Params {")],
    "draws-shared": [(REFILL, NO_REFILL), (TICKS, SHARED_TICKS), (ENTRY, SHARED_ENTRY), ("struct Params {", SHARED_DECL + "struct Params {")],
    "no-philox": [(PHILOX, CHEAP)],
    "no-ln": [(LN, NO_LN)],
    "no-rng": [(PHILOX, CHEAP), (LN, NO_LN)],
    "no-tallies": [(TALLIES, "")],
    "no-books": [(BOOKS, "")],
}


def indented(text, by):
    return "\n".join((" " * by + line) if line.strip() else line for line in text.split("\n"))

out = sys.argv[1]
text = open(FILE).read()
for name, edits in VARIANTS.items():
    v = text
    for old, new in edits:
        for by in (0, 4, 8):
            if v.count(indented(old, by)) == 1:
                v = v.replace(indented(old, by), indented(new, by) if new else "")
                break
        else:
            v = None
            break
    if v is None:
        print(f"{name}: skipped (the shader no longer has its text)")
        continue
    os.makedirs(os.path.join(out, name), exist_ok=True)
    open(os.path.join(out, name, "mmck.wgsl"), "w").write(v)
    print(os.path.join(out, name, "mmck.wgsl"))
