#!/usr/bin/env bash
# The IPC-2008 optimal net-benefit track's numeric-fluent sets with `warpcheck plan`
# (A* with LM-cut, the default), instances in order; a set is abandoned after
# STOP_AFTER consecutive instances that are not solved within SECONDS
# (`--time-limit`; `timeout` 30 s later). Lines of OUT:
# "set instance exit net_benefit seconds search_seconds expanded states numeric_fluents".
# Usage: benches/scripts/plan-numeric.sh BIN PLANNING_DIR OUT SECONDS [STOP_AFTER]
# Environment: ARGS, more options for every run (`--backend gpu`, `--heuristic blind`).
set -u
B=$1 PD=$2 O=$3 T=$4 STOP=${5:-2}
: > "$O"
for set in crew-planning elevator openstacks transport woodworking; do
  suffix=numeric-fluents
  [ "$set" = openstacks ] && suffix=adl-numeric-fluents
  dir="$PD/ipc2008-netbenefit-opt/$set-net-benefit-optimal-$suffix"
  misses=0
  for n in $(seq 1 30); do
    json=$(timeout $((T + 30)) "$B" plan "$dir/domain.pddl" "$dir/instance-$n.pddl" --time-limit "$T" ${ARGS:-} --json 2>/dev/null)
    code=$?
    line=$(printf '%s' "$json" | python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)
    print(r["net_benefit"], "%.2f" % r["seconds"], "%.2f" % r["search_seconds"], r["expanded"], r["states"], len(r["numeric"]))
except Exception:
    print("- - - - - -")')
    echo "$set $n $code $line" | tee -a "$O"
    if [ "$code" = 0 ]; then misses=0; else misses=$((misses + 1)); fi
    [ "$misses" -ge "$STOP" ] && break
  done
done
