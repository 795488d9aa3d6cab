#!/usr/bin/env python3
"""Probabilistic checking on the GPU and the CPU, two jobs (each prints a Markdown table):

  agree BIN MARKOV_DIR [--threads T]
      Every instance of reference.json and reference-ctmc-rewards.json built from its
      PRISM source (with its extra labels and constants) and every reference property
      checked with --backend cpu and --backend gpu: the two answers must agree within
      the precision with overlapping bounds, with --sweeps jacobi they must be equal
      (value, bounds, method and sweeps), and the CPU's must be within
      1e-6 of the reference (relative above 1; or 1e-5 relative for Storm's
      floating-point CTMC values).

  bench BIN MARKOV_DIR [--threads T] [--set reference|bigger|all] [--only NAME,..] [--storm-timeout S] [--no-storm]
      The largest instances and bigger builds of the same sources beside Storm
      (stormpy, storm_check.py beside this script) on the same machine, one run each:
      checking time per property (model building excluded) of Storm's default and,
      for unbounded properties, sound modes, and of warpcheck's sound default and
      --method vi on T CPU threads and on the GPU; the GPU's matrix entries per second
      in its sweeps (uploads included).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (instance folder, constants, properties); the reference sizes first, then bigger builds.
BENCH = [
    ("dtmc/nand-40-1", "N=40,K=1", ['P=? [F "reliable_goal"]'], "reference"),
    ("mdp/resource-gathering-1300-100-100", "B=1300,GOLD_TO_COLLECT=100,GEM_TO_COLLECT=100",
     ['Pmax=? [F<=1300 "success"]', 'Pmax=? [F "success"]', 'Pmin=? [F "success"]'], "reference"),
    ("mdp/zeroconf-20-2-false", "reset=false,N=20,K=2", ['Pmax=? [F "correct_goal"]', 'Pmin=? [F "correct_goal"]'],
     "reference"),
    ("mdp/consensus-4-2", "K=2", ['Pmin=? [F "finished"]', 'Pmin=? [F "c2_goal"]', 'Pmax=? [F "disagree_goal"]'],
     "reference"),
    ("ctmc/tandem-1023", "c=1023", ['P=? [F<=0.2 "first_queue_full"]', 'R{"customers"}=? [C<=0.2]'], "reference"),
    ("ctmc/cluster-64", "N=64", ['P=? [F<=100 "not_minimum"]', 'R{"time_not_min"}=? [C<=100]'], "reference"),
    ("dtmc/nand-40-1", "N=60,K=1", ['P=? [F "reliable_goal"]'], "bigger"),
    ("mdp/consensus-4-2", "K=16", ['Pmin=? [F "finished"]', 'Pmin=? [F "c2_goal"]', 'Pmax=? [F "disagree_goal"]'],
     "bigger"),
    ("mdp/zeroconf-20-2-false", "reset=false,N=40,K=4", ['Pmax=? [F "correct_goal"]', 'Pmin=? [F "correct_goal"]'],
     "bigger"),
    ("ctmc/tandem-1023", "c=2047", ['P=? [F<=0.2 "first_queue_full"]'], "bigger"),
    ("mdp/resource-gathering-1300-100-100", "B=3000,GOLD_TO_COLLECT=200,GEM_TO_COLLECT=200",
     ['Pmax=? [F<=1300 "success"]', 'Pmax=? [F "success"]'], "bigger"),
]

SOURCE_SUFFIXES = (".prism", ".pm", ".nm", ".sm")


def source(markov, folder):
    """The instance's PRISM source with its extra labels, written to /tmp; its type."""
    d = os.path.join(markov, folder)
    srcs = [f for f in sorted(os.listdir(d)) if f.endswith(SOURCE_SUFFIXES) and f != "extra_labels.prism"]
    if not srcs:
        return None, folder.split("/")[0]
    text = open(os.path.join(d, srcs[0])).read()
    extra = os.path.join(d, "extra_labels.prism")
    if os.path.exists(extra):
        text = text.rstrip("\n") + "\n\n" + open(extra).read()
    os.makedirs("/tmp/wc-markov-check", exist_ok=True)
    path = os.path.join("/tmp/wc-markov-check", folder.replace("/", "-") + os.path.splitext(srcs[0])[1])
    open(path, "w").write(text)
    return path, folder.split("/")[0]


