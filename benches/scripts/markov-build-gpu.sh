#!/usr/bin/env bash
# Markov model building on the GPU beside the CPU builder and Storm (stormpy), one run
# each on one machine. Usage:
#   benches/scripts/markov-build-gpu.sh agree [WARPCHECK_BINARY] [MARKOV_DIR]
#   benches/scripts/markov-build-gpu.sh bench [WARPCHECK_BINARY] [MARKOV_DIR] [THREADS]
# agree: every PRISM instance of MARKOV_DIR (shared/markov) built on the GPU and on the
# CPU and written as DRN: the files must be identical (same numbering, entries, values
# bit for bit, labels, rewards). bench: a Markdown table of build times (Storm's sparse
# builder, warpcheck on THREADS CPU threads, warpcheck on the GPU with its phases);
# STORM_TIMEOUT (default 300 s) bounds each Storm build.
set -uo pipefail
JOB=${1:-bench}
W=${2:-target/release/warpcheck}
M=${3:-../shared/markov}
T=${4:-16}
HERE=$(dirname "$0")
TMP=${TMPDIR:-/tmp}/warpcheck-build-gpu
mkdir -p "$TMP"

agree() {
  local same=0 differ=0
  for dir in "$M"/dtmc/* "$M"/mdp/* "$M"/ctmc/*; do
    src=$(ls "$dir"/*.prism "$dir"/*.pm "$dir"/*.nm "$dir"/*.sm 2>/dev/null | grep -v extra_labels | head -1)
    [ -z "$src" ] && continue
    consts=$(grep -v '^#' "$dir/constants.txt" 2>/dev/null | paste -sd, -)
    id=$(basename "$dir")
    "$W" explore "$src" --const "$consts" --backend cpu --export "$TMP/$id-cpu.drn" > /dev/null 2> "$TMP/$id-cpu.err"
    "$W" explore "$src" --const "$consts" --backend gpu --export "$TMP/$id-gpu.drn" > /dev/null 2> "$TMP/$id-gpu.err"
    if cmp -s "$TMP/$id-cpu.drn" "$TMP/$id-gpu.drn"; then
      same=$((same + 1)); echo "same      $id ($(wc -c < "$TMP/$id-cpu.drn") bytes of DRN)"
    else
      differ=$((differ + 1)); echo "DIFFERENT $id: $(head -c 300 "$TMP/$id-gpu.err")"
    fi
  done
  echo "identical DRN from the GPU and the CPU builder: $same; different: $differ"
}

# instance folder, source, constants, type
INSTANCES="
dtmc/nand-40-1 nand.prism N=40,K=1 dtmc
dtmc/nand-40-1 nand.prism N=60,K=1 dtmc
ctmc/tandem-1023 tandem.prism c=1023 ctmc
ctmc/tandem-1023 tandem.prism c=2047 ctmc
ctmc/tandem-1023 tandem.prism c=4095 ctmc
ctmc/kanban-3 kanban.prism t=5 ctmc
ctmc/kanban-3 kanban.prism t=6 ctmc
mdp/resource-gathering-1300-100-100 resource-gathering.pm B=1300,GOLD_TO_COLLECT=100,GEM_TO_COLLECT=100 mdp
mdp/resource-gathering-1300-100-100 resource-gathering.pm B=3000,GOLD_TO_COLLECT=200,GEM_TO_COLLECT=200 mdp
mdp/consensus-4-2 consensus.4.prism K=16 mdp
mdp/zeroconf-20-2-false zeroconf.prism reset=false,N=40,K=4 mdp
"

bench() {
  j() { python3 -c "import json,sys; d=json.loads(sys.stdin.readline()); print($1)" 2>/dev/null; }
  up() { python3 -c "import sys; a,b=sys.argv[1:3]; print(f\"{float(a)/float(b):.1f}x\")" "${1:-}" "${2:-}" 2>/dev/null || echo -; }
  echo "| model | constants | states | transitions | choices | Storm s | warpcheck CPU s ($T thr.) | warpcheck GPU s | GPU explore / weigh / copy / assemble s | GPU vs Storm | GPU vs CPU |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|"
  echo "$INSTANCES" | while read -r dir src consts kind; do
    [ -z "$dir" ] && continue
    f="$M/$dir/$src"
    s=$(timeout "${STORM_TIMEOUT:-300}" python3 "$HERE/storm_markov.py" "$f" "$consts" "$kind" --no-mec 2>/dev/null | tail -1)
    c=$(timeout 900 "$W" explore "$f" --const "$consts" --backend cpu --threads "$T" --json 2>/dev/null)
    g=$(timeout 900 "$W" explore "$f" --const "$consts" --backend gpu --threads "$T" --json 2>"$TMP/gpu.err")
    sb=$(echo "$s" | j 'round(d["build_seconds"],3)'); sb=${sb:-"> ${STORM_TIMEOUT:-300}"}
    cb=$(echo "$c" | j 'round(d["seconds"],3)')
    gb=$(echo "$g" | j 'round(d["seconds"],3)')
    phases=$(echo "$g" | j '" / ".join(str(round(d["gpu_build"][k],3)) for k in ("explore_seconds","weigh_seconds","copy_seconds","assemble_seconds"))')
    size=$(echo "$g" | j 'd["states"],d["transitions"],d["choices"]')
    read -r ws wt wc <<< "$size"
    [ "$size" != "$(echo "$c" | j 'd["states"],d["transitions"],d["choices"]')" ] && echo "MISMATCH $dir $consts: gpu $size, cpu $(echo "$c" | j 'd["states"]')" >&2
    echo "| ${dir#*/} | $consts | ${ws:-$(head -c 200 "$TMP/gpu.err")} | $wt | $wc | $sb | $cb | $gb | $phases | $(up "$sb" "$gb") | $(up "$cb" "$gb") |"
  done
}

"$JOB"
