#!/usr/bin/env bash
# Compares the fifo and fair policies on the same seeded random 2-, 4- and 8-kernel mixes of the
# workload suite, each tenant a separate process going through ProxyCL, and prints the report
# side by side (the numbers in bench/RESULTS.md come from this script).
#   scripts/fairness-sweep.sh BUILD_DIR OUT_DIR [COUNT2 COUNT4 COUNT8]
# POLICIES lists the policies to run (default "fifo fair"); each elastic one is compared with fifo
# (with the fifo records of OUT_DIR/fifo.jsonl, which an earlier run may have left).
# MIX_ARGS adds accelos-mix options, e.g. "--mode loop --seconds 2" for tenants that repeat their
# kernel until the window ends (steady-state sharing) instead of running it once.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
out=$2
counts=("${3:-6}" "${4:-4}" "${5:-2}")
mkdir -p "$out"
read -r -a policies <<<"${POLICIES:-fifo fair}"
for policy in "${policies[@]}"; do
  i=0
  for k in 2 4 8; do
    # MIX_ARGS is split into words on purpose (several accelos-mix options).
    # shellcheck disable=SC2086
    ACCELOS_POLICY=$policy bash "$here/mix-through-proxy.sh" "$build" "$out/$policy-$k" "" \
      --random "$k" --count "${counts[$i]}" --seed "$k" --mix-base $((k * 100)) --iso-reps 3 \
      ${MIX_ARGS:-} > "$out/$policy-$k.txt"
    i=$((i + 1))
  done
  cat "$out/$policy"-[248]/mix.jsonl > "$out/$policy.jsonl"
done
for policy in "${policies[@]}"; do
  [[ $policy == fifo ]] && continue
  if [[ ! -f $out/fifo.jsonl ]]; then
    echo "--- no fifo records in $out (run POLICIES=fifo, or copy them in): no comparison for $policy ---"
    continue
  fi
  "$build/bench/accelos-report" --compare accelos-fifo "accelos-$policy" --plot-dir "$out/plots-$policy" \
    "$out/fifo.jsonl" "$out/$policy.jsonl"
done
for policy in "${policies[@]}"; do
  echo "--- $policy ---"
  "$build/bench/accelos-report" --config "accelos-$policy" "$out/$policy.jsonl"
done
