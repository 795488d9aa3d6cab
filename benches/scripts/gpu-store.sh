#!/usr/bin/env bash
# The GPU's flat and compressed state stores side by side: each instance explored with
# both, RUNS times each, alternating, by one binary on one GPU. One line per run:
# instance, store, states, transitions, deadlocks, explore_seconds, M states/s,
# bytes_per_state, tree_nodes, host_bytes_per_state (or "FAILED" and the error's last
# line).
# Usage:
#   benches/scripts/gpu-store.sh [WARPCHECK_BINARY] [BEEM_DIR] [INSTANCES]
# Environment: RUNS (default 2), TIMEOUT (s per run, default 120), STORES (default
# "flat compressed"; "spillF" is the compressed store with the share F of its set of
# roots in host memory, WARPCHECK_GPU_SPILL_SHARE=F), MEMORY (--memory for every run;
# default: the engine's).
set -uo pipefail
W=${1:-target/release/warpcheck}
BEEM=${2:-../shared/beem}
INSTANCES=${3:-"anderson.3 lamport.8 mcs.5 brp.6 collision.4 iprotocol.6 at.5 bakery.7 leader_filters.7 frogs.4 leader_election.6 sokoban.3 hanoi.4 elevator.5"}
RUNS=${RUNS:-2}; TIMEOUT=${TIMEOUT:-120}; STORES=${STORES:-flat compressed}
out=$(mktemp); err=$(mktemp)
for m in $INSTANCES; do
  for _ in $(seq "$RUNS"); do
    for store in $STORES; do
      case $store in
        spill*) share=${store#spill}; kind=compressed ;;
        *) share=; kind=$store ;;
      esac
      WARPCHECK_GPU_SPILL_SHARE=$share timeout "$TIMEOUT" "$W" explore "$BEEM/${m%.*}/$m.dve" --backend gpu \
        --gpu-store "$kind" ${MEMORY:+--memory "$MEMORY"} --json -q >"$out" 2>"$err"
      python3 - "$m" "$store" "$out" <<'PY' || { echo "$m $store FAILED $(tail -1 "$err")"; }
import json, sys
m, store, path = sys.argv[1:4]
r = json.load(open(path))
print(m, store, r["states"], r["transitions"], r["deadlocks"], round(r["explore_seconds"], 3),
      round(r["states"] / r["explore_seconds"] / 1e6), round(r["bytes_per_state"], 1), r["tree_nodes"], round(r["host_bytes_per_state"], 1))
PY
    done
  done
done
rm -f "$out" "$err"
