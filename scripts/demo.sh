#!/usr/bin/env bash
# The main job: builds accelOS, starts accelosd on a private socket, runs a four-tenant workload
# mix (each tenant a separate process) through ProxyCL on the default CPU device, and ends with
# the fairness report. Override the mix with TENANTS=bench[:kernel],...
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)"
bash scripts/mix-through-proxy.sh build build/demo \
  "${TENANTS:-sgemm:mysgemmNT,stencil,mri-q:ComputeQ_GPU,tpacf}"