def warpcheck(binary, path, constants, props, backend, threads, method="sound", timeout=900, jacobi=False):
    """One JSON object per property, or an error text."""
    cmd = [binary, "check", path, "--backend", backend, "--threads", str(threads), "--json", "--method", method]
    if jacobi:
        cmd += ["--sweeps", "jacobi"]
    if constants:
        cmd += ["--const", constants]
    for p in props:
        cmd += ["--property", p]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"timeout {timeout} s"
    if out.returncode != 0:
        return (out.stderr.strip() or f"exit {out.returncode}")[-300:]
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def agree(binary, markov, threads):
    print("| instance | type | properties | CPU ~ GPU; with Jacobi sweeps CPU = GPU (bits, sweeps) | within reference (CPU) |")
    print("|---|---|---:|---|---|")
    total, equal, within = 0, 0, 0
    for file in ["reference.json", "reference-ctmc-rewards.json"]:
        for inst in json.load(open(os.path.join(markov, file)))["instances"]:
            src = inst["source"]["model_file"]
            path, kind = source(markov, os.path.dirname(src))
            if path is None:
                print(f"| {inst['id']} | {kind} | | no PRISM source ({inst['source']['language']}) | |")
                continue
            props = [p["formula"] for p in inst["properties"]]
            runs = {b: warpcheck(binary, path, inst["source"]["constants"], props, b, threads) for b in ("cpu", "gpu")}
            if any(isinstance(r, str) for r in runs.values()):
                print(f"| {inst['id']} | {kind} | {len(props)} | ERROR: {runs} | |")
                continue
            # In place (the default) the iterates depend on the threads' timing: the
            # answers agree within the precision (1e-6), with overlapping bounds. With
            # Jacobi sweeps the GPU equals the CPU bit for bit.
            c = inst["source"]["constants"]
            jacobi = [warpcheck(binary, path, c, props, b, threads, jacobi=True) for b in ("cpu", "gpu")]
            if any(isinstance(r, str) for r in jacobi):
                print(f"| {inst['id']} | {kind} | {len(props)} | ERROR: {jacobi} | |")
                continue
            same = sum(1 for a, b, j, k in zip(runs["cpu"], runs["gpu"], *jacobi)
                       if abs(a["value"] - b["value"]) <= 2e-6 * max(abs(a["value"]), 1.0)
                       and a["lower"] <= b["upper"] * (1 + 1e-12) and b["lower"] <= a["upper"] * (1 + 1e-12)
                       and all(j[f] == k[f] for f in ("value", "lower", "upper", "method", "iterations")))
            ok = 0
            for p, r in zip(inst["properties"], runs["cpu"]):
                # Several initial states: the reported value is their minimum.
                ref = min(p["value"]) if isinstance(p["value"], list) else p["value"]
                tol = 1e-6 * max(abs(ref), 1.0)
                if kind == "ctmc" and p["reference_source"] != "exact":
                    tol = max(tol, 1e-5 * abs(ref))
                ok += abs(r["value"] - ref) <= tol or r["value"] == ref
            total += len(props)
            equal += same
            within += ok
            print(f"| {inst['id']} | {kind} | {len(props)} | {same}/{len(props)} | {ok}/{len(props)} |", flush=True)
    print(f"\n{equal} of {total} properties agree on CPU and GPU; {within} of {total} within the reference's precision.")


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}f}"


def bench(binary, markov, threads, which, storm_timeout, with_storm, only):
    print(f"| model | constants | states | transitions | property | Storm default s | Storm sound s | "
          f"CPU {threads} thr. sound s | CPU vi s | GPU sound s | GPU vi s | CPU vs Storm | GPU vs Storm | "
          f"sweeps (GPU sound) | GPU G entries/s | value (GPU) | Storm value |")
    print("|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for folder, constants, props, group in BENCH:
        if (which != "all" and group != which) or (only and folder.split("/")[1] not in only):
            continue
        path, kind = source(markov, folder)
        storm = {}
        info = {}
        if with_storm:
            cmd = [sys.executable, os.path.join(HERE, "storm_check.py"), path, constants, kind, "--sound-unbounded",
                   "--timeout", str(storm_timeout)] + props
            try:
                out = subprocess.run(cmd, capture_output=True, text=True, timeout=storm_timeout * 2 * len(props) + 300)
                for line in out.stdout.splitlines():
                    if not line.startswith("{"):
                        continue
                    d = json.loads(line)
                    if "property" in d:
                        storm[(d["property"], d["method"])] = d
                    else:
                        info = d
                if not info:
                    print(f"<!-- storm failed on {folder} {constants}: {out.stderr[-300:]} -->", flush=True)
            except subprocess.TimeoutExpired:
                print(f"<!-- storm timed out on {folder} {constants} -->", flush=True)
        runs = {(b, m): warpcheck(binary, path, constants, props, b, threads, m)
                for b in ("cpu", "gpu") for m in ("sound", "vi")}
        for i, prop in enumerate(props):
            def get(b, m, key):
                r = runs[(b, m)]
                return None if isinstance(r, str) else r[i][key]
            errors = [f"{k}: {v}" for k, v in runs.items() if isinstance(v, str)]
            sd = storm.get((prop, "default"), {}).get("seconds")
            ss = storm.get((prop, "sound"), {}).get("seconds")
            cpu, gpu = get("cpu", "sound", "seconds"), get("gpu", "sound", "seconds")
            up = lambda w: "-" if (w is None or sd is None or w <= 0) else f"{sd / w:.1f}x"
            entries, sweep_s = get("gpu", "sound", "swept_entries"), get("gpu", "sound", "sweep_seconds")
            rate = "-" if not entries or not sweep_s else f"{entries / sweep_s / 1e9:.1f}"
            states = info.get("states", "")
            print(f"| {folder.split('/')[1]} | {constants} | {states} | {info.get('transitions', '')} | `{prop}` | "
                  f"{fmt(sd)} | {fmt(ss)} | {fmt(cpu)} | {fmt(get('cpu', 'vi', 'seconds'))} | {fmt(gpu)} | "
                  f"{fmt(get('gpu', 'vi', 'seconds'))} | {up(cpu)} | {up(gpu)} | {get('gpu', 'sound', 'iterations')} | "
                  f"{rate} | {get('gpu', 'sound', 'value')} | {storm.get((prop, 'default'), {}).get('value')} |"
                  + (f" {'; '.join(errors)}" if errors else ""), flush=True)


def main():
    args = sys.argv[1:]

    def option(name, default):
        if name in args:
            i = args.index(name)
            value = args[i + 1]
            del args[i:i + 2]
            return value
        return default

    threads = int(option("--threads", "16"))
    which = option("--set", "all")
    storm_timeout = float(option("--storm-timeout", "150"))
    only = option("--only", "")
    only = only.split(",") if only else []
    with_storm = "--no-storm" not in args
    args = [a for a in args if a != "--no-storm"]
    job, binary, markov = args[0], args[1], args[2]
    if job == "agree":
        agree(binary, markov, threads)
    else:
        bench(binary, markov, threads, which, storm_timeout, with_storm, only)


if __name__ == "__main__":
    main()
