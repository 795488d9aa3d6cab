#!/usr/bin/env bash
# Networks of LTSs on the GPU engine beside the CPU engine, one run each, for every
# row of shared/lts/beem-net/counts.csv; prints CSV. Usage:
#   benches/scripts/networks.sh [WARPCHECK_BINARY] [LTS_DIR]
set -uo pipefail
W=${1:-target/release/warpcheck}
LTS=${2:-../shared/lts}
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)" 2>/dev/null; }
echo "instance,reference_states,reference_transitions,gpu_states,gpu_transitions,gpu_deadlocks,gpu_s,cpu_states,cpu_transitions,cpu_s,cpu16_s"
tail -n +2 "$LTS/beem-net/counts.csv" | while IFS=, read -r inst _ _ _ _ states _ tdist _; do
  f=$(ls "$LTS/beem-net/$inst"/*.exp | head -1)
  g=$(timeout 120 "$W" explore "$f" --backend gpu --json --quiet | json 'd["states"],d["transitions"],d["deadlocks"],round(d.get("explore_seconds",d["seconds"]),4),sep=","')
  c=$(timeout 120 "$W" explore "$f" --backend cpu --threads 1 --json --quiet | json 'd["states"],d["transitions"],round(d["seconds"],4),sep=","')
  c16=$(timeout 120 "$W" explore "$f" --backend cpu --threads 16 --json --quiet | json 'round(d["seconds"],4)')
  echo "$inst,$states,$tdist,$g,$c,$c16"
done
