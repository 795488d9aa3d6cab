#!/usr/bin/env python3
"""The GPU benchmark set of shared/docs/benchmarks.md on the GPU engine, beside the CPU
engine on all cores of the same machine, in one run.

    python3 benches/gpu_set.py BEEM_DIR [--runs 3] [--threads 16] [--out FILE]

Per instance: NVRTC compile time (first run, uncached), search time (median of RUNS
cached runs), states/s, time inside the expansion kernels, time of successor
generation alone (a --profile run), device bytes per state, and the CPU engine's time
(one run, THREADS threads). Environment: WARPCHECK (binary, default
target/release/warpcheck), WARPCHECK_CACHE (kernel cache; emptied first).
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile

SET = ["anderson.3", "lamport.8", "mcs.5", "brp.6", "collision.4", "iprotocol.6", "at.5", "bakery.7",
       "leader_filters.7", "frogs.4"]


def run(binary, model, *extra):
    out = subprocess.run([binary, "explore", model, "--json", "--quiet", *extra], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{model}: exit {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("beem")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--out")
    ap.add_argument("--instances", nargs="*", default=SET)
    a = ap.parse_args()
    binary = os.environ.get("WARPCHECK", "target/release/warpcheck")
    cache = os.environ.setdefault("WARPCHECK_CACHE", tempfile.mkdtemp(prefix="warpcheck-cache-"))
    shutil.rmtree(cache, ignore_errors=True)
    lines = ["| instance | states | compile s | search s | M states/s | kernels s | generation s | bytes/state "
             "| CPU s | CPU M states/s | GPU/CPU |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for inst in a.instances:
        model = os.path.join(a.beem, inst.rsplit(".", 1)[0], inst + ".dve")
        # anderson.3's reference row follows LTSmin's compiled model, where a byte wraps.
        overflow = ["--overflow", "wrap"] if inst == "anderson.3" else []
        first = run(binary, model, "--backend", "gpu", *overflow)
        runs = [run(binary, model, "--backend", "gpu", *overflow) for _ in range(a.runs)]
        search = statistics.median(r["explore_seconds"] for r in runs)
        kernels = statistics.median(r["kernel_seconds"] for r in runs)
        prof = run(binary, model, "--backend", "gpu", "--profile", *overflow)
        cpu = run(binary, model, "--backend", "cpu", "--threads", str(a.threads), "--memory", "32G", *overflow)
        assert cpu["states"] == first["states"] and cpu["transitions"] == first["transitions"], inst
        rate = first["states"] / search
        cpu_rate = cpu["states"] / cpu["seconds"]
        lines.append(f"| {inst} | {first['states']:,} | {first['compile_seconds']:.2f} | {search:.3f} | "
                     f"{rate / 1e6:.0f} | {kernels:.3f} | {prof['generate_seconds']:.3f} | "
                     f"{first['bytes_per_state']:.1f} | {cpu['seconds']:.2f} | {cpu_rate / 1e6:.1f} | "
                     f"{rate / cpu_rate:.1f}x |")
        print(lines[-1], flush=True)
    device = first.get("device", "?")
    text = f"GPU: {device}; CPU engine: {a.threads} threads of the same machine.\n\n" + "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
