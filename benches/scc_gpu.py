#!/usr/bin/env python3
"""SCC benchmark on a GPU machine, in one run: Tarjan, the parallel CPU algorithms (all
cores) and the GPU algorithms (FB with trimming, OBF, Coloring) on BEEM state graphs
and on the synthetic families of the thesis's Table 6.1 (Erdos-Renyi, R-MAT, SSCA#2,
average degree 12), every answer checked against Tarjan's partition. Runs the example
`scc_bench` (crates/gpu/examples/scc_bench.rs) once per graph and writes a markdown
table.

Usage: python3 benches/scc_gpu.py [--bench BINARY] [--beem DIR] [--instances A,B]
         [--sizes 1,2,4,8] [--families er,rmat,ssca2] [--runs 3] [--cpu-runs 1] [--timeout S] [--out FILE]
Build first: cargo build --release -p warpcheck-gpu --example scc_bench
"""
import argparse, json, os, platform, subprocess, sys, time

DEFAULT_INSTANCES = ["frogs.4", "leader_filters.7", "bakery.7", "at.5"]
ORDER = [("cpu", "tarjan"), ("cpu", "fb"), ("cpu", "obf"), ("cpu", "coloring"),
         ("gpu", "fb"), ("gpu", "obf"), ("gpu", "coloring")]


def run(bench, spec, args):
    """The JSON lines of one graph (whatever came before a timeout)."""
    cmd = [bench, "--runs", str(args.runs), "--cpu-runs", str(args.cpu_runs), spec]
    if args.skip:
        cmd[1:1] = ["--skip", args.skip]
    lines = []
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        text, err, code = out.stdout, out.stderr, out.returncode
    except subprocess.TimeoutExpired as e:
        text = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err, code = "timeout", None
    for line in text.splitlines():
        if line.startswith("{"):
            lines.append(json.loads(line))
            print(line, file=sys.stderr, flush=True)
    if code not in (0, None):
        print(f"{spec}: exit {code}: {err[-2000:]}", file=sys.stderr)
    return lines, code


def row(name, lines, timeout):
    head = next((l for l in lines if "vertices" in l and "algorithm" not in l), None)
    if head is None:
        return f"| {name} | (no result) |", []
    results = {(l["backend"], l["algorithm"]): l for l in lines if "algorithm" in l}
    bad = [f"{b} {a}" for (b, a), l in results.items() if not l["agrees"]]
    ref = results.get(("cpu", "tarjan"))
    cells = [name, f"{head['vertices']:,}", f"{head['edges']:,}"]
    cells += [f"{ref['sccs']:,}", f"{ref['nontrivial']:,}", f"{ref['largest']:,}"] if ref else ["-"] * 3
    for key in ORDER:
        r = results.get(key)
        if r is None:
            cells.append(f">{timeout}" if ref else "-")
        elif key[0] == "gpu":
            total = r["seconds"] + r["upload_seconds"] + r["download_seconds"]
            cells.append(f"{r['seconds']:.3f} ({total:.3f})")
        else:
            cells.append(f"{r['seconds']:.3f}")
    fb = results.get(("gpu", "fb"))
    if ref and fb:
        total = fb["seconds"] + fb["upload_seconds"] + fb["download_seconds"]
        cells.append(f"{ref['seconds'] / fb['seconds']:.1f}x ({ref['seconds'] / total:.1f}x)")
        cells.append(f"{fb['rounds']} / {fb['levels']}")
    else:
        cells += ["-", "-"]
    return "| " + " | ".join(cells) + " |", bad


HEADER = ("| graph | vertices | edges | SCCs | non-trivial | largest | Tarjan s | CPU FB s | CPU OBF s | CPU Coloring s "
          "| GPU FB s | GPU OBF s | GPU Coloring s | GPU FB vs Tarjan | GPU FB rounds / levels |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default=os.path.join(here, "../target/release/examples/scc_bench"))
    ap.add_argument("--beem", default=os.path.join(here, "../../shared/beem"))
    ap.add_argument("--instances", default=",".join(DEFAULT_INSTANCES))
    ap.add_argument("--sizes", default="1,2,4,8", help="synthetic sizes in Mi vertices")
    ap.add_argument("--families", default="er,rmat,ssca2")
    ap.add_argument("--runs", type=int, default=3, help="GPU runs (median)")
    ap.add_argument("--cpu-runs", type=int, default=1, help="Tarjan and CPU runs (median)")
    ap.add_argument("--skip", default="", help="e.g. cpu-coloring,gpu-coloring")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per graph")
    ap.add_argument("--out")
    ap.add_argument("--from-log", nargs="*", help="make the table from the JSON lines of earlier runs' stderr")
    ap.add_argument("--machine", default=f"{platform.node()}, {os.cpu_count()} cores",
                    help="the CPU side, for the table's header (with --from-log: the machine that ran)")
    args = ap.parse_args()
    logged = {}
    for path in args.from_log or []:
        for line in open(path):
            if line.startswith("{"):
                l = json.loads(line)
                logged.setdefault(l["graph"], []).append(l)

    def measure(spec):
        if args.from_log is not None:
            return logged.get(spec, []), 0
        return run(args.bench, spec, args)

    beem_rows, synthetic_rows, disagreements = [], [], []
    device = "?"
    for inst in [i for i in args.instances.split(",") if i]:
        model = os.path.join(args.beem, inst.rsplit(".", 1)[0], inst + ".dve")
        lines, _ = measure(model)
        device = next((l["device"] for l in lines if "device" in l), device)
        text, bad = row(inst, lines, args.timeout)
        beem_rows.append(text)
        disagreements += [f"{inst}: {b}" for b in bad]
    for family in [f for f in args.families.split(",") if f]:
        for size in [int(s) for s in args.sizes.split(",") if s]:
            lines, _ = measure(f"{family}:{size << 20}")
            device = next((l["device"] for l in lines if "device" in l), device)
            text, bad = row(f"{family} {size}Mi", lines, args.timeout)
            synthetic_rows.append(text)
            disagreements += [f"{family} {size}Mi: {b}" for b in bad]
    lines = [
        f"GPU: {device}; CPU: {args.machine} (all used by the parallel CPU algorithms; "
        f"Tarjan is sequential); {time.strftime('%Y-%m-%d')}. Seconds of the decomposition alone, median of "
        f"{args.runs} GPU runs after a warm-up run and of {args.cpu_runs} CPU run(s); GPU columns: time on the device (kernels and the host's "
        "reads of the control block between them), in brackets with the upload of the graph and the download of "
        "the result. Every answer was checked against Tarjan's partition"
        + (" (all agree)." if not disagreements else f"; DISAGREEMENTS: {disagreements}."),
        "",
        "BEEM state graphs:",
        "",
        HEADER, *beem_rows, "",
        "Synthetic graphs (average degree 12, seed 1; 1 Mi = 1,048,576 vertices):",
        "",
        HEADER, *synthetic_rows,
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
