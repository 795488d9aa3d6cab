#!/usr/bin/env python3
"""Cycle-mean benchmark: Howard (sequential, parallel CPU and, with --gpu, GPU),
Young-Tarjan-Orlin and Karp on the largest graphs of shared/cycle-mean (cycle ratio,
minimum and maximum), on weighted BEEM state graphs (maximum cycle mean; the weight of a
transition is a DVE expression on its target state, chosen per model in WEIGHTS: a global
counter or a sum of flags, a proxy for the resource use of the state), and on Erdos-Renyi
random graphs (from `warpcheck generate er`, weights uniform in [-1000, 1000] from a
seeded generator, minimum cycle mean). Prints a markdown table of seconds per algorithm
(median of the runs; the algorithm only, SCC decomposition included, input loading and
state-space exploration excluded; for the GPU also upload and the exact certificate, not
the one-off NVRTC compilation and context creation) and checks that all algorithms give
the same exact value.

Every graph is loaded (or its state space explored) once: one `warpcheck cycle-mean -a
A,B,...` process runs all algorithms on it. Parallel Howard and GPU Howard run --runs
times, the sequential algorithms --cpu-runs times. A process that passes --timeout is
stopped; the algorithms that finished by then are kept, the one interrupted shows as `>T`
(T the seconds it had, a lower bound), the ones that never started as `not run`.
Karp is O(nm): it runs only where vertices x edges <= --karp-nm.

Usage: python3 benches/cycle_mean.py [--threads 2] [--runs 3] [--cpu-runs 1] [--gpu]
                                     [--beem DIR] [--cycle-mean DIR] [--instances A,B]
                                     [--dasdan A,B] [--er 100000,1000000] [--timeout S] [--out FILE]
Build first: cargo build --release
"""
import argparse, json, os, platform, random, statistics, subprocess, sys

CPU_ALGORITHMS = ["howard", "howard-par", "yto", "karp"]
FAST = {"howard-par", "howard-gpu"}
DASDAN = ["iscas/s38584.d", "iscas/s38417.d", "iscas/bigkey.d", "iscas/dsip.d", "core-big/rd_big.d"]
# Weight expressions of the BEEM models (evaluated on the target state of a transition).
WEIGHTS = {
    "fischer": "id",
    "lamport": "b[0] + b[1] + b[2] + b[3]",
    "mcs": "locked[0] + locked[1] + locked[2] + locked[3]",
    "exit": "time",
    "cambridge": "buf_act",
    "leader_election": "nr_leaders",
    "bakery": "number[0] + number[1] + number[2] + number[3]",
    "at": "z",
}
DEFAULT_BEEM = ["mcs.3", "fischer.4", "lamport.5", "exit.5"]

