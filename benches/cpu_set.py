#!/usr/bin/env python3
"""CPU benchmark: explores the CPU set of shared/docs/benchmarks.md with warpcheck on
1 and 2 threads (median of several runs each) and prints a markdown table beside the
peers' figures measured on a machine of the same kind (2 cores).

Usage: python3 benches/cpu_set.py [--runs N] [--beem DIR] [--out FILE]
Build first: cargo build --release
"""
import argparse, json, os, platform, statistics, subprocess, sys, time

# instance: (LTSmin 1 thread, LTSmin 2 threads, LTSmin bytes/state, DiVinE 1 worker), M states/s
PEERS = {
    "adding.6": (0.57, 0.57, 9.2, 0.96),
    "at.4": (0.42, 0.41, 8.1, 0.40),
    "bakery.5": (0.41, 0.42, 8.9, 0.48),
    "brp.4": (0.43, 0.61, 10.0, 0.63),
    "cambridge.7": (0.28, 0.42, 8.6, 0.18),
    "elevator2.3": (0.48, 0.49, 8.0, 0.30),
    "fischer.6": (0.38, 0.43, 8.4, 0.34),
    "lamport.6": (0.46, 0.55, 8.0, 0.43),
    "leader_election.5": (0.19, 0.22, 15.4, 0.17),
    "msmie.4": (0.54, 0.53, 8.4, 0.42),
}

def run(binary, model, threads):
    out = subprocess.run([binary, "explore", model, "--threads", str(threads), "--json", "--quiet"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--beem", default=os.path.join(os.path.dirname(__file__), "../../shared/beem"))
    ap.add_argument("--binary", default=os.path.join(os.path.dirname(__file__), "../target/release/warpcheck"))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rows = []
    for inst, (lt1, lt2, lt_bytes, dv1) in PEERS.items():
        model = os.path.join(args.beem, inst.rsplit(".", 1)[0], inst + ".dve")
        result = {}
        for threads in (1, 2):
            reports = [run(args.binary, model, threads) for _ in range(args.runs)]
            secs = statistics.median(r["seconds"] for r in reports)
            r = reports[0]
            result[threads] = (secs, r)
            print(f"{inst} t={threads}: {r['states']} states in {secs:.2f} s", file=sys.stderr)
        s1, r = result[1]
        s2, r2 = result[2]
        rate1, rate2 = r["states"] / s1 / 1e6, r["states"] / s2 / 1e6
        best1, best2 = max(lt1, dv1), lt2
        rows.append((inst, r["states"], r["transitions"], s1, s2, rate1, rate2,
                     max(r["peak_memory_bytes"] or 0, r2["peak_memory_bytes"] or 0) / 2**20,
                     r["bytes_per_state"], best1, best2, lt_bytes))
    lines = [
        f"Machine: {platform.node()}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}; median of {args.runs} runs; "
        "exploration time only (model loading excluded); peers from shared/docs/benchmarks.md (same kind of machine).",
        "",
        "| instance | states | transitions | s (1 thr) | s (2 thr) | M states/s 1 thr | M states/s 2 thr | "
        "best peer 1 thr | best peer 2 thr | ratio 1 thr | ratio 2 thr | peak MiB | bytes/state | LTSmin bytes/state |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (inst, st, tr, s1, s2, r1, r2, mem, bps, b1, b2, ltb) in rows:
        lines.append(f"| {inst} | {st:,} | {tr:,} | {s1:.2f} | {s2:.2f} | {r1:.2f} | {r2:.2f} | {b1:.2f} | {b2:.2f} | "
                     f"{r1 / b1:.2f}x | {r2 / b2:.2f}x | {mem:.0f} | {bps:.1f} | {ltb:.1f} |")
    g1 = statistics.geometric_mean([r[5] / r[9] for r in rows])
    g2 = statistics.geometric_mean([r[6] / r[10] for r in rows])
    lines.append("")
    lines.append(f"Geometric mean of the ratios to the best peer: {g1:.2f}x on 1 thread, {g2:.2f}x on 2 threads.")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")

if __name__ == "__main__":
    main()
