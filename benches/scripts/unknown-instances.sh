#!/usr/bin/env bash
# The BEEM instances without a row in reference.csv, explored on the GPU and, where the
# GPU finished with at most CPU_MAX states (or, with CPU_AFTER_FULL=1, where its store
# was full), on the CPU's cores: one JSON line per run (instance, backend, exit status, the report or the
# error) on standard output, for a reference table.
# Usage:
#   benches/scripts/unknown-instances.sh [WARPCHECK_BINARY] [BEEM_DIR] [INSTANCES]
# Environment: GPU_TIMEOUT (s, default 120), CPU_TIMEOUT (s, default 120), CPU_MAX
# (states, default 400000000), BUDGET (s: start no run after this, default 540),
# CPU_MEMORY (--memory of the CPU runs, default: warpcheck's).
set -uo pipefail
W=${1:-target/release/warpcheck}
BEEM=${2:-../shared/beem}
if [ -n "${3:-}" ]; then
  INSTANCES=$3
else
  INSTANCES=$(for f in "$BEEM"/*/*.dve; do b=$(basename "$f" .dve); case $b in *.prop*) ;; *) echo "$b";; esac; done \
    | sort | while read -r i; do grep -q "^$i," "$BEEM/reference.csv" || echo "$i"; done)
fi
GPU_TIMEOUT=${GPU_TIMEOUT:-120}; CPU_TIMEOUT=${CPU_TIMEOUT:-120}; CPU_MAX=${CPU_MAX:-400000000}
BUDGET=${BUDGET:-540}
start=$SECONDS
record() {  # instance backend status output
  python3 -c '
import json, sys
inst, backend, status, out = sys.argv[1:5]
i, j = out.find("{"), out.rfind("}")
try:
    report = json.loads(out[i:j + 1]) if i >= 0 else None
except ValueError:
    report = None
print(json.dumps({"instance": inst, "backend": backend, "exit": int(status), "report": report,
                  "error": None if report else out.strip()[-400:]}))' "$@"
}
for inst in $INSTANCES; do
  [ $((SECONDS - start)) -ge "$BUDGET" ] && { echo "{\"instance\": \"$inst\", \"skipped\": \"budget\"}"; continue; }
  f=$(ls "$BEEM"/*/"$inst.dve" | head -1)
  out=$(timeout "$GPU_TIMEOUT" "$W" explore "$f" --backend gpu --json --quiet 2>&1); status=$?
  record "$inst" gpu "$status" "$out"
  states=$(echo "$out" | python3 -c 'import json,sys; t=sys.stdin.read(); print(json.loads(t[t.find("{"):t.rfind("}")+1])["states"])' 2>/dev/null)
  if [ -n "$states" ] && [ "$states" -gt "$CPU_MAX" ]; then continue; fi
  if [ -z "$states" ] && [ "${CPU_AFTER_FULL:-0}" != 1 ]; then continue; fi
  [ $((SECONDS - start)) -ge "$BUDGET" ] && continue
  mem=(); [ -n "${CPU_MEMORY:-}" ] && mem=(--memory "$CPU_MEMORY")
  out=$(timeout "$CPU_TIMEOUT" "$W" explore "$f" --backend cpu "${mem[@]}" --json --quiet 2>&1); status=$?
  record "$inst" cpu "$status" "$out"
done
