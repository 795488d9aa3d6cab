#!/usr/bin/env bash
# One planner on one problem, for plan-coverage.sh: prints
# "planner domain problem optimum exit_status seconds cost" (cost None when no plan).
# Usage: plan-one.sh BIN PLANNERS SECONDS LOG_DIR PROBLEMS PLANNER DOMAIN DOMAIN_FILE PROBLEM OPTIMUM
B=$1 PL=$2 T=$3 O=$4 PROBLEMS=$5 P=$6 D=$7 DF=$8 PR=$9 OPT=${10}
dom=$PROBLEMS/$D/$DF prob=$PROBLEMS/$D/$PR
log=$O/$P.$D.${PR%.pddl}.log
work=$(mktemp -d)
start=$(date +%s.%N)
case $P in
  warpcheck)
    timeout -k 5 $((T + 5)) "$B" plan "$dom" "$prob" --threads 1 --time-limit "$T" --memory 7G --json > "$log" 2>&1
    rc=$?
    cost=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('cost'))" "$log" 2>/dev/null) ;;
  lmcut|symk)
    drv=$PL/fd/fast-downward.py search="astar(lmcut())"
    [ "$P" = symk ] && drv=$PL/symk/fast-downward.py search="sym_bd()"
    (cd "$work" && timeout -k 5 $((T + 15)) python3 "$drv" --plan-file plan --overall-time-limit "$T" \
      --overall-memory-limit 7G "$dom" "$prob" --search "$search") > "$log" 2>&1
    rc=$?
    cost=$(grep -q "Solution found" "$log" && grep -o "Plan cost: [0-9]*" "$log" | tail -1 | cut -d' ' -f3) ;;
esac
end=$(date +%s.%N)
rm -rf "$work"
echo "$P $D $PR $OPT $rc $(python3 -c "print(round($end - $start, 2))") ${cost:-None}"
