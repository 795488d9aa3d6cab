#!/usr/bin/env bash
# Explores every instance of reference.csv (optionally only those with more than
# MIN_STATES states) with warpcheck on the given thread counts, JOBS runs at a time,
# and compares states, transitions and deadlocks with the reference.
#
#   benches/explore_all.sh BEEM_DIR OUT_DIR [MIN_STATES] [THREADS...]
#   e.g. benches/explore_all.sh ../shared/beem /tmp/out 1000000 1 2
# Environment: WARPCHECK (binary, default target/release/warpcheck), JOBS (default 1),
# MEMORY (--memory per run, default 8G).
set -euo pipefail
beem=$1; out=$2; min=${3:-0}; shift 3 || true
threads=${*:-1 2}
bin=${WARPCHECK:-target/release/warpcheck}
jobs=${JOBS:-1}
memory=${MEMORY:-8G}
mkdir -p "$out"
# Rows computed by LTSmin use its compiled models' rule: out-of-range values wrap.
tail -n +2 "$beem/reference.csv" | while IFS=, read -r inst states trans dead acc source rest; do
  [ "$states" -gt "$min" ] || continue
  case $source in ltsmin*) overflow=wrap ;; *) overflow=error ;; esac
  for t in $threads; do echo "$inst $t $overflow"; done
done | xargs -P "$jobs" -L 1 sh -c '
  inst=$0; t=$1; overflow=$2; model=${inst%.*}
  "'"$bin"'" explore "'"$beem"'/$model/$inst.dve" --threads "$t" --overflow "$overflow" --memory "'"$memory"'" --json --quiet \
    > "'"$out"'/$inst.t$t.json" 2> "'"$out"'/$inst.t$t.err" || echo "{\"failed\": true}" > "'"$out"'/$inst.t$t.json"'
python3 - "$beem/reference.csv" "$out" <<'PY'
import csv, json, os, sys
ref = {r["instance"]: r for r in csv.DictReader(open(sys.argv[1]))}
rows, bad = [], 0
for f in sorted(os.listdir(sys.argv[2])):
    if not f.endswith(".json"):
        continue
    inst, t = f[:-5].rsplit(".t", 1)
    r = json.load(open(os.path.join(sys.argv[2], f)))
    want = ref[inst]
    same = (not r.get("failed")) and r["states"] == int(want["states"]) and r["transitions"] == int(want["transitions"]) \
        and (want["deadlocks"] == "" or r["deadlocks"] == int(want["deadlocks"]))
    bad += not same
    got = "failed" if r.get("failed") else f'{r["states"]} {r["transitions"]} {r["deadlocks"]} {r["seconds"]:.1f}s {r["bytes_per_state"]:.1f}B/state'
    rows.append(f'{"OK  " if same else "DIFF"} {inst} threads={t}: {got}')
print("\n".join(rows))
print(f"{len(rows) - bad} of {len(rows)} runs match the reference")
PY
