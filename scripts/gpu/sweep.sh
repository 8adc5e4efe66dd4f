#!/usr/bin/env bash
# A fairness sweep of GPU-sized mixes (--size medium) through accelosd and ProxyCL on the first
# NVIDIA OpenCL device of a machine without LLVM-15 packages (a lent GPU machine), from a bundle
# made by make-bundle.sh: scripts/fairness-sweep.sh over a build-tree layout of the bundle's files.
#
# usage: scripts/gpu/sweep.sh BUNDLE.tar.xz OUTDIR   (from the source tree)
# env:   POLICIES (default fair), COUNTS (2-, 4- and 8-kernel mixes, default "3 2 1"),
#        SIZE (default medium), LIMIT (seconds for the whole sweep, default 240),
#        ISO_REPS (isolated runs per kernel, default 1: at medium size they take most of the time)
# Writes OUTDIR/sweep.txt (the reports), sweep-detail.txt and POLICY-K.jsonl per finished tenant
# count (a lent machine returns at most eight files); a sweep cut off by LIMIT keeps what finished.
set -uo pipefail
bundle=${1:?bundle}; out=${2:?outdir}
mkdir -p "$out"
# shellcheck source=scripts/gpu/bundle-env.sh
. "$(dirname "$0")/bundle-env.sh"
aos_bundle_unpack "$bundle" || exit 2
icd=$(aos_nvidia_icd)
if [[ -n $icd ]]; then # the daemon's platforms; without it, the system's vendor files
	mkdir -p "$B/nv" && echo "$icd" >"$B/nv/nvidia.icd"
	export ACCELOS_VENDORS=$B/nv
fi
# The layout fairness-sweep.sh and mix-through-proxy.sh expect of a build tree.
F=$B/build; mkdir -p "$F/accelosd" "$F/bench" "$F/vendors"
ln -s "$B/bin/accelosd" "$F/accelosd/accelosd"
ln -s "$B/bin/accelos-mix" "$B/bin/accelos-report" "$F/bench/"
echo "$B/lib/libproxycl.so" >"$F/vendors/accelos.icd"
{ nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1 || true; } >"$out/sweep.txt"
S=$B/sweep
start=$SECONDS
# shellcheck disable=SC2086 # COUNTS is three words
POLICIES=${POLICIES:-fair} MIX_ARGS="--mode loop --seconds 1 --size ${SIZE:-medium} --iso-reps ${ISO_REPS:-1}" \
	timeout "${LIMIT:-240}" bash scripts/fairness-sweep.sh "$F" "$S" ${COUNTS:-3 2 1} >>"$out/sweep.txt" 2>&1
echo "sweep rc $? in $((SECONDS - start)) s" >>"$out/sweep.txt"
for k in 2 4 8; do
	for p in fifo fair; do
		[[ -f $S/$p-$k/mix.jsonl ]] && cp "$S/$p-$k/mix.jsonl" "$out/$p-$k.jsonl"
		[[ -f $S/$p-$k.txt ]] && { echo "=== $p-$k"; cat "$S/$p-$k.txt"; tail -n 20 "$S/$p-$k/accelosd.log"; } >>"$out/sweep-detail.txt"
	done
done
for f in "$out"/*-[248].jsonl; do
	[[ -f $f ]] && { echo "=== $(basename "$f")"; accelos-report "$f" 2>&1 | tail -n 30; } >>"$out/sweep.txt"
done
exit 0
