#!/usr/bin/env python3
"""LTL on the GPU beside the CPU: the models of the thesis's Tables 5.2-5.3 (elevator,
peterson, leader, anderson, bakery, phils, lamport, brp), one run each.

    python3 benches/ltl_gpu.py BEEM_DIR [--threads 16] [--cpu-timeout 60] [--out FILE]

Per property file: the GPU's OWCTY and MAP (`check --backend gpu`: generation with the
adjacency recorded, graph finishing, cycle detection, each timed by CUDA events, and
the whole check's wall clock without the NVRTC compilation, which is reported apart;
`--gpu-memory` of device memory, default 24G);
GPU exploration alone (`explore --backend gpu`, kernel time) to show what recording the
graph costs; the CPU's OWCTY on THREADS threads (the product graph built on them, then
parallel OWCTY). Environment: WARPCHECK (binary, default target/release/warpcheck),
WARPCHECK_CACHE (kernel cache).
"""
import argparse, json, os, subprocess, sys

SET = ["elevator2.3.prop4", "peterson.4.prop4", "leader_filters.5.prop2", "anderson.6.prop3", "bakery.5.prop2",
       "phils.5.prop2", "lamport.6.prop4", "brp.4.prop2"]


def run(binary, args, timeout):
    try:
        out = subprocess.run([binary, *args, "--json", "--quiet"], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"over {timeout} s"
    if out.returncode not in (0, 1):
        return None, f"exit {out.returncode}: {out.stderr.strip()[:200]}"
    return json.loads(out.stdout), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("beem")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--cpu-timeout", type=int, default=60)
    ap.add_argument("--gpu-memory", default="24G")
    ap.add_argument("--out")
    ap.add_argument("--files", nargs="*", default=SET)
    a = ap.parse_args()
    binary = os.environ.get("WARPCHECK", "target/release/warpcheck")
    lines = ["| property file | verdict | product states | transitions | GPU explore s | GPU OWCTY gen+adj / graph / cycle / total s "
             "| GPU MAP cycle / total s (rounds) | compile s | CPU OWCTY graph / total s | CPU/GPU (OWCTY totals) |",
             "|---|---|---:|---:|---:|---|---|---:|---|---:|"]
    for f in a.files:
        model = os.path.join(a.beem, f.split(".")[0], f + ".dve")
        # The first GPU run compiles (and caches) the kernels; the explore run compiles its own.
        gpu = ["--backend", "gpu", "--memory", a.gpu_memory]
        explore, e1 = run(binary, ["explore", model, *gpu], 300)
        owcty, e2 = run(binary, ["check", model, *gpu, "--algorithm", "owcty"], 300)
        mp, e3 = run(binary, ["check", model, *gpu, "--algorithm", "map"], 300)
        cpu, e4 = run(binary, ["check", model, "--backend", "cpu", "--algorithm", "owcty", "-t", str(a.threads)],
                      a.cpu_timeout)
        if owcty is None:
            lines.append(f"| {f} | GPU failed: {e2} | | | | | | | | |")
            print(lines[-1], flush=True)
            continue
        o = owcty
        g = o["gpu"]
        total = o["seconds"] - g["compile_seconds"]
        ex = f"{explore['kernel_seconds']:.3f}" if explore else f"({e1})"
        if mp:
            mg = mp["gpu"]
            map_cell = f"{mg['cycle_seconds']:.3f} / {mp['seconds'] - mg['compile_seconds']:.3f} ({mp['map_rounds']})"
            if mp["verdict"] != o["verdict"]:
                map_cell += " **DISAGREES**"
        else:
            map_cell = e3
        if cpu:
            cpu_cell = f"{cpu['graph_seconds']:.3f} / {cpu['seconds']:.3f}"
            ratio = f"{cpu['seconds'] / max(total, 1e-9):.1f}x"
            if cpu["verdict"] != o["verdict"] or cpu["states"] != o["states"]:
                cpu_cell += " **DISAGREES**"
        else:
            cpu_cell, ratio = e4, ""
        lines.append(
            f"| {f} | {o['verdict']} | {o['states']:,} | {o['transitions']:,} | {ex} | "
            f"{g['generate_seconds']:.3f} / {g['graph_seconds']:.3f} / {g['cycle_seconds']:.3f} / {total:.3f} | "
            f"{map_cell} | {owcty['gpu']['compile_seconds']:.2f} | {cpu_cell} | {ratio} |")
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(text)
    print(text)


if __name__ == "__main__":
    sys.exit(main())
