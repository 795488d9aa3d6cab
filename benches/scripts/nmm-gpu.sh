#!/usr/bin/env bash
# Nine Men's Morris on the GPU beside the CPU, in one run on one machine:
# 1. the games of 5 and 6 pieces a side whole, on the GPU and on THREADS CPU threads;
# 2. the whole 9-piece game on the GPU, its databases written to GPU_DB;
# 3. the CPU solving the 9-piece pairs 4-9 and 5-8 (and more, within CPU_SECONDS) from
#    copies of the GPU's databases with fewer than 13 pieces, in CPU_DB; a pair's time
#    is when its files were complete. Every file the CPU wrote is compared byte for
#    byte with the GPU's.
# Writes JSON reports, /usr/bin/time figures and cpu.txt into OUT_DIR.
# Usage: benches/scripts/nmm-gpu.sh BIN GPU_DB CPU_DB OUT_DIR CPU_SECONDS THREADS
set -u
B=$1 D=$2 C=$3 O=$4 LIMIT=$5 T=$6
mkdir -p "$D" "$C" "$O"
for k in 5 6; do
  for b in gpu cpu; do
    /usr/bin/time -v "$B" solve nine-mens-morris --pieces $k --backend $b --threads "$T" --json -q \
      > "$O/k$k-$b.json" 2> "$O/k$k-$b.time"
  done
done
/usr/bin/time -v "$B" solve nine-mens-morris --backend gpu --databases "$D" --json -q > "$O/k9-gpu.json" 2> "$O/k9-gpu.time"
for f in "$D"/*.db; do
  n=$(basename "$f" .db); a=${n:4:1}; b=${n:6:1}
  [ $((a + b)) -lt 13 ] && cp "$f" "$C/"
done
{
  date --iso-8601=ns
  timeout "$LIMIT" "$B" solve nine-mens-morris --backend cpu --threads "$T" --databases "$C" --databases-only -q \
    > /dev/null 2>&1
  echo "rc=$?"
  date --iso-8601=ns
  ls -l --time-style=+%H:%M:%S.%N "$C" | sort -k6 | tail -4
  for f in "$C"/*.db; do
    cmp "$f" "$D/$(basename "$f")" > /dev/null && echo "same $(basename "$f")" || echo "DIFFERENT $(basename "$f")"
  done
} > "$O/cpu.txt" 2>&1
