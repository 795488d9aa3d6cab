#!/usr/bin/env bash
# Optimal planning coverage beside current planners, in one run on one machine: every
# IPC-2008 sequential-optimal problem with a known optimum (`results/ipc2008-opt.csv`),
# each planner in turn, JOBS problems at a time, one thread each, SECONDS per problem
# (parsing, grounding or translation, and search).
#   warpcheck: `warpcheck plan --threads 1` (A* with LM-cut);
#   lmcut:     Fast Downward, astar(lmcut());   symk: SymK, sym_bd().
# PLANNERS holds fd/ and symk/: the `downward` trees of the PyPI wheels
# `up-fast-downward` 1.0.0 and `up-symk` 1.6.0, unzipped (pip download --no-deps).
# Writes OUT/results.txt (plan-one.sh's lines), OUT/logs.tgz and a summary.
# Usage: benches/scripts/plan-coverage.sh BIN PLANNERS PLANNING_DIR OUT SECONDS JOBS PLANNER...
set -u
B=$1 PL=$2 PD=$3 O=$4 T=$5 J=$6
shift 6
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$O/logs"
python3 - "$PD/results/ipc2008-opt.csv" > "$O/jobs.txt" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["optimal_cost"]:
        print(r["domain"], r["domain_file"], r["problem"], r["optimal_cost"])
PY
for P in "$@"; do
  s=$(date +%s)
  awk -v p="$P" '{print p, $1, $2, $3, $4}' "$O/jobs.txt" \
    | xargs -P "$J" -L 1 bash "$S/plan-one.sh" "$B" "$PL" "$T" "$O/logs" "$PD/ipc2008-opt" >> "$O/results.txt"
  echo "$P: $(( $(date +%s) - s )) s"
done
tar czf "$O/logs.tgz" -C "$O" logs && rm -rf "$O/logs"
awk '{ if ($7 != "None") s[$1]++; if ($7 != "None" && $7 != $4) bad[$1]++ }
     END { for (p in s) print p, s[p], "solved,", bad[p]+0, "not the optimum" }' "$O/results.txt"
