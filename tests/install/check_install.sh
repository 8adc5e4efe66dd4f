#!/usr/bin/env bash
# Installs the build into a staging DESTDIR and checks what an operator or a package gets: the
# daemon, the ICD and its vendor file naming the installed library, the runtime library bitcode,
# the tools, the systemd units naming the installed daemon with options it accepts, the sysusers
# entry, and the documentation the units point at.
#   check_install.sh BUILD_DIR
set -euo pipefail
build=$1
stage=$(mktemp -d "${TMPDIR:-/tmp}/accelos-install-XXXXXX")
trap 'rm -rf "$stage"' EXIT
fail() { echo "check_install: $*" >&2; exit 1; }

DESTDIR=$stage cmake --install "$build" >/dev/null
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
root=$stage$prefix

daemon=$(find "$root" -path '*/sbin/accelosd' -type f | head -1)
[[ -x $daemon ]] || fail "no executable sbin/accelosd under $root"
icd=$(find "$stage" -name accelos.icd | head -1)
[[ -n $icd ]] || fail "no accelos.icd installed"
lib=$(cat "$icd")
[[ -e $stage$lib ]] || fail "accelos.icd names $lib, which is not installed"
for tool in accelos-report accelos-mix accelos-bench; do
  [[ -n $(find "$root" -path "*/bin/$tool" -type f) ]] || fail "no $tool installed"
done

rtlib=$(find "$root" -path '*/accelos/rtlib' -type d | head -1)
[[ -n $rtlib && -f $rtlib/aos_rt-spir64.bc && -f $rtlib/aos_rt-nvptx64-nvidia-nvcl.bc ]] ||
  fail "runtime library bitcode missing under $root/share/accelos/rtlib"
if [[ -x $build/jit/accelos-clang-zygote ]]; then
  [[ -n $(find "$root" -path '*/libexec/accelos/accelos-clang-zygote' -type f -perm -u+x) ]] ||
    fail "the build has accelos-clang-zygote and the install has not (libexec/accelos)"
fi
libclc=$(sed -n 's/^AOS_LIBCLC_NVPTX:FILEPATH=//p' "$build/CMakeCache.txt")
if [[ -f $libclc ]]; then
  shards=$(sed -n 's/.*ClcShards = \([0-9]*\);.*/\1/p' "$(dirname "$0")/../../passes/clc_shards.h")
  n=$(find "$rtlib/clc-nvptx64" -name 'clc-*.bc' | wc -l)
  [[ $n -eq $shards ]] || fail "$n of libclc's $shards shards installed under $rtlib/clc-nvptx64"
fi

unit=$root/lib/systemd/system/accelosd.service
user_unit=$root/lib/systemd/user/accelosd.service
[[ -f $unit && -f $user_unit ]] || fail "systemd units missing under $root/lib/systemd"
for u in "$unit" "$user_unit"; do
  exec_start=$(sed -n 's/^ExecStart=//p' "$u")
  bin=${exec_start%% *}
  [[ $bin == "$prefix"/* ]] || fail "$u starts $bin, outside the prefix $prefix"
  [[ -x $stage$bin ]] || fail "$u starts $bin, which is not installed"
  # Every option the unit passes must be one the daemon knows.
  for opt in ${exec_start#* }; do
    [[ $opt == --* ]] || continue
    "$stage$bin" --help | grep -q -- "$opt" || fail "$u passes $opt, which accelosd --help does not list"
  done
  for doc in $(sed -n 's/^Documentation=//p' "$u"); do
    [[ -f $stage${doc#file://} ]] || fail "$u points at ${doc#file://}, which is not installed"
  done
done
grep -q '^ExecStart=.* --system --group accelos' "$unit" || fail "the system unit does not run --system --group accelos"
grep -q '^RuntimeDirectory=accelos' "$unit" || fail "the system unit does not create /run/accelos"
grep -q '^g accelos' "$root/lib/sysusers.d/accelos.conf" || fail "sysusers.d entry for the group accelos missing"
grep -q '^u accelos' "$root/lib/sysusers.d/accelos.conf" || fail "sysusers.d entry for the user accelos missing"
echo "check_install: OK ($root)"
