#!/usr/bin/env bash
# Markov model building on the GPU beside the CPU builder and Storm (stormpy), one run
# each on one machine. Usage:
#   benches/scripts/markov-build-gpu.sh agree [WARPCHECK_BINARY] [MARKOV_DIR]
#   benches/scripts/markov-build-gpu.sh mec-agree [WARPCHECK_BINARY] [MARKOV_DIR]
#   benches/scripts/markov-build-gpu.sh bench [WARPCHECK_BINARY] [MARKOV_DIR] [THREADS]
# agree: every PRISM instance of MARKOV_DIR (shared/markov) built on the GPU and on the
# CPU and written as DRN: the files must be identical (same numbering, entries, values
# bit for bit, labels, rewards). mec-agree: every instance built on the CPU, written as
# DRN and decomposed into MECs (bottom SCCs of chains) on the GPU and on the CPU: the
# `--components` files must be identical.
# bench: a Markdown table of build and MEC times (Storm's sparse builder and
# MaximalEndComponentDecomposition, warpcheck `mec` on THREADS CPU threads and with
# `--backend gpu`, with the GPU's phases); STORM_TIMEOUT (default 300 s) bounds each
# Storm run (STORM=0: no Storm); BENCH_ONLY=REGEX keeps the matching rows.
set -uo pipefail
JOB=${1:-bench}
W=${2:-target/release/warpcheck}
M=${3:-../shared/markov}
T=${4:-16}
HERE=$(dirname "$0")
TMP=${TMPDIR:-/tmp}/warpcheck-build-gpu
mkdir -p "$TMP"

