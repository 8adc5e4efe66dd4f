#!/usr/bin/env bash
# Runs test_api_fuzz over a range of seeds and counts the runs that failed (the numbers in
# docs/architecture.md section 7 come from this script): each run starts a private daemon and
# 12 random applications of 150 steps, three at a time.
#   scripts/api-fuzz-loop.sh BUILD_DIR FIRST_SEED COUNT [fair|fifo] [LOG_DIR]
# A failed run's output stays in LOG_DIR/SEED.log (default /tmp/accelos-api-fuzz).
set -uo pipefail
build=$(cd "$1" && pwd)
first=$2
count=$3
policy=${4:-fair}
logs=${5:-/tmp/accelos-api-fuzz}
mkdir -p "$logs"
export OCL_ICD_VENDORS=$build/vendors ACCELOS_DAEMON_BIN=$build/accelosd/accelosd
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-$build/pocl-cache} ACCELOS_JIT_CACHE=$build/tests/proxy/jit-cache
export AOS_API_FUZZ_POLICY=$policy AOS_API_FUZZ_CLIENTS=${AOS_API_FUZZ_CLIENTS:-12}
export AOS_API_FUZZ_STEPS=${AOS_API_FUZZ_STEPS:-150} CK_DEFAULT_TIMEOUT=600
failed=0
for ((seed = first; seed < first + count; seed++)); do
  if AOS_API_FUZZ_SEED=$seed timeout 900 "$build/tests/proxy/test_api_fuzz" >"$logs/$seed.log" 2>&1; then
    rm -f "$logs/$seed.log"
  else
    failed=$((failed + 1))
    echo "seed $seed failed: $(grep -m1 -E 'Assertion|ERROR|died|exited' "$logs/$seed.log")"
  fi
done
echo "$policy: $failed of $count runs failed"
