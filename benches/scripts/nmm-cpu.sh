#!/usr/bin/env bash
# Nine Men's Morris on the CPU: the moving-phase databases of the 9-piece game within a
# time limit (resumable: the databases solved are kept in DB_DIR), then the smaller
# games whole. Writes JSON reports and /usr/bin/time figures into OUT_DIR.
# Usage: benches/scripts/nmm-cpu.sh BIN DB_DIR OUT_DIR SECONDS THREADS [PIECES...]
set -u
B=$1 D=$2 O=$3 LIMIT=$4 T=$5
shift 5
mkdir -p "$D" "$O"
start=$(date +%s)
/usr/bin/time -v timeout "$LIMIT" "$B" solve nine-mens-morris --pieces 9 --databases "$D" --databases-only \
  --threads "$T" --json > "$O/k9-db.json" 2> "$O/k9-db.time"
echo "rc=$? seconds=$(( $(date +%s) - start ))" >> "$O/k9-db.time"
# The time each database was complete (a killed run prints no report).
ls -l --time-style=full-iso "$D" > "$O/k9-files.txt"
for k in "$@"; do
  /usr/bin/time -v "$B" solve nine-mens-morris --pieces "$k" --threads "$T" --json > "$O/k$k.json" 2> "$O/k$k.time"
done
