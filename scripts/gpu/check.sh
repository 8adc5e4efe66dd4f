#!/usr/bin/env bash
# Runs the differential corpus, the JIT benchmark and a workload mix through
# accelosd and ProxyCL (once per policy) from a bundle made by
# make-bundle.sh on the first OpenCL platform of a machine with no LLVM-15
# packages. Without OCL_ICD_VENDORS it looks for NVIDIA's OpenCL driver.
#
# usage: scripts/gpu/check.sh BUNDLE.tar.xz OUTDIR   (from the source tree)
# env:   JOBS (parallel diffs, default 8), BENCH_REPS (default 5, 0 skips),
#        BENCH_SPECS (spec globs, default the GPU-sized bench/jit/specs/gpu), BENCH_PHYS (--phys
#        values, one more run each of BENCH_PHYS_SPECS, default none; e.g. "all 8448" shows the
#        loop shape's cost per physical group), BENCH_CHUNKS (the
#        benchmark's --chunk values, one run each, default spread; e.g. "spread dequeued" compares
#        static first chunks with all dequeued), BENCH_ROUNDS (the BENCH_CHUNKS runs repeated in
#        turn, default 1), BENCH_TIMEOUT (seconds per run,
#        default 240), DIFF_TIMEOUT (per diff, default 120), ONLY (grep -E on test names),
#        MIX_POLICIES (default "fifo fair", "" skips), TENANTS (the demo's mix),
#        PROBE_SPECS (spec files for accelos-spir-probe: native against the JIT's
#        unrewritten build, PROBE_REPS pairs; default none)
# Writes OUTDIR/summary.txt, diff.log, bench.log, bench.md, mix.txt, accelosd.log and
# probe.log (seven files: a lent GPU machine returns at most eight); exits non-zero when an
# unexpected diff result or no OpenCL device was found.
set -uo pipefail
bundle=${1:?bundle}; out=${2:?outdir}
mkdir -p "$out"
# shellcheck source=scripts/gpu/bundle-env.sh
. "$(dirname "$0")/bundle-env.sh"
aos_bundle_unpack "$bundle" || exit 2
summary=$out/summary.txt
: >"$summary"

if [[ -z ${OCL_ICD_VENDORS:-} ]]; then
	icd=$(aos_nvidia_icd)
	if [[ -z $icd ]]; then
		echo "no NVIDIA OpenCL driver (libnvidia-opencl.so) found" | tee -a "$summary"
		exit 3
	fi
	mkdir -p "$B/vendors" && echo "$icd" >"$B/vendors/nvidia.icd"
	export OCL_ICD_VENDORS=$B/vendors
fi
echo "OCL_ICD_VENDORS=$OCL_ICD_VENDORS ($(cat "$OCL_ICD_VENDORS"/*.icd 2>/dev/null | tr '\n' ' '))" >>"$summary"

# Expected outcome per test: the two mismatch tests must report a difference.
paste -d'\t' "$B/diff-names.txt" "$B/diff-commands.txt" | grep -E "${ONLY:-.}" >"$B/jobs.tsv"
run_one() {
	local name=$1 cmd=$2 log rc want=0
	[[ $name == *mismatch* ]] && want=1
	log=$(eval "timeout ${DIFF_TIMEOUT:-120} $cmd" 2>&1); rc=$?
	if { ((want == 0)) && ((rc == 0)); } || { ((want == 1)) && ((rc != 0)) && [[ $log == *differ* || $log == *mismatch* ]]; }; then
		printf 'PASS %s\n' "$name"
	else
		printf 'FAIL %s (rc %d)\n%s\n' "$name" "$rc" "$(tail -n 15 <<<"$log" | sed 's/^/    /')"
	fi
}
export -f run_one; export DIFF_TIMEOUT
start=$SECONDS
# shellcheck disable=SC2016 # $0 and $1 belong to the inner bash
while IFS=$'\t' read -r name cmd; do printf '%s\0%s\0' "$name" "$cmd"; done <"$B/jobs.tsv" |
	xargs -0 -r -n2 -P "${JOBS:-8}" bash -c 'run_one "$0" "$1"' >"$out/diff.log"
