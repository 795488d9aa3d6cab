#!/usr/bin/env bash
# warpcheck's blind search on the GPU beside the same search on the CPU's threads, on
# the IPC-2008 sequential-optimal problems with a known optimum (`results/ipc2008-opt.csv`),
# easiest first (by its `blind_expanded`; the problems without one last), one problem
# at a time; with UNKNOWN=1 then the problems whose optimum is open, their known
# bounds in place of the optimum ("LOW..HIGH"):
#   gpu:    `warpcheck plan --backend gpu` (the cost-layered search on device 0);
#   gpupdb: `warpcheck plan --backend gpu --heuristic pdb` (A* with pattern databases);
#   cpuN:   `warpcheck plan --heuristic blind --threads N` (uniform-cost search);
#   lmcutN, pdbN: `warpcheck plan --heuristic lmcut|pdb --threads N` (A*).
# With PROBLEMS=FILE only the problems FILE lists ("domain problem" per line), in its
# order.
# Each run gets SECONDS (`--time-limit`, and `timeout` 30 s later). The first backend
# runs on every problem; the others only on the problems it solved (the pairs the
# speed-up is measured on). No run starts after BUDGET seconds, and problems already in
# OUT/results.txt are skipped, so a second call goes on where the first stopped; with
# SKIP_FIRST=1 the first backend only names the reference (it does not run).
# Lines: "backend domain problem optimum exit seconds search_seconds cost states
# setup_seconds heuristic_seconds" (the search's part before its first expansion, and
# the heuristic's tables).
# Usage: benches/scripts/plan-gpu.sh BIN PLANNING_DIR OUT SECONDS BUDGET BACKEND...
set -u
B=$1 PD=$2 O=$3 T=$4 BUDGET=$5
shift 5
start=$(date +%s)
mkdir -p "$O/logs"
touch "$O/results.txt"
python3 - "$PD/results/ipc2008-opt.csv" "${UNKNOWN:-0}" > "$O/jobs.txt" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
known = [r for r in rows if r["optimal_cost"]]
known.sort(key=lambda r: int(r["blind_expanded"]) if r["blind_expanded"] else 1 << 62)
for r in known:
    print(r["domain"], r["domain_file"], r["problem"], r["optimal_cost"])
if sys.argv[2] == "1":
    for r in rows:
        if not r["optimal_cost"]:
            print(r["domain"], r["domain_file"], r["problem"], f'{r["lower_bound"] or 0}..{r["upper_bound"] or "inf"}')
PY
if [ -n "${PROBLEMS:-}" ]; then
  awk 'NR == FNR { want[$1 " " $2] = NR; next } ($1 " " $3) in want { print want[$1 " " $3], $0 }' \
    "$PROBLEMS" "$O/jobs.txt" | sort -n | cut -d' ' -f2- > "$O/jobs.only" && mv "$O/jobs.only" "$O/jobs.txt"
fi
first=$1
for P in "$@"; do
  while read -r D DF PR OPT; do
    [ $(( $(date +%s) - start )) -ge "$BUDGET" ] && break 2
    [ "$P" = "$first" ] && [ "${SKIP_FIRST:-0}" = 1 ] && break
    grep -q "^$P $D $PR " "$O/results.txt" && continue
    if [ "$P" != "$first" ]; then
      awk -v p="$first" -v d="$D" -v r="$PR" '$1 == p && $2 == d && $3 == r && $8 != "None"' \
        "$O/results.txt" | grep -q . || continue
    fi
    case $P in
      gpu) flags=(--backend gpu) ;;
      gpupdb) flags=(--backend gpu --heuristic pdb) ;;
      cpu*) flags=(--heuristic blind --threads "${P#cpu}") ;;
      lmcut*) flags=(--heuristic lmcut --threads "${P#lmcut}") ;;
      pdb*) flags=(--heuristic pdb --threads "${P#pdb}") ;;
    esac
    log=$O/logs/$P.$D.${PR%.pddl}.json
    t0=$(date +%s.%N)
    timeout -k 5 $((T + 30)) "$B" plan "$PD/ipc2008-opt/$D/$DF" "$PD/ipc2008-opt/$D/$PR" "${flags[@]}" \
      --time-limit "$T" --json > "$log" 2> "$log.err"
    rc=$?
    t1=$(date +%s.%N)
    fields=$(python3 -c "
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    print(round(r['search_seconds'], 3), r['cost'], r['states'], round(r['setup_seconds'], 3), round(r['heuristic_seconds'], 3))
except Exception:
    print('None None None None None')" "$log")
    echo "$P $D $PR $OPT $rc $(python3 -c "print(round($t1 - $t0, 2))") $fields" >> "$O/results.txt"
  done < "$O/jobs.txt"
done
# A cost is wrong when it is not the known optimum, or outside the known bounds.
awk '{ n[$1]++; if ($8 == "None") next; s[$1]++
       if (split($4, b, /\.\./) == 2) { if ($8 + 0 < b[1] + 0 || (b[2] != "inf" && $8 + 0 > b[2] + 0)) bad[$1]++ }
       else if ($8 != $4) bad[$1]++ }
     END { for (p in n) print p, n[p], "run,", s[p]+0, "solved,", bad[p]+0, "not the optimum" }' "$O/results.txt"
