#!/usr/bin/env python3
"""SCC benchmark on a GPU machine: Tarjan, the parallel CPU algorithms (all cores) and
the GPU algorithms (FB with trimming, OBF, Coloring, FB handing over to Coloring) on
BEEM state graphs (built by the GPU engine on the device) and on the synthetic families
of the thesis's Table 6.1 (Erdos-Renyi, R-MAT, SSCA#2, average degree 12), every answer
checked against Tarjan's partition and every state graph's size against reference.csv.
Runs the example `scc_bench` (crates/gpu/examples/scc_bench.rs) once per graph and
writes a markdown table.

Usage: python3 benches/scc_gpu.py [--bench BINARY] [--beem DIR] [--instances A,B]
         [--sizes 1,2,4,8] [--families er,rmat,ssca2] [--runs 3] [--cpu-runs 1] [--skip ...]
         [--timeout S] [--log FILE [--budget S]] [--from-log FILE...] [--out FILE]
Build first: cargo build --release -p warpcheck-gpu --example scc_bench

With --log, the JSON lines of every graph are appended to FILE and graphs already in it
are not run again; with --budget, no graph starts after S seconds. So the same command,
run again until it says nothing is left, measures a set larger than one time box (each
run makes the table of everything logged so far).
"""
import argparse, csv, json, os, platform, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from gpu_set import SET  # noqa: E402  (the ten instances of the GPU set)

# The GPU set, and brp.4: high diameter (1.7 M SCCs in long chains), FB's worst case.
DEFAULT_INSTANCES = SET + ["brp.4"]
ORDER = [("cpu", "tarjan"), ("cpu", "fb"), ("cpu", "obf"), ("cpu", "coloring"),
         ("gpu", "fb"), ("gpu", "obf"), ("gpu", "coloring"), ("gpu", "fb-coloring")]