pass=$(grep -c '^PASS' "$out/diff.log"); fail=$(grep -c '^FAIL' "$out/diff.log")
echo "diff: $pass passed, $fail failed of $(wc -l <"$B/jobs.tsv") in $((SECONDS - start)) s" | tee -a "$summary"
grep '^FAIL' "$out/diff.log" >>"$summary"

if ((${BENCH_REPS:-5} > 0)); then
	# One run per chunk setting (spread: as the daemon; 0: the compiled chunk), reports appended to bench.md. NVIDIA's
	# compute cache is off so its native builds compile as the JIT's do (the JIT cost column).
	: >"$out/bench.md"
	# One benchmark run: OPTION VALUE (the label too), then the spec globs.
	bench_run() {
		local opt=$1 val=$2 start=$SECONDS
		shift 2
		echo "=== $opt $val" >>"$out/bench.log"
		CUDA_CACHE_DISABLE=1 timeout "${BENCH_TIMEOUT:-240}" accelos-jit-bench --reps "${BENCH_REPS:-5}" \
			"$opt" "$val" --out "$B/bench.md" "$@" >>"$out/bench.log" 2>&1
		echo "bench $opt $val: rc $? in $((SECONDS - start)) s" | tee -a "$summary"
		{ echo "## $opt $val"; cat "$B/bench.md"; echo; } >>"$out/bench.md"
	}
	for chunk in $(for _ in $(seq "${BENCH_ROUNDS:-1}"); do echo "${BENCH_CHUNKS:-spread}"; done); do
		# shellcheck disable=SC2086 # BENCH_SPECS is a list of globs
		bench_run --chunk "$chunk" ${BENCH_SPECS:-bench/jit/specs/gpu/*.spec}
	done
	for phys in ${BENCH_PHYS:-}; do
		# shellcheck disable=SC2086 # BENCH_PHYS_SPECS is a list of globs
		bench_run --phys "$phys" ${BENCH_PHYS_SPECS:-${BENCH_SPECS:-bench/jit/specs/gpu/*.spec}}
	done
fi
# The compilers alone: native against the JIT's build without the rewrite, per spec.
for spec in ${PROBE_SPECS:-}; do
	src=$(sed -n 's/^source: //p' "$spec")
	while read -r launch; do # one probe per DIFF line
		# shellcheck disable=SC2086 # the DIFF line is a list of words
		REPS=${PROBE_REPS:-21} timeout 60 accelos-spir-probe "$src" $launch </dev/null \
			>>"$out/probe.log" 2>&1 || echo "probe $spec ($launch): failed" >>"$out/probe.log"
	done < <(sed -n 's#^// DIFF: ##p' "$spec")
done
mix_fail=0
for policy in ${MIX_POLICIES-fifo fair}; do
	start=$SECONDS
	echo "=== policy $policy" >>"$out/mix.txt"
	sock=$B/mix-$policy.sock
	mkdir -p "$B/proxy-vendors" && echo "$B/lib/libproxycl.so" >"$B/proxy-vendors/accelos.icd"
	echo "=== accelosd --policy $policy" >>"$out/accelosd.log"
	accelosd --socket "$sock" --vendors "$OCL_ICD_VENDORS" --policy "$policy" \
		--trace "$B/trace-$policy.jsonl" -v 2>>"$out/accelosd.log" &
	pid=$!
	for _ in $(seq 1 500); do [[ -S $sock ]] && break; sleep 0.02; done
	{
		OCL_ICD_VENDORS=$B/proxy-vendors ACCELOS_SOCKET=$sock timeout "${MIX_TIMEOUT:-150}" \
			accelos-mix --tenants "${TENANTS:-sgemm:mysgemmNT,stencil,mri-q:ComputeQ_GPU,tpacf}" \
			--platform accelOS --label "accelos-$policy" --out "$B/mix-$policy.jsonl" \
			--iso-cache "$B/iso-$policy.json" --quiet
		rc=$?
		accelosd --socket "$sock" --status
		accelos-report "$B/mix-$policy.jsonl"
		echo "--- from the daemon's trace"
		accelos-report "$B/trace-$policy.jsonl"
	} >>"$out/mix.txt" 2>&1
	kill -TERM "$pid"; wait "$pid"
	echo "mix $policy: rc $rc in $((SECONDS - start)) s" | tee -a "$summary"
	((rc == 0)) || mix_fail=1
done
((fail == 0 && mix_fail == 0))
