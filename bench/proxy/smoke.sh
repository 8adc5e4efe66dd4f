#!/bin/sh
# ctest bench_proxy_smoke: accelos-proxy-bench --quick through run.sh must exit 0 and print every
# row (the labels come from --list-rows, so this never drifts from the program). No timing checks.
#   bench/proxy/smoke.sh BUILD_DIR
set -eu
build=$1
here=$(dirname "$0")
out=$(mktemp "${TMPDIR:-/tmp}/accelos-proxy-smoke.XXXXXX")
json=$out.json
trap 'rm -f "$out" "$json"' EXIT

status=0
sh "$here/run.sh" "$build" --quick --json "$json" >"$out" || status=$?
cat "$out"
if [ $status -ne 0 ]; then
    echo "smoke: accelos-proxy-bench exited with status $status" >&2
    exit 1
fi
missing=0
labels=$("$build/bench/proxy/accelos-proxy-bench" --list-rows)
echo "$labels" | while IFS= read -r label; do
    if ! grep -qF -- "$label" "$out"; then
        echo "smoke: row missing from the output: $label" >&2
        exit 1
    fi
done || missing=1
# The JSON must be complete: one row object per table row with a latency or bandwidth, then the
# floor, idle and helper sections.
for part in '"rows":[' '"floor":{' '"idle":{' '"busy_helper":{'; do
    if ! grep -qF -- "$part" "$json"; then
        echo "smoke: $part missing from the JSON" >&2
        missing=1
    fi
done
if [ "$(tail -c 3 "$json")" != "}}" ]; then
    echo "smoke: the JSON is cut short" >&2
    missing=1
fi
exit $missing
