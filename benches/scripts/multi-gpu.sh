#!/usr/bin/env bash
# Exploration on 1, 2, 4 ... GPUs of one host in one run: per BEEM instance and GPU
# count, the median search time (explore_seconds) of RUNS cached runs after one
# uncached, the speedup over one GPU, the store's room (state_capacity) and the
# exchange; counts are checked equal across GPU counts. Prints a markdown table.
# Usage:
#   benches/scripts/multi-gpu.sh [WARPCHECK_BINARY] [BEEM_DIR] [GPU_COUNTS] [INSTANCES]
# e.g. benches/scripts/multi-gpu.sh target/release/warpcheck ../shared/beem "1 2 4" "anderson.3 at.5"
set -uo pipefail
W=${1:-target/release/warpcheck}
BEEM=${2:-../shared/beem}
COUNTS=${3:-1 2 4}
INSTANCES=${4:-anderson.3 lamport.8 mcs.5 brp.6 collision.4 iprotocol.6 at.5 bakery.7 leader_filters.7 frogs.4}
RUNS=${RUNS:-3}
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)" 2>/dev/null; }
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
header="| instance | states |"; rule="|---|---:|"
for g in $COUNTS; do header+=" $g GPU s | speedup | room (states) |"; rule+="---:|---:|---:|"; done
echo "$header transport |"; echo "$rule---|"
for inst in $INSTANCES; do
  f=$(ls "$BEEM"/*/"$inst.dve" | head -1)
  row="| $inst |"; base=""; first=""; transport=""
  for g in $COUNTS; do
    "$W" explore "$f" --backend gpu --gpus "$g" --json --quiet > /dev/null 2>&1  # compile into the cache
    times=""; counts=""; room=""
    for _ in $(seq "$RUNS"); do
      out=$(timeout 300 "$W" explore "$f" --backend gpu --gpus "$g" --json --quiet 2>&1)
      times+=" $(echo "$out" | json 'd["explore_seconds"]')"
      counts=$(echo "$out" | json 'd["states"],d["transitions"],d["deadlocks"],sep=","')
      room=$(echo "$out" | json 'd["state_capacity"]')
      [ "$g" != 1 ] && transport=$(echo "$out" | json 'd["transport"]')
    done
    t=$(echo "$times" | median)
    if [ -z "$first" ]; then first=$counts; row+=" ${counts%%,*} |"; fi
    [ "$counts" != "$first" ] && row+=" COUNTS DIFFER ($counts vs $first)"
    [ -z "$base" ] && base=$t
    speedup=$(python3 -c "print(f'{$base/$t:.2f}x')" 2>/dev/null || echo "?")
    row+=" $t | $speedup | $room |"
  done
  echo "$row $transport |"
done
