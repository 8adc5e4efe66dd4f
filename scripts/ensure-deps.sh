#!/usr/bin/env bash
# Installs the build dependencies only when something is missing, so the README's commands work
# on a fresh machine and cost nothing on a prepared one.
set -euo pipefail
missing=0
for cmd in cmake cc pkg-config clang-15 llvm-link-15 llvm-spirv-15 clinfo gnuplot python3; do
  command -v "$cmd" >/dev/null 2>&1 || missing=1
done
for pc in check OpenCL; do
  pkg-config --exists "$pc" 2>/dev/null || missing=1
done
[[ -e /etc/OpenCL/vendors/pocl.icd ]] || missing=1
[[ -d /usr/lib/llvm-15/include/clang ]] || missing=1
if [[ $missing -eq 1 ]]; then
  echo "accelOS: installing build dependencies (Debian packages)" >&2
  bash "$(dirname "$0")/install-deps.sh"
fi
