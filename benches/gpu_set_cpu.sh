#!/usr/bin/env bash
# The GPU benchmark set of shared/docs/benchmarks.md explored by the CPU engine on
# THREADS threads (default: all cores), one run each: the README's 16-thread table.
#   benches/gpu_set_cpu.sh BEEM_DIR [THREADS]
# Environment: WARPCHECK (binary, default target/release/warpcheck), MEMORY (default 16G).
set -euo pipefail
beem=$1; threads=${2:-$(nproc)}
bin=${WARPCHECK:-target/release/warpcheck}
echo "| instance | states | seconds | M states/s | bytes/state |"
echo "|---|---:|---:|---:|---:|"
for i in anderson.3 lamport.8 mcs.5 brp.6 collision.4 iprotocol.6 at.5 bakery.7 leader_filters.7 frogs.4; do
  # anderson.3's reference row follows LTSmin's compiled model, where a byte wraps.
  overflow=error; [ "$i" = anderson.3 ] && overflow=wrap
  "$bin" explore "$beem/${i%.*}/$i.dve" --threads "$threads" --overflow "$overflow" --memory "${MEMORY:-16G}" --json --quiet |
    python3 -c "import json,sys; r=json.load(sys.stdin); print('| $i | {:,} | {:.2f} | {:.1f} | {:.1f} |'.format(r['states'], r['seconds'], r['states']/r['seconds']/1e6, r['bytes_per_state']))"
done
