#!/usr/bin/env bash
# Builds accelOS and runs every test through ctest.
#   scripts/test.sh              normal build in build/
#   scripts/test.sh --sanitize   ASan+UBSan build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
extra=()
if [[ "${1:-}" == "--sanitize" ]]; then
  build=build-asan
  extra=(-DACCELOS_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
fi
bash scripts/ensure-deps.sh
cmake -S . -B "$build" "${extra[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)"
# PoCL compiles kernels with its own LLVM; give slow machines time and keep its cache private.
export POCL_CACHE_DIR="$PWD/$build/pocl-cache"
# Leaks are checked; what PoCL and LLVM keep for the process's life is suppressed (tests/lsan.supp).
# Run ctest in the sanitizer build by hand with the same three variables.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir "$build" --output-on-failure -j2 --timeout 600
