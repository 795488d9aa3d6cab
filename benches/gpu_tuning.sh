#!/usr/bin/env bash
# Launch/compile settings of the GPU engine compared on a few instances (one run each
# after a warm-up run that fills the kernel cache): the search time per setting.
#   benches/gpu_tuning.sh BEEM_DIR [INSTANCE...]
# Environment: WARPCHECK (binary, default target/release/warpcheck); SETTINGS (a
# space-separated list of VAR=VALUE[,VAR=VALUE] settings, "default" for none) replaces
# the built-in list.
set -euo pipefail
beem=$1; shift
instances=${*:-anderson.3 lamport.8 collision.4 frogs.4}
bin=${WARPCHECK:-target/release/warpcheck}
settings=(default "WARPCHECK_GPU_BLOCK=128" "WARPCHECK_GPU_BLOCK=512" "WARPCHECK_GPU_BLOCKS_PER_SM=8"
  "WARPCHECK_GPU_BLOCKS_PER_SM=32" "WARPCHECK_GPU_MAXRREG=64" "WARPCHECK_GPU_MAXRREG=40" "WARPCHECK_GPU_INLINE_EMIT=1")
[ -n "${SETTINGS:-}" ] && read -r -a settings <<<"$SETTINGS"
echo "| instance | setting | states | transitions | search s | M states/s | registers | local bytes |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for i in $instances; do
  overflow=error; [ "$i" = anderson.3 ] && overflow=wrap
  for s in "${settings[@]}"; do
    vars=${s//,/ }; [ "$s" = default ] && vars=
    run() { env $vars "$bin" explore "$beem/${i%.*}/$i.dve" --backend gpu --overflow "$overflow" --json --quiet; }
    run >/dev/null
    run | python3 -c "import json,sys; r=json.load(sys.stdin); print('| $i | $s | {} | {} | {:.3f} | {:.0f} | {} | {} |'.format(r['states'], r['transitions'], r['explore_seconds'], r['states']/r['explore_seconds']/1e6, r['kernel_registers'], r['kernel_local_bytes']))"
  done
done
