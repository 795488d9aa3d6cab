#!/usr/bin/env bash
# The puzzle BFS on the GPU beside the CPU on all threads; prints CSV. Usage:
#   benches/scripts/puzzles-gpu.sh [WARPCHECK_BINARY] [GAMES_DIR] [THREADS]
# (defaults: target/release/warpcheck, ../shared/games, all cores).
#
# First every computed row of sliding_tile.csv, topspin.csv, pancake.csv and
# frogs_and_toads.csv up to 20 M states on the GPU only (validation: kind=check), then the benchmark instances on the
# GPU and on the CPU (kind=bench). `*_vs_csv`: `equal`, `DIFFERENT` or `no-row` (the
# CSV has no computed layers for it); `gpu_eq_cpu`: the two runs' layers agree.
# `gpu_s` is the whole GPU run (device start, NVRTC or its cache, the levels),
# `gpu_kernel_s` the levels on the device; `gpu_states_per_s` = states / gpu_kernel_s;
# `speedup` = cpu_s / gpu_s, `speedup_kernel` = cpu_s / gpu_kernel_s.
# PUZZLES_BENCH="sliding-tile:3x4 pancake:11 frogs-and-toads:" replaces the benchmark list; PUZZLES_CHECK=0
# skips the validation rows; PUZZLES_ALGORITHM=one-bit-alternation runs the sliding-tile
# instances with that `--algorithm` on both sides (the one-bit search on the GPU).
set -uo pipefail
W=${1:-target/release/warpcheck}
GAMES=${2:-../shared/games}
THREADS=${3:-$(nproc)}
exec python3 - "$W" "$GAMES" "$THREADS" <<'PY'
import csv, json, os, subprocess, sys
w, games, threads = sys.argv[1], sys.argv[2], sys.argv[3]
FILES = {"sliding-tile": "sliding_tile.csv", "top-spin": "topspin.csv", "pancake": "pancake.csv",
         "fore-and-aft": "frogs_and_toads.csv", "frogs-and-toads": "frogs_and_toads.csv",
         "peg-solitaire": "peg_solitaire.csv"}

# The frogs' and peg solitaire's rows are named by the puzzle ("Fore-and-Aft (5x5, ...)"),
# which takes no size; peg solitaire's first row counts all positions.
PREFIX = {"fore-and-aft": "Fore-and-Aft", "frogs-and-toads": "Frogs-and-Toads",
          "peg-solitaire": "English 33-hole, centre vacant (all positions)"}

def rows(family):
    with open(f"{games}/{FILES[family]}") as f:
        for r in csv.DictReader(f):
            if not (r["source"].startswith("computed-here") and r["layer_sizes"]):
                continue
            if family in PREFIX and not r["instance"].startswith(PREFIX[family]):
                continue
            inst = "" if family in PREFIX else r["instance"].strip("()")
            yield inst, int(r["total_states"]), [int(x) for x in r["layer_sizes"].split()]

def run(family, size, backend):
    args = [w, "puzzle", family] + ([size] if size else []) + ["--backend", backend, "--json", "--quiet"]
    if family == "sliding-tile" and os.environ.get("PUZZLES_ALGORITHM"):
        args += ["--algorithm", os.environ["PUZZLES_ALGORITHM"]]
    if backend == "cpu":
        args += ["--threads", threads]
    p = subprocess.run(args, capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]}
    return json.loads(p.stdout)

def vs(r, want):
    if "error" in r:
        return "ERROR: " + r["error"].replace(",", ";")
    if want is None:
        return "no-row"
    return "equal" if r["layers"] == want else "DIFFERENT"

def fmt(x):
    return "" if x is None else (f"{x:.4f}" if isinstance(x, float) else str(x))

print("kind,instance,states,depth,gpu_s,gpu_kernel_s,gpu_states_per_s,cpu_threads,cpu_s,speedup,speedup_kernel,gpu_vs_csv,cpu_vs_csv,gpu_eq_cpu", flush=True)
for family in FILES if os.environ.get("PUZZLES_CHECK", "1") != "0" else []:
    for inst, total, layers in rows(family):
        if total > 20_000_000:
            continue
        g = run(family, inst, "gpu")
        print(f"check,\"{family} {inst}\",{fmt(g.get('states'))},{fmt(g.get('depth'))},{fmt(g.get('seconds'))},"
              f"{fmt(g.get('gpu_seconds'))},,,,,,{vs(g, layers)},,", flush=True)

BENCH = [("sliding-tile", "3x4"), ("sliding-tile", "2x6"), ("pancake", "11"), ("pancake", "12"), ("top-spin", "12,4")]
if os.environ.get("PUZZLES_BENCH"):
    BENCH = [tuple(x.split(":", 1)) for x in os.environ["PUZZLES_BENCH"].split()]
for family, size in BENCH:
    want = next((l for i, _, l in rows(family) if i == size), None)
    g, c = run(family, size, "gpu"), run(family, size, "cpu")
    gk, cs = g.get("gpu_seconds"), c.get("seconds")
    rate = g["states"] / gk if gk else None
    speed = cs / g["seconds"] if cs and g.get("seconds") else None
    speed_k = cs / gk if cs and gk else None
    same = "yes" if "layers" in g and g.get("layers") == c.get("layers") else "NO"
    print(f"bench,\"{family} {size}\",{fmt(g.get('states'))},{fmt(g.get('depth'))},{fmt(g.get('seconds'))},{fmt(gk)},"
          f"{fmt(rate and round(rate))},{threads},{fmt(cs)},{fmt(speed)},{fmt(speed_k)},{vs(g, want)},{vs(c, want)},{same}", flush=True)
PY
