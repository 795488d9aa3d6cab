#!/usr/bin/env python3
"""Cycle-mean benchmark: Howard (sequential and parallel), Young-Tarjan-Orlin and Karp on
the largest graphs of shared/cycle-mean (cycle ratio, minimum and maximum), on weighted
BEEM state graphs (maximum cycle mean; the weight of a transition is a DVE expression on
its target state, chosen per model in WEIGHTS: a global counter or a sum of flags, a
proxy for the resource use of the state), and on Erdos-Renyi random graphs (from
`warpcheck generate er`, weights uniform in [-1000, 1000] from a seeded generator,
minimum cycle mean). Prints a markdown table of seconds per algorithm (median of
--runs; the algorithm only, SCC decomposition included, input loading and state-space
exploration excluded) and checks that all algorithms give the same exact value.

Karp is O(nm): it runs only where vertices x edges <= --karp-nm.

Usage: python3 benches/cycle_mean.py [--threads 2] [--runs 3] [--beem DIR] [--cycle-mean DIR]
                                     [--instances A,B] [--er 100000,1000000] [--timeout S] [--out FILE]
Build first: cargo build --release
"""
import argparse, json, os, platform, random, statistics, subprocess, sys

ALGORITHMS = ["howard", "howard-par", "yto", "karp"]
DASDAN = ["iscas/s38584.d", "iscas/s38417.d", "iscas/bigkey.d", "iscas/dsip.d", "core-big/rd_big.d"]
# Weight expressions of the BEEM models (evaluated on the target state of a transition).
WEIGHTS = {
    "fischer": "id",
    "lamport": "b[0] + b[1] + b[2] + b[3]",
    "mcs": "locked[0] + locked[1] + locked[2] + locked[3]",
    "exit": "time",
    "cambridge": "buf_act",
    "leader_election": "nr_leaders",
}
DEFAULT_BEEM = ["mcs.3", "fischer.4", "lamport.5", "exit.5"]

def run_json(cmd, timeout):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        sys.exit(f"failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr}")
    return json.loads(out.stdout)

def measure(binary, args, extra, algorithm):
    reports = []
    for _ in range(args.runs):
        r = run_json([binary, "cycle-mean", *extra, "-a", algorithm, "--threads", str(args.threads), "--json"],
                     args.timeout)
        if r is None:
            return None
        reports.append(r)
    first = dict(reports[0])
    first["total"] = statistics.median(r["seconds"] + r["scc_seconds"] for r in reports)
    return first

def row(name, binary, args, extra, karp_ok):
    results = {}
    for a in ALGORITHMS:
        if a == "karp" and (not karp_ok or "--ratio" in extra):
            results[a] = "skip"
            continue
        results[a] = measure(binary, args, extra, a)
        r = results[a]
        print(f"  {name} {a}: " + (f"{r['value']} in {r['total']:.3f} s" if r else "timeout"), file=sys.stderr)
    done = [r for r in results.values() if isinstance(r, dict)]
    if any(r["value"] != done[0]["value"] for r in done):
        sys.exit(f"{name}: the algorithms disagree: " + json.dumps({a: r["value"] for a, r in results.items()
                                                                      if isinstance(r, dict)}))
    ref = done[0]
    cells = [name, f"{ref['vertices']:,}", f"{ref['edges']:,}", f"{ref['cyclic_sccs']:,}", str(ref["value"]),
             f"{ref['decimal']:.4f}" if ref["decimal"] is not None else "-"]
    for a in ALGORITHMS:
        r = results[a]
        cells.append("-" if r == "skip" else (f"{r['total']:.3f}" if r else f">{args.timeout}"))
    cells.append(str(results["howard"]["rounds"]) if isinstance(results["howard"], dict) else "-")
    return "| " + " | ".join(cells) + " |"

HEADER = ("| graph | vertices | edges | cyclic SCCs | value | decimal | Howard s | Howard-par s | YTO s | Karp s | "
          "Howard rounds |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

def er_graph(binary, work, vertices, seed):
    """An ER graph of average degree 8 with seeded uniform weights, as a .d file."""
    path = os.path.join(work, f"er-{vertices}.d")
    if os.path.exists(path):
        return path
    edges = os.path.join(work, f"er-{vertices}.edges")
    subprocess.run([binary, "generate", "er", edges, "--vertices", str(vertices), "--degree", "8",
                    "--seed", str(seed)], check=True, capture_output=True)
    rng = random.Random(seed)
    arcs = []
    with open(edges) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            u, v = line.split()
            arcs.append(f"a {int(u) + 1} {int(v) + 1} {rng.randint(-1000, 1000)} 1\n")
    with open(path, "w") as f:
        f.write(f"p er{vertices} {vertices} {len(arcs)}\n")
        f.writelines(arcs)
    os.remove(edges)
    return path

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--beem", default=os.path.join(here, "../../shared/beem"))
    ap.add_argument("--cycle-mean", default=os.path.join(here, "../../shared/cycle-mean"))
    ap.add_argument("--binary", default=os.path.join(here, "../target/release/warpcheck"))
    ap.add_argument("--instances", default=",".join(DEFAULT_BEEM))
    ap.add_argument("--er", default="100000,1000000", help="vertex counts of the ER graphs (degree 8)")
    ap.add_argument("--karp-nm", type=float, default=2e9)
    ap.add_argument("--work", default="/tmp/warpcheck-cycle-bench")
    ap.add_argument("--out")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    lines = [f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
             f"--threads {args.threads}, median of {args.runs} run(s); seconds of the algorithm "
             f"(SCC decomposition included, loading and exploration excluded).", "", HEADER]
    for g in DASDAN:
        path = os.path.join(args.cycle_mean, g)
        if not os.path.exists(path):
            print(f"missing {path}", file=sys.stderr)
            continue
        with open(path) as f:
            _, _, n, m = f.readline().split()
        karp = int(n) * int(m) <= args.karp_nm
        for flags, what in ((["--ratio"], "min ratio"), (["--ratio", "--max"], "max ratio"), ([], "min mean")):
            lines.append(row(f"{g} ({what})", args.binary, args, [path, *flags], karp))
    for inst in filter(None, args.instances.split(",")):
        model = inst.rsplit(".", 1)[0]
        path = os.path.join(args.beem, model, f"{inst}.dve")
        weight = WEIGHTS.get(model)
        if weight is None or not os.path.exists(path):
            print(f"skipping {inst}: no weight expression or no model file", file=sys.stderr)
            continue
        lines.append(row(f"{inst} (max mean, weight `{weight}`)", args.binary, args,
                         [path, "--weight", weight, "--max"], False))
    for n in filter(None, args.er.split(",")):
        path = er_graph(args.binary, args.work, int(n), 12345)
        lines.append(row(f"ER n={int(n):,} d=8 (min mean)", args.binary, args, [path], False))
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)

if __name__ == "__main__":
    main()
