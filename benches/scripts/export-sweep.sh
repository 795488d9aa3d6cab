#!/usr/bin/env bash
# Every BEEM instance of BEEM_DIR/reference.csv up to LIMIT states (default 50 M):
# exported as a network where the exporter takes it (channel-only models), then the
# network explored (transitions with multiplicity) and the DVE model explored, both on
# THREADS CPU threads; prints one line per instance: `same` or `DIFFERENT` with both
# (states, transitions, deadlocks), `refused` with the reason, or the failure. Usage:
#   benches/scripts/export-sweep.sh [WARPCHECK_BINARY] [BEEM_DIR] [THREADS] [LIMIT]
# FROM=INSTANCE starts at that instance of reference.csv (to go on after a time limit).
set -uo pipefail
W=${1:-target/release/warpcheck}
BEEM=${2:-../shared/beem}
T=${3:-$(nproc)}
LIMIT=${4:-50000000}
TMP=$(mktemp -d)
j() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["states"], d["transitions"], d["deadlocks"])' 2>/dev/null; }
same=0; differ=0; refused=0
while IFS=, read -r inst states _; do
  [ "$inst" = instance ] && continue
  [ "$inst" = "${FROM:-$inst}" ] && FROM=""
  [ -n "${FROM:-}" ] && continue
  [ "$states" -gt "$LIMIT" ] 2>/dev/null && continue
  m=${inst%%.*}; f="$BEEM/$m/$inst.dve"; [ -f "$f" ] || continue
  s=$(date +%s.%N)
  if ! err=$(timeout 600 "$W" export "$f" --network "$TMP/$inst" 2>&1 >/dev/null); then
    case $err in *"cannot export"*) refused=$((refused + 1)); continue;; esac
    echo "FAILED    $inst: export: $(echo "$err" | tail -1)"; differ=$((differ + 1)); continue
  fi
  e=$(python3 -c "import time; print(round(time.time() - $s, 2))")
  n=$(timeout 600 "$W" explore "$TMP/$inst/$inst.exp" --transitions multiplicity --threads "$T" --json --quiet | j)
  d=$(timeout 600 "$W" explore "$f" --threads "$T" --json --quiet | j)
  if [ -n "$n" ] && [ "$n" = "$d" ]; then
    same=$((same + 1)); echo "same      $inst: $n (export $e s)"
  else
    differ=$((differ + 1)); echo "DIFFERENT $inst: network ${n:-none}, DVE ${d:-none} (export $e s)"
  fi
  rm -rf "${TMP:?}/$inst"
done < "$BEEM/reference.csv"
echo "same: $same; different or failed: $differ; refused (not channel-only): $refused"
