#!/usr/bin/env python3
"""CPU LTL verdicts of large BEEM property files, one (file, algorithm) pair per process,
or (`--per-file`) one file per process.

The conformance test `beem_ltl` checks every algorithm of a property file in one process,
which a device call's time limit kills halfway through a large file. This driver runs the
same test binary once per pair (`WARPCHECK_LTL_FILES=f WARPCHECK_LTL_ALGORITHMS=a`), so
every finished pair is kept: the test itself compares the verdict with
`ltl-reference.csv` and replays every lasso with a fresh generator; for a file without a
reference the driver compares the algorithms' verdicts with each other.

    python3 benches/ltl_cpu_sweep.py --binary BIN --beem BEEM --files a.4.prop2,b.6.prop3 \\
        --workers 8 --threads 2 --budget 540 --log sweep.jsonl --out sweep.md

With `--per-file`, one process runs every algorithm of a file: the test builds the product
graph once (on `--threads` threads) and runs each OWCTY and MAP variant on it, so a pair's
time is the graph's plus its own; the pairs a killed process finished are still logged.

With `--incremental N`, OWCTY and MAP run on breadth-first prefixes of the product (N,
8N, 64N, ... states) until they find a cycle or the prefix is the whole product
(`WARPCHECK_LTL_INCREMENTAL`); a pair whose cycle was found in a prefix is logged with
`"prefix": true` and its prefix's state count, and its cell says "prefix".

`--log` keeps one JSON line per finished pair and is read again on start, so repeated
calls continue where the last one stopped; `--budget` stops starting pairs after that
many seconds (pairs running then are killed at `--deadline`, default budget + 30 s, and
not logged). Exit status: 0 when every pair of every file is in the log and none failed.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import threading
import time

ALGORITHMS = ["ndfs", "cndfs", "owcty", "owcty-seq", "map", "map-seq"]
# Algorithms that stop at the first cycle: they store only part of a violated product.
ON_THE_FLY = {"ndfs", "cndfs"}
SEQUENTIAL = {"ndfs", "owcty-seq", "map-seq"}
LINE = re.compile(r"(\S+) (\S+): (holds|violated) \((\d+) states, ([\d.]+) s")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", required=True, help="the beem_ltl test binary")
    p.add_argument("--beem", required=True)
    p.add_argument("--files", required=True, help="property files, comma-separated, in the order to run")
    p.add_argument("--algorithms", default=",".join(ALGORITHMS))
    p.add_argument("--workers", type=int, default=os.cpu_count() // 2 or 1, help="pairs at once")
    p.add_argument("--threads", type=int, default=2, help="threads of a parallel algorithm")
    p.add_argument("--budget", type=float, default=540)
    p.add_argument("--deadline", type=float)
    p.add_argument("--log", required=True)
    p.add_argument("--out", help="markdown table of every file in the log")
    p.add_argument("--host", default=os.uname().nodename, help="the machine's name in the log")
    p.add_argument("--per-file", action="store_true", help="one process per file, the graph built once")
    p.add_argument("--incremental", type=int, help="OWCTY and MAP on growing prefixes, the first of N states")
    a = p.parse_args()
    deadline = a.deadline or a.budget + 30
    references = {r["property_file"]: r["reference_answer"] == "yes"
                  for r in csv.DictReader(open(os.path.join(a.beem, "ltl-reference.csv")))}
    files = [f.strip() for f in a.files.split(",") if f.strip()]
    algorithms = a.algorithms.split(",")
    done = {}
    if os.path.exists(a.log):
        for line in open(a.log):
            r = json.loads(line)
            done[(r["file"], r["algorithm"])] = r
    todo = [(f, alg) for f in files for alg in algorithms if (f, alg) not in done]
    if a.budget >= 0:
        print(f"{len(todo)} pairs to run, {len(done)} in the log", file=sys.stderr, flush=True)
    start = time.time()
    lock = threading.Lock()
    running = []

    def run(f, algs):
        """Runs `algs` of file `f` in one process; the records of the pairs it finished."""
        test = "all_property_files" if f in references else "property_files_without_a_reference_agree"
        threads = 1 if all(alg in SEQUENTIAL for alg in algs) and not a.per_file else a.threads
        env = dict(os.environ, WARPCHECK_BEEM=a.beem, WARPCHECK_LTL_FILES=f, WARPCHECK_LTL_ALGORITHMS=",".join(algs),
                   WARPCHECK_LTL_THREADS=str(threads), WARPCHECK_LTL_JOBS="1")
        if a.incremental:
            env["WARPCHECK_LTL_INCREMENTAL"] = str(a.incremental)
        proc = subprocess.Popen([a.binary, "--ignored", "--nocapture", "--test-threads", "1", test],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        with lock:
            running.append(proc)
        killed = False
        try:
            out, _ = proc.communicate(timeout=max(1, deadline - (time.time() - start)))
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
            killed = True
        finally:
            with lock:
                running.remove(proc)
        records = []
        for alg in algs:
            match = next((m for m in LINE.finditer(out) if m.group(1) == f and m.group(2) == alg), None)
            if killed and match is None:
                continue
            verdict = match.group(3) if match else None
            agrees = f not in references or verdict == ("holds" if references[f] else "violated")
            # A killed process did not finish its own checks: its printed lines are
            # each a replayed lasso or a verdict, compared with the reference here.
            record = {"file": f, "algorithm": alg,
                      "ok": match is not None and agrees and (killed or proc.returncode == 0),
                      "verdict": verdict, "states": int(match.group(4)) if match else None,
                      "seconds": float(match.group(5)) if match else None, "reference": references.get(f),
                      "host": a.host, "threads": 1 if alg in SEQUENTIAL and not a.per_file else a.threads}
            line = re.search(re.escape(f"{f} {alg}: ") + r".*", out)
            graph = line and re.search(r"graph ([\d.]+) s", line.group(0))
            if graph:
                record["graph_seconds"] = float(graph.group(1))
            if line and "in a prefix" in line.group(0):
                record["prefix"] = True
            if not record["ok"]:
                record["error"] = out[-2000:]
            records.append(record)
        return records

    if a.per_file:
        queue = [(f, [alg for g, alg in todo if g == f]) for f in dict.fromkeys(f for f, _ in todo)]
    else:
        queue = [(f, [alg]) for f, alg in todo]

    def worker():
        while True:
            with lock:
                if not queue or time.time() - start > a.budget:
                    return
                f, algs = queue.pop(0)
            for record in run(f, algs):
                with lock:
                    done[(f, record["algorithm"])] = record
                    with open(a.log, "a") as log:
                        log.write(json.dumps(record) + "\n")
                    print(f"{f} {record['algorithm']}: {record['verdict']} ({record['states']} states, "
                          f"{record['seconds']} s)" + ("" if record["ok"] else " FAILED"), file=sys.stderr, flush=True)

    threads = [threading.Thread(target=worker) for _ in range(max(1, a.workers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    failures = []
    complete = 0
    rows = ["| property file | reference | " + " | ".join(algorithms) + " | product states | host |",
            "|---|---|" + "---|" * len(algorithms) + "---:|---|"]
    for f in files:
        records = [done.get((f, alg)) for alg in algorithms]
        verdicts = {r["verdict"] for r in records if r and r["ok"]}
        bad = [r for r in records if r and not r["ok"]]
        if len(verdicts) > 1:
            failures.append(f"{f}: the algorithms disagree")
        failures += [f"{f} {r['algorithm']}: failed" for r in bad]
        complete += all(records)
        states = {r["states"] for r in records if r and r["ok"] and not r.get("prefix")
                  and (r["algorithm"] not in ON_THE_FLY or r["verdict"] == "holds")}
        if len(states) > 1:
            failures.append(f"{f}: the algorithms count different products {sorted(states)}")
        prefixes = {r["states"] for r in records if r and r["ok"] and r.get("prefix")}
        reference = references.get(f)
        cells = [f, "-" if reference is None else ("holds" if reference else "violated")]
        cells += ["not run" if r is None else
                  (f"{r['verdict']} ({r['seconds']:.1f} s{', prefix' if r.get('prefix') else ''})" if r["ok"]
                   else "FAILED")
                  for r in records]
        cells.append(", ".join([str(s) for s in sorted(states)] + [f"prefix {s}" for s in sorted(prefixes)]) or "-")
        cells.append(", ".join(sorted({r.get("host", "?") for r in records if r})))
        rows.append("| " + " | ".join(cells) + " |")
    table = "\n".join(rows) + "\n"
    if a.out:
        open(a.out, "w").write(table)
    print(f"{complete} of {len(files)} files complete with {len(algorithms)} algorithms; "
          f"{len(failures)} failures", file=sys.stderr)
    for line in failures:
        print(line, file=sys.stderr)
    sys.exit(1 if failures or complete < len(files) else 0)


if __name__ == "__main__":
    main()