# Every PRISM instance of MARKOV_DIR: its id, source and constants, one per line.
sources() {
  for dir in "$M"/dtmc/* "$M"/mdp/* "$M"/ctmc/*; do
    src=$(ls "$dir"/*.prism "$dir"/*.pm "$dir"/*.nm "$dir"/*.sm 2>/dev/null | grep -v extra_labels | head -1)
    [ -z "$src" ] && continue
    echo "$(basename "$dir") $src $(grep -v '^#' "$dir/constants.txt" 2>/dev/null | paste -sd, -)"
  done
}

agree() {
  local same=0 differ=0
  while read -r id src consts; do
    "$W" explore "$src" --const "$consts" --backend cpu --export "$TMP/$id-cpu.drn" > /dev/null 2> "$TMP/$id-cpu.err"
    "$W" explore "$src" --const "$consts" --backend gpu --export "$TMP/$id-gpu.drn" > /dev/null 2> "$TMP/$id-gpu.err"
    if cmp -s "$TMP/$id-cpu.drn" "$TMP/$id-gpu.drn"; then
      same=$((same + 1)); echo "same      $id ($(wc -c < "$TMP/$id-cpu.drn") bytes of DRN)"
    else
      differ=$((differ + 1)); echo "DIFFERENT $id: $(head -c 300 "$TMP/$id-gpu.err")"
    fi
  done < <(sources)
  echo "identical DRN from the GPU and the CPU builder: $same; different: $differ"
}

mec_agree() {
  local same=0 differ=0
  while read -r id src consts; do
    "$W" explore "$src" --const "$consts" --backend cpu --export "$TMP/$id.drn" > /dev/null 2>&1
    c=$("$W" mec "$TMP/$id.drn" --backend cpu --components "$TMP/$id-cpu.mec" --json 2>&1)
    g=$("$W" mec "$TMP/$id.drn" --backend gpu --components "$TMP/$id-gpu.mec" --json 2> "$TMP/$id-gpu.err")
    if [ -s "$TMP/$id-cpu.mec" ] && cmp -s "$TMP/$id-cpu.mec" "$TMP/$id-gpu.mec"; then
      same=$((same + 1))
      echo "same      $id: $(echo "$g" | python3 -c 'import json,sys; d=json.load(sys.stdin); g=d["gpu_mec"]; print(d["states"], "states,", d["mecs"], d["kind"], "components;", g["rounds"], "rounds,", g["launches"], "launches; GPU", round(d["mec_seconds"],3), "s")' 2>/dev/null), CPU $(echo "$c" | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["mec_seconds"],3), "s")' 2>/dev/null)"
    else
      differ=$((differ + 1)); echo "DIFFERENT $id: $(head -c 300 "$TMP/$id-gpu.err")"
    fi
    rm -f "$TMP/$id.drn"
  done < <(sources)
  echo "identical components from the GPU and the CPU decomposition: $same; different: $differ"
}

# instance folder, source, constants, type
INSTANCES="
dtmc/nand-40-1 nand.prism N=40,K=1 dtmc
dtmc/nand-40-1 nand.prism N=60,K=1 dtmc
ctmc/tandem-1023 tandem.prism c=1023 ctmc
ctmc/tandem-1023 tandem.prism c=2047 ctmc
ctmc/tandem-1023 tandem.prism c=4095 ctmc
ctmc/tandem-1023 tandem.prism c=8191 ctmc
ctmc/kanban-3 kanban.prism t=5 ctmc
ctmc/kanban-3 kanban.prism t=6 ctmc
mdp/resource-gathering-1300-100-100 resource-gathering.pm B=1300,GOLD_TO_COLLECT=100,GEM_TO_COLLECT=100 mdp
mdp/resource-gathering-1300-100-100 resource-gathering.pm B=3000,GOLD_TO_COLLECT=200,GEM_TO_COLLECT=200 mdp
mdp/resource-gathering-1300-100-100 resource-gathering.pm B=6000,GOLD_TO_COLLECT=400,GEM_TO_COLLECT=400 mdp
mdp/consensus-4-2 consensus.4.prism K=16 mdp
mdp/consensus-4-2 consensus.4.prism K=64 mdp
mdp/zeroconf-20-2-false zeroconf.prism reset=false,N=40,K=4 mdp
"

bench() {
  j() { python3 -c "import json,sys; d=json.loads(sys.stdin.readline()); print($1)" 2>/dev/null; }
  up() { python3 -c "import sys; a,b=sys.argv[1:3]; print(f\"{float(a)/float(b):.1f}x\")" "${1:-}" "${2:-}" 2>/dev/null || echo -; }
  echo "| model | constants | states | transitions | choices | Storm build s | CPU build s ($T thr.) | GPU build s | GPU explore / weigh / copy / assemble s | GPU build vs Storm | GPU build vs CPU | Storm MEC s | CPU MEC s | GPU MEC s (rounds) | GPU MEC vs Storm | GPU MEC vs CPU | components |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  echo "$INSTANCES" | while read -r dir src consts kind; do
    [ -z "$dir" ] && continue
    [ -n "${BENCH_ONLY:-}" ] && ! echo "$dir $consts" | grep -Eq "$BENCH_ONLY" && continue
    f="$M/$dir/$src"
    s=""
    [ "${STORM:-1}" = 1 ] && s=$(timeout "${STORM_TIMEOUT:-300}" python3 "$HERE/storm_markov.py" "$f" "$consts" "$kind" 2>/dev/null | tail -1)
    c=$(timeout 900 "$W" mec "$f" --const "$consts" --backend cpu --threads "$T" --json 2>/dev/null)
    g=$(timeout 900 "$W" mec "$f" --const "$consts" --backend gpu --threads "$T" --json 2>"$TMP/gpu.err")
    sb=$(echo "$s" | j 'round(d["build_seconds"],3)'); sb=${sb:-"> ${STORM_TIMEOUT:-300}"}; [ "${STORM:-1}" = 1 ] || sb="-"
    sm=$(echo "$s" | j '"-" if d["mec_seconds"] is None else round(d["mec_seconds"],3)'); sm=${sm:--}
    cb=$(echo "$c" | j 'round(d["build_seconds"],3)'); cm=$(echo "$c" | j 'round(d["mec_seconds"],3)')
    gb=$(echo "$g" | j 'round(d["build_seconds"],3)')
    gm=$(echo "$g" | j 'str(round(d["mec_seconds"],3))+" ("+str(d["gpu_mec"]["rounds"])+")"')
    gms=$(echo "$g" | j 'round(d["mec_seconds"],3)')
    phases=$(echo "$g" | j '" / ".join(str(round(d["gpu_build"][k],3)) for k in ("explore_seconds","weigh_seconds","copy_seconds","assemble_seconds"))')
    size=$(echo "$g" | j 'd["states"],d["choices"],d["mecs"],d["states_in_mecs"],d["choices_in_mecs"]')
    read -r ws wc wm _ _ <<< "$size"
    [ "$size" != "$(echo "$c" | j 'd["states"],d["choices"],d["mecs"],d["states_in_mecs"],d["choices_in_mecs"]')" ] && echo "MISMATCH $dir $consts: gpu $size, cpu $(echo "$c" | j 'd["states"],d["mecs"]')" >&2
    st=$(echo "$s" | j 'd["transitions"]')
    echo "| ${dir#*/} | $consts | ${ws:-$(head -c 200 "$TMP/gpu.err")} | ${st:--} | $wc | $sb | $cb | $gb | $phases | $(up "$sb" "$gb") | $(up "$cb" "$gb") | $sm | $cm | $gm | $(up "$sm" "$gms") | $(up "$cm" "$gms") | $wm |"
  done
}

${JOB//-/_}