def measure(binary, args, extra, algorithms):
    """Runs all `algorithms` on one input in one process; {algorithm: [reports]}."""
    order = []
    for a in algorithms:
        order += [a] * (args.runs if a in FAST else args.cpu_runs)
    cmd = [binary, "cycle-mean", *extra, "-a", ",".join(order), "--threads", str(args.threads), "--json"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        stdout, code, stderr = out.stdout, out.returncode, out.stderr
    except subprocess.TimeoutExpired as e:
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        code, stderr = None, ""
    if code not in (0, None):
        sys.exit(f"failed ({code}): {' '.join(cmd)}\n{stderr}")
    reports, done = {}, []
    for line in stdout.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            reports.setdefault(r["algorithm"], []).append(r)
            done.append(r)
    # Stopped by the timeout: the next run was interrupted after the time left (load and
    # the finished runs subtracted; a lower bound), the ones after it never started.
    cut = {}
    if code is None:
        spent = (done[0]["load_seconds"] if done else 0) + sum(r["seconds"] + r["scc_seconds"] for r in done)
        rest = order[len(done):]
        for i, a in enumerate(rest):
            if a not in reports and a not in cut:
                cut[a] = f">{args.timeout - spent:.0f}" if i == 0 else "not run"
    return reports, cut

def summary(reports):
    first = dict(reports[0])
    first["total"] = statistics.median(r["seconds"] + r["scc_seconds"] for r in reports)
    if "kernel_seconds" in first:
        for key in ("kernel", "scc", "upload", "device", "certify"):
            first[key] = statistics.median(r[f"{key}_seconds"] for r in reports)
    return first

def row(name, binary, args, extra, karp_ok):
    algorithms = [a for a in args.algorithms if a != "karp" or (karp_ok and "--ratio" not in extra)]
    raw, cut = measure(binary, args, extra, algorithms)
    results = {a: (summary(raw[a]) if a in raw else None) for a in algorithms}
    for a, r in results.items():
        print(f"  {name} {a}: " + (f"{r['value']} in {r['total']:.3f} s" if r else "timeout"), file=sys.stderr)
    done = [r for r in results.values() if r]
    if not done:
        return f"| {name} | all algorithms timed out after {args.timeout} s |"
    if any(r["value"] != done[0]["value"] for r in done):
        sys.exit(f"{name}: the algorithms disagree: " + json.dumps({a: r["value"] for a, r in results.items() if r}))
    ref = done[0]
    cells = [name, f"{ref['vertices']:,}", f"{ref['edges']:,}", f"{ref['cyclic_sccs']:,}", str(ref["value"]),
             f"{ref['decimal']:.4f}" if ref["decimal"] is not None else "-"]
    for a in args.columns:
        r = results.get(a, "skip")
        cells.append("-" if r == "skip" else (f"{r['total']:.3f}" if r else cut.get(a, f">{args.timeout}")))
    h = results.get("howard")
    cells.append(str(h["rounds"]) if h else "-")
    if "howard-gpu" in args.columns:
        g = results.get("howard-gpu")
        if g:
            speedup = f"{h['total'] / g['total']:.1f}x" if h else "-"
            split = "/".join(f"{g[k]:.2f}" for k in ("scc", "upload", "device", "certify"))
            cells += [f"{g['kernel']:.3f}", split, str(g["device_rounds"]), str(g["certificate_fallbacks"]), speedup]
        else:
            cells += ["-"] * 5
    return "| " + " | ".join(cells) + " |"

NAMES = {"howard": "Howard s", "howard-par": "Howard-par s", "howard-gpu": "GPU Howard s", "yto": "YTO s",
         "karp": "Karp s"}

def header(columns):
    cells = ["graph", "vertices", "edges", "cyclic SCCs", "value", "decimal", *(NAMES[a] for a in columns),
             "Howard rounds"]
    if "howard-gpu" in columns:
        cells += ["GPU kernels s", "GPU SCC/layout+upload/device/certificate s", "GPU rounds",
                  "certificate fallbacks", "GPU vs Howard"]
    return "| " + " | ".join(cells) + " |\n|---|" + "---:|" * (len(cells) - 1)

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
    ap.add_argument("--runs", type=int, default=3, help="runs of howard-par and howard-gpu (median)")
    ap.add_argument("--cpu-runs", type=int, default=1, help="runs of the sequential algorithms (median)")
    ap.add_argument("--gpu", action="store_true", help="also GPU Howard (--algorithm howard-gpu)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per graph, all algorithms together")
    ap.add_argument("--beem", default=os.path.join(here, "../../shared/beem"))
    ap.add_argument("--cycle-mean", default=os.path.join(here, "../../shared/cycle-mean"))
    ap.add_argument("--binary", default=os.path.join(here, "../target/release/warpcheck"))
    ap.add_argument("--instances", default=",".join(DEFAULT_BEEM))
    ap.add_argument("--dasdan", default=",".join(DASDAN))
    ap.add_argument("--er", default="100000,1000000", help="vertex counts of the ER graphs (degree 8)")
    ap.add_argument("--karp-nm", type=float, default=2e9)
    ap.add_argument("--work", default="/tmp/warpcheck-cycle-bench")
    ap.add_argument("--only", help="run only these algorithms (e.g. howard-gpu,howard); the others show '-'")
    ap.add_argument("--out")
    args = ap.parse_args()
    # The GPU first: its runs are short, and a timeout then costs only the slow CPU ones.
    args.columns = CPU_ALGORITHMS[:2] + (["howard-gpu"] if args.gpu else []) + CPU_ALGORITHMS[2:]
    args.algorithms = [a for a in (["howard-gpu"] if args.gpu else []) + ["howard-par", "yto", "howard", "karp"]
                       if not args.only or a in args.only.split(",")]
    os.makedirs(args.work, exist_ok=True)
    lines = [f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
             f"--threads {args.threads}; median of {args.runs} run(s) (howard-par, howard-gpu) and "
             f"{args.cpu_runs} run(s) (sequential); seconds of the algorithm "
             f"(SCC decomposition included, loading and exploration excluded).", "", header(args.columns)]
    for g in filter(None, args.dasdan.split(",")):
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
        if not os.path.exists(path):
            path = os.path.join(args.beem, f"{inst}.dve")  # a flat folder of models
        weight = WEIGHTS.get(model)
        if weight is None or not os.path.exists(path):
            print(f"skipping {inst}: no weight expression or no model file", file=sys.stderr)
            continue
        lines.append(row(f"{inst} (max mean, weight `{weight}`)", args.binary, args,
                         [path, "--weight", weight, "--max"], False))
        print(lines[-1], file=sys.stderr, flush=True)
    for n in filter(None, args.er.split(",")):
        path = er_graph(args.binary, args.work, int(n), 12345)
        lines.append(row(f"ER n={int(n):,} d=8 (min mean)", args.binary, args, [path], False))
        print(lines[-1], file=sys.stderr, flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)

if __name__ == "__main__":
    main()
