#!/bin/sh
# Runs accelos-proxy-bench against a private accelosd.
#   bench/proxy/run.sh BUILD_DIR [accelos-proxy-bench options]
# The loader gets a temporary vendor directory holding pocl.icd and the build tree's accelos.icd,
# so one process sees both the "Portable Computing Language" and the "accelOS" platform. The
# daemon serves PoCL from the same directory (it never loads accelos.icd itself).
# POCL_ICD overrides PoCL's vendor file (default /etc/OpenCL/vendors/pocl.icd); POCL_CACHE_DIR is
# kept when set, else a private one is used.
set -eu

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    echo "usage: $0 BUILD_DIR [accelos-proxy-bench options]" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
shift
daemon=$build/accelosd/accelosd
bench=$build/bench/proxy/accelos-proxy-bench
pocl_icd=${POCL_ICD:-/etc/OpenCL/vendors/pocl.icd}
for f in "$daemon" "$bench" "$build/vendors/accelos.icd" "$pocl_icd"; do
    if [ ! -e "$f" ]; then
        echo "$0: missing $f (build first: cmake --build $build)" >&2
        exit 2
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/accelos-proxy-bench.XXXXXX")
daemon_pid=
cleanup() {
    if [ -n "$daemon_pid" ]; then
        kill "$daemon_pid" 2>/dev/null || true
        wait "$daemon_pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir "$tmp/vendors" "$tmp/pocl-cache"
cp "$pocl_icd" "$tmp/vendors/pocl.icd"
cp "$build/vendors/accelos.icd" "$tmp/vendors/accelos.icd"
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$tmp/pocl-cache}"

sock=$tmp/accelosd.sock
"$daemon" --socket "$sock" --vendors "$tmp/vendors" &
daemon_pid=$!
tries=0
until "$daemon" --status --socket "$sock" >/dev/null 2>&1; do
    tries=$((tries + 1))
    if [ $tries -gt 500 ] || ! kill -0 "$daemon_pid" 2>/dev/null; then
        echo "$0: accelosd did not start" >&2
        exit 1
    fi
    sleep 0.02
done

status=0
OCL_ICD_VENDORS=$tmp/vendors ACCELOS_SOCKET=$sock "$bench" --daemon-pid "$daemon_pid" "$@" || status=$?
exit $status
