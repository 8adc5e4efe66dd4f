#!/usr/bin/env bash
# The main job: builds accelOS, starts accelosd on a private socket, runs a four-tenant workload
# mix (each tenant a separate process) through ProxyCL on the default CPU device, and ends with
# the fairness report. Override the mix with TENANTS=bench[:kernel],... and the harness's options
# with MIX_ARGS (default: every tenant repeats its kernel for 2 s, the steady state the fairness
# metrics describe; MIX_ARGS= runs each tenant once).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)"
# MIX_ARGS is split into words on purpose (several accelos-mix options).
# shellcheck disable=SC2086
bash scripts/mix-through-proxy.sh build build/demo \
  "${TENANTS:-sgemm:mysgemmNT,stencil,mri-q:ComputeQ_GPU,tpacf}" ${MIX_ARGS---mode loop --seconds 2}
