#!/usr/bin/env bash
# Two warpcheck binaries side by side (OLD against NEW), interleaved: the GPU set on the
# GPU (three rounds after one run each to fill the kernel caches), wide models on the
# GPU (twice each: the first run compiles, with each binary's cache empty at first),
# and the GPU set on 16 CPU threads with native successor code (two rounds after one
# run each). Each line: "what instance binary round states transitions seconds
# compile_seconds compile_cached kernel_registers kernel_local_bytes".
# Usage: benches/scripts/successors-old-new.sh OLD NEW BEEM_DIR
set -u
declare -A BIN=([old]=$1 [new]=$2)
M=$3
export WARPCHECK_CACHE=$(mktemp -d)  # empty: the wide models' first runs compile
SET="anderson.3 lamport.8 mcs.5 brp.6 collision.4 iprotocol.6 at.5 bakery.7 leader_filters.7 frogs.4"
WIDE="firewire_tree.5 leader_election.6 elevator.5 hanoi.3"
row() {
  python3 -c 'import json, sys
d = json.load(sys.stdin)
print(sys.argv[1], d["states"], d["transitions"], round(d.get("explore_seconds") or d["seconds"], 4),
      round(d.get("compile_seconds") or 0, 2), d.get("compile_cached", ""), d.get("kernel_registers", ""),
      d.get("kernel_local_bytes", ""))' "$1"
}
model() { echo "$M/${1%%.*}/$1.dve"; }
for m in $SET; do for b in old new; do ${BIN[$b]} explore "$(model $m)" --backend gpu --json -q > /dev/null; done; done
for r in 1 2 3; do for m in $SET; do for b in old new; do
  ${BIN[$b]} explore "$(model $m)" --backend gpu --json -q | row "gpu $m $b $r"
done; done; done
for m in $WIDE; do for b in old new; do for r in 1 2; do
  ${BIN[$b]} explore "$(model $m)" --backend gpu --json -q | row "wide $m $b $r"
done; done; done
CPU="--backend cpu --threads 16 --overflow wrap --json -q"
for m in $SET; do for b in old new; do ${BIN[$b]} explore "$(model $m)" $CPU > /dev/null; done; done
for r in 1 2; do for m in $SET; do for b in old new; do
  ${BIN[$b]} explore "$(model $m)" $CPU | row "cpu $m $b $r"
done; done; done
