#!/usr/bin/env bash
# Markov models: warpcheck (16 threads and 1 thread) beside Storm (stormpy) on the same
# machine, one run each: building the model from its PRISM source, and the MEC
# decomposition of the MDPs. Prints a Markdown table. Usage:
#   benches/scripts/markov.sh [WARPCHECK_BINARY] [MARKOV_DIR] [THREADS]
# MARKOV_DIR holds the QComp sources (shared/markov); needs python3 with stormpy.
set -uo pipefail
W=${1:-target/release/warpcheck}
M=${2:-../shared/markov}
T=${3:-16}
HERE=$(dirname "$0")
# instance folder, source, constants, type
INSTANCES="
dtmc/nand-40-1 nand.prism N=40,K=1 dtmc
dtmc/nand-40-1 nand.prism N=60,K=1 dtmc
ctmc/tandem-1023 tandem.prism c=1023 ctmc
ctmc/tandem-1023 tandem.prism c=2047 ctmc
ctmc/kanban-3 kanban.prism t=5 ctmc
mdp/resource-gathering-1300-100-100 resource-gathering.pm B=1300,GOLD_TO_COLLECT=100,GEM_TO_COLLECT=100 mdp
mdp/resource-gathering-1300-100-100 resource-gathering.pm B=3000,GOLD_TO_COLLECT=200,GEM_TO_COLLECT=200 mdp
mdp/consensus-4-2 consensus.4.prism K=16 mdp
mdp/zeroconf-20-2-false zeroconf.prism reset=false,N=40,K=4 mdp
"
j() { python3 -c "import json,sys; d=json.loads(sys.stdin.readline()); print($1)" 2>/dev/null; }
echo "| model | constants | states | transitions | choices | Storm build s | warpcheck build s ($T thr.) | warpcheck build s (1 thr.) | build speed-up ($T thr.) | Storm MEC s | warpcheck MEC s ($T thr.) | warpcheck MEC s (1 thr.) | MEC speed-up ($T thr.) | MECs (Storm / warpcheck) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
echo "$INSTANCES" | while read -r dir src consts kind; do
  [ -z "$dir" ] && continue
  f="$M/$dir/$src"
  s=$(timeout 600 python3 "$HERE/storm_markov.py" "$f" "$consts" "$kind" | tail -1)
  wN=$(timeout 600 "$W" mec "$f" --const "$consts" --threads "$T" --json 2>/dev/null)
  w1=$(timeout 600 "$W" mec "$f" --const "$consts" --threads 1 --json 2>/dev/null)
  sb=$(echo "$s" | j 'round(d["build_seconds"],3)'); sm=$(echo "$s" | j '"-" if d["mec_seconds"] is None else round(d["mec_seconds"],3)')
  st=$(echo "$s" | j 'd["states"],d["transitions"],d["choices"],"-" if d["mecs"] is None else d["mecs"]')
  wb=$(echo "$wN" | j 'round(d["build_seconds"],3)'); wm=$(echo "$wN" | j 'round(d["mec_seconds"],3)')
  w1b=$(echo "$w1" | j 'round(d["build_seconds"],3)'); w1m=$(echo "$w1" | j 'round(d["mec_seconds"],3)')
  wt=$(echo "$wN" | j 'd["states"],d["choices"],d["mecs"]')
  read -r ss strans sch smec <<< "$st"; read -r ws wch wmec <<< "$wt"
  up() { python3 -c "import sys; a,b=sys.argv[1:3]; print(f\"{float(a)/float(b):.1f}x\")" "${1:-}" "${2:-}" 2>/dev/null || echo -; }
  [ "$ss" != "$ws" ] || [ "$sch" != "$wch" ] && echo "MISMATCH $dir $consts: storm $st, warpcheck $wt" >&2
  echo "| ${dir#*/} | $consts | $ss | $strans | $sch | $sb | $wb | $w1b | $(up "$sb" "$wb") | ${sm:--} | $wm | $w1m | $(up "$sm" "$wm") | $smec / $wmec |"
done
