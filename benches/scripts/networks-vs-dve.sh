#!/usr/bin/env bash
# Exported channel-only BEEM instances: the network input beside the DVE input, each on
# the GPU and on 16 CPU threads, one run each; prints states, transitions, seconds
# (explore_seconds on the GPU), bytes per state and state words. Usage:
#   benches/scripts/networks-vs-dve.sh [WARPCHECK_BINARY] [BEEM_DIR] [INSTANCES...]
set -uo pipefail
W=${1:-target/release/warpcheck}
BEEM=${2:-../shared/beem}
shift 2 2>/dev/null
INSTANCES=${*:-iprotocol.4 iprotocol.6 firewire_link.5}
OUT=${OUT:-$(mktemp -d)}
j() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["states"], d["transitions"], round(d.get("explore_seconds", d["seconds"]),3), round(d.get("bytes_per_state",0),1), d.get("state_words"))'; }
for i in $INSTANCES; do m=${i%%.*}; s=$(date +%s)
  "$W" export "$BEEM/$m/$i.dve" --network "$OUT/net/$i" > /dev/null 2>&1; echo "$i exported in $(( $(date +%s) - s )) s"
  echo "  network gpu:   $(timeout 120 "$W" explore "$OUT/net/$i/$i.exp" --backend gpu --json --quiet | j)"
  echo "  network cpu16: $(timeout 120 "$W" explore "$OUT/net/$i/$i.exp" --backend cpu --threads 16 --json --quiet | j)"
  o=""; case $i in firewire_link.5|iprotocol.6) o="--overflow wrap";; esac
  echo "  dve gpu:       $(timeout 120 "$W" explore "$BEEM/$m/$i.dve" --backend gpu $o --json --quiet | j)"
  echo "  dve cpu16:     $(timeout 120 "$W" explore "$BEEM/$m/$i.dve" --backend cpu --threads 16 $o --json --quiet | j)"
done
