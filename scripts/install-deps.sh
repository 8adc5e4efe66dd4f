#!/usr/bin/env bash
# Installs the Debian packages accelOS needs to build, test and benchmark.
set -euo pipefail
SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO=sudo
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends \
  build-essential cmake pkg-config check \
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo \
  clang-15 llvm-15-dev llvm-15-tools libclang-15-dev llvm-spirv-15 libclc-15 \
  gnuplot-nox python3 gdb
