#!/usr/bin/env bash
# Runs a workload mix through ProxyCL against a private accelosd and prints the fairness report.
#   scripts/mix-through-proxy.sh BUILD_DIR OUT_DIR TENANTS [accelos-mix options...]
# Each tenant is a separate process that reaches the daemon through the real ICD loader.
# TENANTS is accelos-mix's --tenants list, or "" to pick mixes with options (--random K --count C).
# ACCELOS_POLICY selects the daemon's policy (default fair); records are labelled accelos-POLICY
# unless the options give a --label.
# ACCELOS_CONFIG names a daemon configuration file (docs/scheduler.md §5) to start it with.
# ACCELOS_DAEMON names another accelosd binary to run (default BUILD_DIR/accelosd/accelosd).
# ACCELOS_DAEMON_LOG=debug makes the daemon's log (OUT_DIR/accelosd.log) show every wave, hold and cut.
set -euo pipefail
build=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
tenants=$3
shift 3
rundir=$(mktemp -d "${TMPDIR:-/tmp}/accelos-mix-XXXXXX")
socket="$rundir/accelosd.sock"
daemon_pid=""
cleanup() {
  if [[ -n $daemon_pid ]] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid"
    wait "$daemon_pid" 2>/dev/null || true
  fi
  rm -rf "$rundir"
}
trap cleanup EXIT

export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$build/pocl-cache}"
policy="${ACCELOS_POLICY:-fair}"
# Fresh records, plots, isolated times and trace each run: isolated times are measured against this
# very daemon, the trace report below takes its own from those isolated runs, and the daemon appends.
rm -rf "$out/mix.jsonl" "$out/plots" "$out/isolated.json" "$out/trace.jsonl"
config_args=()
[[ -n ${ACCELOS_CONFIG:-} ]] && config_args=(--config "$ACCELOS_CONFIG")
verbosity=-v
[[ ${ACCELOS_DAEMON_LOG:-} == debug ]] && verbosity=-vv
daemon=${ACCELOS_DAEMON:-$build/accelosd/accelosd}
"$daemon" --socket "$socket" "${config_args[@]}" --policy "$policy" --trace "$out/trace.jsonl" "$verbosity" \
  2>"$out/accelosd.log" &
daemon_pid=$!
for _ in $(seq 1 500); do
  [[ -S $socket ]] && break
  kill -0 "$daemon_pid" 2>/dev/null || { cat "$out/accelosd.log" >&2; echo "accelosd failed to start" >&2; exit 1; }
  sleep 0.02
done
[[ -S $socket ]] || { echo "accelosd did not open $socket" >&2; exit 1; }

# Applications find accelOS only through the loader's vendor file: nothing else is changed.
export OCL_ICD_VENDORS="$build/vendors"
export ACCELOS_SOCKET="$socket"
tenant_args=()
[[ -n $tenants ]] && tenant_args=(--tenants "$tenants")
"$build/bench/accelos-mix" "${tenant_args[@]}" --platform accelOS --label "accelos-$policy" \
  --out "$out/mix.jsonl" --iso-cache "$out/isolated.json" --quiet "$@"
echo "--- daemon ---"
"$daemon" --socket "$socket" --status
echo "client connections served: $(grep -c 'connected (pid' "$out/accelosd.log" || true) (log: $out/accelosd.log)"
echo "--- fairness report (records: $out/mix.jsonl) ---"
"$build/bench/accelos-report" --plot-dir "$out/plots" "$out/mix.jsonl"
# The daemon's own view: one record per launch, mixes and isolated times derived from busy periods
# (the tenants' warm-up runs may overlap too and then count as a mix of their own). Those assume
# tenants that run once: a tenant in loop mode pauses between executions, and each run of launches
# would count as a tenant of its own.
echo "--- from the daemon's trace ($out/trace.jsonl) ---"
if [[ " $* " == *" --mode loop "* ]]; then
  echo "not derived: tenants ran in loop mode (docs/bench.md, *Daemon traces*); the records are in the file"
else
  "$build/bench/accelos-report" "$out/trace.jsonl"
fi