HEADER = ("| graph | vertices | edges | SCCs | non-trivial | largest | build s | Tarjan s | CPU FB s | CPU OBF s "
          "| CPU Coloring s | GPU FB s | GPU OBF s | GPU Coloring s | GPU FB-Coloring s | GPU FB vs Tarjan "
          "| GPU FB-Coloring vs Tarjan | GPU FB rounds / levels | GPU FB-Coloring rounds (Coloring from) |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def run(bench, spec, extra, args):
    """The JSON lines of one graph (whatever came before a timeout)."""
    cmd = [bench, "--runs", str(args.runs), "--cpu-runs", str(args.cpu_runs), *extra, spec]
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
    return lines


def gpu_total(r):
    return r["seconds"] + r["upload_seconds"] + r["download_seconds"]


def row(name, lines, args):
    head = next((l for l in lines if "vertices" in l and "algorithm" not in l), None)
    if head is None:
        return f"| {name} | (no result) |", []
    results = {(l["backend"], l["algorithm"]): l for l in lines if "algorithm" in l}
    bad = [f"{b} {a}" for (b, a), l in results.items() if not l["agrees"]]
    ref = results.get(("cpu", "tarjan"))
    cells = [name, f"{head['vertices']:,}", f"{head['edges']:,}"]
    cells += [f"{ref['sccs']:,}", f"{ref['nontrivial']:,}", f"{ref['largest']:,}"] if ref else ["-"] * 3
    cells.append(f"{head['build_seconds']:.2f}")
    for key in ORDER:
        r = results.get(key)
        if r is None:
            skipped = f"{key[0]}-{key[1]}" in args.skip.split(",")
            cells.append(f">{args.timeout}" if ref and not skipped else "-")
        elif key[0] == "gpu":
            cells.append(f"{r['seconds']:.3f} ({gpu_total(r):.3f})")
        else:
            cells.append(f"{r['seconds']:.3f}")
    fb, hybrid = results.get(("gpu", "fb")), results.get(("gpu", "fb-coloring"))
    for r in (fb, hybrid):
        cells.append(f"{ref['seconds'] / r['seconds']:.1f}x ({ref['seconds'] / gpu_total(r):.1f}x)"
                     if ref and r else "-")
    cells.append(f"{fb['rounds']} / {fb['levels']}" if fb else "-")
    if hybrid:
        start = hybrid.get("coloring_from_round")
        cells.append(f"{hybrid['rounds']} ({start if start is not None else 'none'})")
    else:
        cells.append("-")
    return "| " + " | ".join(cells) + " |", bad


def references(beem):
    path = os.path.join(beem, "reference.csv")
    return {r["instance"]: r for r in csv.DictReader(open(path))} if os.path.exists(path) else {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default=os.path.join(here, "../target/release/examples/scc_bench"))
    ap.add_argument("--beem", default=os.path.join(here, "../../shared/beem"))
    ap.add_argument("--instances", default=",".join(DEFAULT_INSTANCES))
    ap.add_argument("--sizes", default="1,2,4,8", help="synthetic sizes in Mi vertices")
    ap.add_argument("--families", default="er,rmat,ssca2")
    ap.add_argument("--runs", type=int, default=3, help="GPU runs (median)")
    ap.add_argument("--cpu-runs", type=int, default=1, help="Tarjan and CPU runs (median)")
    ap.add_argument("--skip", default="", help="e.g. cpu-coloring,gpu-coloring")
    ap.add_argument("--timeout", type=int, default=150, help="seconds per graph")
    ap.add_argument("--log", help="append the JSON lines here; graphs already in it are not run again")
    ap.add_argument("--budget", type=float, help="seconds after which no graph starts (with --log)")
    ap.add_argument("--out")
    ap.add_argument("--from-log", nargs="*", help="make the table from the JSON lines of earlier runs")
    ap.add_argument("--machine", default=f"{platform.node()}, {os.cpu_count()} cores",
                    help="the CPU side, for the table's header (with --from-log: the machine that ran)")
    args = ap.parse_args()
    start = time.time()
    logged = {}
    for path in (args.from_log or []) + ([args.log] if args.log and os.path.exists(args.log) else []):
        for line in open(path):
            if line.startswith("{"):
                l = json.loads(line)
                logged.setdefault(l["graph"], []).append(l)
    left = []

    def measure(spec, extra=()):
        if args.from_log is not None or spec in logged:
            return logged.get(spec, [])
        if args.budget is not None and time.time() - start > args.budget:
            left.append(spec)
            return []
        lines = run(args.bench, spec, list(extra), args)
        if args.log:
            with open(args.log, "a") as f:
                f.writelines(json.dumps(l) + "\n" for l in lines)
        return lines

    reference = references(args.beem)
    beem_rows, synthetic_rows, disagreements = [], [], []
    device = "?"
    for inst in [i for i in args.instances.split(",") if i]:
        model = os.path.join(args.beem, inst.rsplit(".", 1)[0], inst + ".dve")
        ref = reference.get(inst)
        # The overflow rule of the reference's tool (as tests/src/lib.rs): LTSmin wraps.
        wrap = ref is not None and ref["source"].startswith("ltsmin")
        lines = measure(model, ["--overflow", "wrap"] if wrap else [])
        device = next((l["device"] for l in lines if "device" in l), device)
        text, bad = row(inst, lines, args)
        head = next((l for l in lines if "vertices" in l and "algorithm" not in l), None)
        if ref and head and (head["vertices"], head["edges"]) != (int(ref["states"]), int(ref["transitions"])):
            bad.append(f"state graph of {head['vertices']} vertices and {head['edges']} edges, reference "
                       f"{ref['states']} states and {ref['transitions']} transitions")
        beem_rows.append(text)
        disagreements += [f"{inst}: {b}" for b in bad]
    for family in [f for f in args.families.split(",") if f]:
        for size in [int(s) for s in args.sizes.split(",") if s]:
            lines = measure(f"{family}:{size << 20}")
            device = next((l["device"] for l in lines if "device" in l), device)
            text, bad = row(f"{family} {size}Mi", lines, args)
            synthetic_rows.append(text)
            disagreements += [f"{family} {size}Mi: {b}" for b in bad]
    lines = [
        f"GPU: {device}; CPU: {args.machine} (all used by the parallel CPU algorithms; "
        f"Tarjan is sequential); {time.strftime('%Y-%m-%d')}. Seconds of the decomposition alone, median of "
        f"{args.runs} GPU runs after a warm-up run and of {args.cpu_runs} CPU run(s); GPU columns: time on the "
        "device (kernels and the host's reads of the control block between them), in brackets with the upload of "
        "the graph and the download of the result. \"build s\": the state graph built by the GPU engine (NVRTC, "
        "exploration, copy to the host) or the synthetic graph generated. Every answer was checked against "
        "Tarjan's partition"
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
    if left:
        print(f"{len(left)} graphs left (the budget ran out): run the same command again", file=sys.stderr)
        sys.exit(3)
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
