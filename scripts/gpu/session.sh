#!/usr/bin/env bash
# One lent-GPU session's checks in one call, within a time budget: the differential corpus and the
# JIT benchmark (scripts/gpu/check.sh, no mix), then a fifo and a fair sweep of GPU-sized mixes
# (scripts/gpu/sweep.sh) with the time left, split evenly. A lent machine costs minutes to start
# and returns at most eight files, so everything runs in one command and comes back as
# OUTDIR/summary.txt, bench.md, diff.log and sweeps.tgz.
#
# usage: scripts/gpu/session.sh BUNDLE.tar.xz OUTDIR   (from the source tree; OUTDIR: $OUT there)
# env:   BUDGET (seconds for all of it, default 480: leave the call's limit some margin),
#        BENCH_REPS (default 5), BENCH_PHYS and BENCH_PHYS_SPECS (check.sh's: extra --phys runs),
#        COUNTS (sweep.sh's, default "3 2 1"), ISO_REPS (default 1; 3 takes
#        about 3 minutes per policy for three 2-kernel mixes on an H200), POLICIES (default "fifo fair")
set -uo pipefail
bundle=${1:?bundle}; out=${2:?outdir}
mkdir -p "$out" && out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
t0=$SECONDS
budget=${BUDGET:-480}
summary=$out/summary.txt
{ nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1; echo "cores: $(nproc)"; } >"$summary"
work=${TMPDIR:-/tmp}/aos-gpu-session
rm -rf "$work" && mkdir -p "$work"
# The checks get at most half the budget; the sweeps what is left.
JOBS=${JOBS:-16} BENCH_REPS=${BENCH_REPS:-5} MIX_POLICIES="" timeout $((budget / 2)) \
	bash "$here/check.sh" "$bundle" "$work/check" >>"$summary" 2>&1
echo "check: rc $? in $((SECONDS - t0)) s" >>"$summary"
cp "$work/check/bench.md" "$work/check/diff.log" "$out/" 2>/dev/null
read -r -a policies <<<"${POLICIES:-fifo fair}"
left=$((budget - (SECONDS - t0) - 15))
if ((${#policies[@]} > 0 && left / ${#policies[@]} >= 60)); then
	for p in "${policies[@]}"; do
		s=$SECONDS
		POLICIES=$p COUNTS=${COUNTS:-3 2 1} LIMIT=$((left / ${#policies[@]})) ISO_REPS=${ISO_REPS:-1} \
			bash "$here/sweep.sh" "$bundle" "$work/sweep-$p" >/dev/null 2>&1
		echo "sweep $p: $((SECONDS - s)) s" >>"$summary"
		grep -A2 "mix  ten\|by tenant count" "$work/sweep-$p/sweep.txt" >>"$summary" 2>/dev/null
	done
else
	echo "sweeps skipped: ${left} s left" >>"$summary"
fi
(cd "$work" && tar -czf "$out/sweeps.tgz" sweep-* 2>/dev/null)
echo "total $((SECONDS - t0)) s" >>"$summary"
