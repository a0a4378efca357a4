#!/usr/bin/env python3
"""The clinic (presets/clinic.toml) in Ciw, an independent sequential queueing-network
simulator, beside PDES Lab's sequential and window runs: per station utilization, mean
number, throughput and mean sojourn per visit, and the network's mean time in system, each
as a mean over replications with its 95% interval. The clinic has shifted and deterministic
service, so no exact value exists (Jackson and MVA need exponential service): an
independent simulator is the comparison (issue 55 §3).

usage: python3 bench/ciw/clinic.py PDES_LAB_BINARY [REPLICATIONS]   (pip install ciw)
"""
import json
import math
import statistics
import subprocess
import sys
from collections import defaultdict

import ciw

END, WARMUP = 20000.0, 2000.0
NAMES = ["triage", "doctor", "lab"]
SERVERS = [2, 3, 1]
# what flow balance gives whatever the service distribution (an open, stable network): the
# traffic equations' λ (triage 0.8, doctor 0.72 + 0.48 = 1.2, lab 0.4 × 1.2 = 0.48) and
# each station's utilization λ E[S] / c (E[S] = 2, 2, 1.2)
EXACT = {
    ("triage", "throughput"): 0.8, ("doctor", "throughput"): 1.2, ("lab", "throughput"): 0.48,
    ("triage", "utilization"): 0.8 * 2.0 / 2, ("doctor", "utilization"): 1.2 * 2.0 / 3,
    ("lab", "utilization"): 0.48 * 1.2 / 1,
}


def ciw_run(seed):
    """One Ciw replication: the clinic's stations as the preset writes them."""
    shifted = lambda: ciw.dists.Deterministic(0.5) + ciw.dists.Exponential(rate=1 / 1.5)
    network = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(rate=0.8), None, None],
        service_distributions=[shifted(), shifted(), ciw.dists.Deterministic(1.2)],
        routing=[[0.0, 0.9, 0.0], [0.0, 0.0, 0.4], [0.0, 1.0, 0.0]],
        number_of_servers=SERVERS,
    )
    ciw.seed(seed)
    q = ciw.Simulation(network)
    q.simulate_until_max_time(END)
    span = END - WARMUP
    overlap = lambda a, b: max(0.0, min(b, END) - max(a, WARMUP))
    out = {}
    recs = q.get_all_records()
    for i, name in enumerate(NAMES):
        rs = [r for r in recs if r.node == i + 1]
        done = [r for r in rs if WARMUP <= r.exit_date <= END]
        out[name] = {
            "utilization": sum(overlap(r.service_start_date, r.service_end_date) for r in rs)
            / (SERVERS[i] * span),
            "mean_number": sum(overlap(r.arrival_date, r.exit_date) for r in rs) / span,
            "throughput": sum(1 for r in rs if WARMUP <= r.service_end_date <= END) / span,
            "mean_sojourn": statistics.fmean(r.exit_date - r.arrival_date for r in done),
        }
    first, last, left = {}, {}, set()
    for r in recs:
        first[r.id_number] = min(first.get(r.id_number, math.inf), r.arrival_date)
        last[r.id_number] = max(last.get(r.id_number, -math.inf), r.exit_date)
        if r.destination == -1:
            left.add(r.id_number)
    times = [last[c] - first[c] for c in left if WARMUP <= last[c] <= END]
    out["network"] = {"mean_system_time": statistics.fmean(times)}
    return out


def pdes_run(binary, algorithm, seed):
    """One PDES Lab run of the preset, its station rows and network figures."""
    text = subprocess.run(
        [binary, "run", "presets/clinic.toml", "--format", "json",
         "--set", f"run.algorithm={algorithm}", "--set", f"run.seed={seed}"],
        check=True, capture_output=True, text=True,
    ).stdout
    d = json.loads(text)
    out = {s["name"]: {k: s[k] for k in ("utilization", "mean_number", "throughput", "mean_sojourn")}
           for s in d["stations"]}
    out["network"] = {"mean_system_time": d["mean_system_time"]}
    return out


def summary(runs, station, field):
    """Mean and 95% half-width (Student t) over replications."""
    xs = [r[station][field] for r in runs]
    t = {2: 12.706, 4: 3.182, 8: 2.365, 10: 2.262, 16: 2.131, 20: 2.093}.get(len(xs), 1.96)
    return statistics.fmean(xs), t * statistics.stdev(xs) / math.sqrt(len(xs))


def main():
    binary = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    ciw_runs = [ciw_run(s) for s in range(1, n + 1)]
    seq = [pdes_run(binary, "sequential", s) for s in range(1, n + 1)]
    win = [pdes_run(binary, "window", s) for s in range(1, n + 1)]
    rows = [(st, f) for st in NAMES for f in ("utilization", "mean_number", "throughput", "mean_sojourn")]
    rows.append(("network", "mean_system_time"))
    print(f"clinic, T = {END:g}, warm-up {WARMUP:g}, {n} replications each (seeds 1..{n}); "
          "mean ± 95% half-width; 'agree': the difference lies within 1.96 × its standard error")
    print("'exact': flow balance (λ, and utilization λ E[S] / c), true for any service distribution")
    print(f"{'station':8} {'quantity':17} {'exact':>7} {'Ciw':>18} {'PDES Lab sequential':>20} {'PDES Lab window d=0.5':>22}  agree")
    worst = 0.0
    for st, f in rows:
        c, s, w = (summary(r, st, f) for r in (ciw_runs, seq, win))
        z = lambda a, b: abs(a[0] - b[0]) / max(1e-12, math.hypot(a[1], b[1]) / 1.96)
        zs, zw = z(c, s), z(c, w)
        worst = max(worst, zs, zw)
        fmt = lambda m: f"{m[0]:.4f} ± {m[1]:.4f}"
        exact = EXACT.get((st, f))
        inside = "" if exact is None else (
            "; exact inside Ciw's, PDES Lab's interval: "
            + ", ".join("yes" if abs(m[0] - exact) <= m[1] else "NO" for m in (c, s)))
        print(f"{st:8} {f:17} {'' if exact is None else f'{exact:.4f}':>7} {fmt(c):>18} {fmt(s):>20} {fmt(w):>22}  "
              f"{'yes' if zs <= 1.96 else 'NO'} / {'yes' if zw <= 1.96 else 'NO'} (z {zs:.2f}, {zw:.2f}){inside}")
    print(f"largest |difference| / standard error: {worst:.2f} (of {2 * len(rows)} comparisons, "
          "about 1 in 20 exceeds 1.96 by chance; the rows share each replication's arrivals, "
          f"so they move together and are far fewer than {2 * len(rows)} independent tests)")


if __name__ == "__main__":
    main()
