#!/usr/bin/env python3
"""SCC benchmark: every CPU algorithm (Tarjan, FB with trimming, Coloring, OBF) on the
state graphs of the CPU benchmark set of shared/docs/benchmarks.md and on synthetic
graphs of the thesis's Table 6.1 families (Erdos-Renyi, R-MAT, SSCA#2; 1, 2, 4, 8 Mi
vertices, average degree 12), printing a markdown table of SCC counts and seconds
(median of several runs; decomposition time only: graph loading and the building of
backward edges, which Tarjan does not need, are reported apart).

Usage: python3 benches/scc.py [--threads 2] [--runs 3] [--beem DIR] [--work DIR] [--instances A,B]
                              [--timeout SECONDS] [--sizes 1,2,4,8] [--out FILE]
Build first: cargo build --release
"""
import argparse, json, os, platform, statistics, subprocess, sys, time

CPU_SET = ["adding.6", "at.4", "bakery.5", "brp.4", "cambridge.7", "elevator2.3", "fischer.6", "lamport.6",
           "leader_election.5", "msmie.4"]
ALGORITHMS = ["tarjan", "fb", "coloring", "obf"]
FAMILIES = ["er", "rmat", "ssca2"]

def run_json(cmd, timeout):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        sys.exit(f"failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr}")
    return json.loads(out.stdout)

def decompose(binary, graph, algorithm, threads, runs, timeout):
    """Median seconds over `runs` runs and the report of the first, or None on timeout."""
    reports = []
    for _ in range(runs):
        r = run_json([binary, "scc", graph, "--algorithm", algorithm, "--threads", str(threads), "--json"], timeout)
        if r is None:
            return None
        reports.append(r)
    first = dict(reports[0])
    first["seconds"] = statistics.median(r["seconds"] for r in reports)
    first["backward_seconds"] = statistics.median(r["backward_seconds"] for r in reports)
    return first

def row(name, binary, graph, args):
    results = {}
    for a in ALGORITHMS:
        results[a] = decompose(binary, graph, a, args.threads, args.runs, args.timeout)
        r = results[a]
        print(f"  {name} {a}: " + (f"{r['sccs']} SCCs in {r['seconds']:.3f} s" if r else "timeout"), file=sys.stderr)
    done = [r for r in results.values() if r]
    keys = ("sccs", "trivial", "nontrivial", "largest", "histogram")
    if any(tuple(r[k] for k in keys) != tuple(done[0][k] for k in keys) for r in done):
        sys.exit(f"{name}: the algorithms disagree: " + json.dumps({a: r and r["sccs"] for a, r in results.items()}))
    ref = done[0]
    tarjan = results["tarjan"]["seconds"] if results["tarjan"] else None
    cells = [name, f"{ref['vertices']:,}", f"{ref['edges']:,}", f"{ref['sccs']:,}", f"{ref['nontrivial']:,}",
             f"{ref['largest']:,}"]
    for a in ALGORITHMS:
        r = results[a]
        cells.append(f"{r['seconds']:.2f}" if r else f">{args.timeout}")
    back = [r["backward_seconds"] for a, r in results.items() if r and a != "tarjan"]
    cells.append(f"{statistics.median(back):.2f}" if back else "-")
    parallel = [(r["seconds"], a) for a, r in results.items() if r and a != "tarjan"]
    if parallel and tarjan:
        best, who = min(parallel)
        cells.append(f"{tarjan / best:.2f}x ({who})")
    else:
        cells.append("-")
    return "| " + " | ".join(cells) + " |"

HEADER = ("| graph | vertices | edges | SCCs | non-trivial | largest | Tarjan s | FB+trim s | Coloring s | OBF s | "
          "backward edges s | best vs Tarjan |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=300, help="seconds per run; slower runs are reported as >T")
    ap.add_argument("--beem", default=os.path.join(here, "../../shared/beem"))
    ap.add_argument("--binary", default=os.path.join(here, "../target/release/warpcheck"))
    ap.add_argument("--work", default="/tmp/warpcheck-scc-bench", help="where graphs are written (several GB)")
    ap.add_argument("--sizes", default="1,2,4,8", help="synthetic sizes in Mi vertices")
    ap.add_argument("--instances", default=",".join(CPU_SET))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    beem_rows, synthetic_rows = [], []
    for inst in [i for i in args.instances.split(",") if i]:
        model = os.path.join(args.beem, inst.rsplit(".", 1)[0], inst + ".dve")
        graph = os.path.join(args.work, inst + ".wcg")
        r = run_json([args.binary, "explore", model, "--graph-out", graph, "--json"], None)
        print(f"{inst}: {r['states']} states, {r['transitions']} transitions, graph in {r['seconds']:.1f} s",
              file=sys.stderr)
        beem_rows.append(row(inst, args.binary, graph, args))
        os.remove(graph)
    for family in FAMILIES:
        for size in [int(s) for s in args.sizes.split(",") if s]:
            graph = os.path.join(args.work, f"{family}-{size}M.wcg")
            subprocess.run([args.binary, "generate", family, graph, "--vertices", str(size << 20), "--seed", "1"],
                           check=True, capture_output=True)
            synthetic_rows.append(row(f"{family} {size}Mi", args.binary, graph, args))
            os.remove(graph)
    lines = [
        f"Machine: {platform.node()}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}; {args.threads} threads for "
        f"the parallel algorithms (Tarjan is sequential); median of {args.runs} runs; decomposition time only "
        "(graph loading excluded; building the backward edges, needed by all but Tarjan, in its own column).",
        "",
        "BEEM state graphs (CPU set of shared/docs/benchmarks.md; vertices and edges are the reference's states and "
        "transitions):",
        "",
        HEADER, *beem_rows, "",
        "Synthetic graphs (thesis Table 6.1 families, average degree 12, seed 1; 1 Mi = 1,048,576 vertices):",
        "",
        HEADER, *synthetic_rows,
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)

if __name__ == "__main__":
    main()
