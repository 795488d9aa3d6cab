#!/usr/bin/env python3
"""The IPC-2008 problems with a known optimum that warpcheck solved at that optimum in
the coverage runs of benches/results: A* with LM-cut on one thread
(planning-coverage-h200.md, its per-problem table) and the GPU's blind search (the
`gpu` lines of the planning-gpu-*.txt files: backend domain problem optimum exit
seconds search_seconds cost states).
Usage: benches/scripts/plan-union.py PLANNING_DIR"""
import csv, glob, os, re, sys

results = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results")
optimum = {(r["domain"], r["problem"].removesuffix(".pddl")): r["optimal_cost"]
           for r in csv.DictReader(open(os.path.join(sys.argv[1], "results", "ipc2008-opt.csv")))
           if r["optimal_cost"]}
astar = set()
for line in open(os.path.join(results, "planning-coverage-h200.md")):
    m = re.match(r"\| (\S+) \| (p\d+) \| (\d+) \| ([\d.]+|-) \|", line)
    if m and m.group(4) != "-" and optimum.get((m.group(1), m.group(2))) == m.group(3):
        astar.add((m.group(1), m.group(2)))
gpu = set()
for path in sorted(glob.glob(os.path.join(results, "planning-gpu-*.txt"))):
    for line in open(path):
        f = line.split()
        if len(f) >= 9 and f[0] == "gpu":
            key = (f[1], f[2].removesuffix(".pddl"))
            if key in optimum and f[7] == optimum[key]:
                gpu.add(key)
print(f"A* (one thread, 60 s): {len(astar)}; GPU: {len(gpu)}; either: {len(astar | gpu)} of {len(optimum)}")
print("A* only:", " ".join(f"{d} {p}" for d, p in sorted(astar - gpu)))
print("GPU only:", " ".join(f"{d} {p}" for d, p in sorted(gpu - astar)))
