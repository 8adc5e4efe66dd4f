#!/usr/bin/env bash
# Packs the JIT tools, the daemon with ProxyCL and the workload mix, the clang-15 they drive, the runtime bitcode and every
# shared library they need beyond glibc into one archive, so the differential
# corpus, the JIT benchmark and a mix through the daemon can run on a machine that has a GPU and its
# OpenCL driver but none of Debian's LLVM-15 packages (a lent GPU machine).
#
# usage: scripts/gpu/make-bundle.sh BUILD_DIR OUT.tar.xz
# The archive also holds diff-commands.txt: the ctest jit.diff.* command lines
# with paths made relative to the source tree. Run it with scripts/gpu/check.sh.
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
out=${2:?output archive}
src=$(cd "$(dirname "$0")/../.." && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

clang_real=$(readlink -f "$(command -v clang-15)")
resdir=$("$clang_real" -print-resource-dir)
mkdir -p "$stage"/{bin,lib,rtlib} "$stage/llvm/bin" "$stage/llvm/lib/clang/$(basename "$resdir")/include"
cp "$build/jit/cli/accelos-jit" "$build/bench-jit/accelos-jit-bench" "$build/bench-jit/accelos-spir-probe" "$build/accelosd/accelosd" \
	"$build/bench/accelos-mix" "$build/bench/accelos-report" "$stage/bin/"
[[ -x $build/jit/accelos-clang-zygote ]] && cp "$build/jit/accelos-clang-zygote" "$stage/bin/"
cp -L "$build/proxycl/libproxycl.so" "$stage/lib/libproxycl.so"
cp "$clang_real" "$stage/llvm/bin/clang"
cp "$resdir"/include/opencl-c.h "$resdir"/include/opencl-c-base.h \
	"$stage/llvm/lib/clang/$(basename "$resdir")/include/"
cp "$build"/rtlib/aos_rt-*.bc "$stage/rtlib/"
# libclc as the build's shards only (the same modules as the whole library: docs/jit.md); the
# whole library would take 1.5 of the 64 MiB a lent machine carries.
cp -r "$build/rtlib/clc-nvptx64" "$stage/rtlib/"

# glibc and the C++ runtime stay the target's own (a newer one runs our code).
skip='^(linux-vdso|ld-linux|libc\.|libm\.|libpthread|libdl\.|librt\.|libstdc\+\+|libgcc_s)'
for b in "$stage"/bin/* "$stage/llvm/bin/clang"; do
	ldd "$b" | awk '$3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
	[[ $name =~ $skip ]] || cp -L "$path" "$stage/lib/$name"
done

(cd "$build" && ctest -N -V -R '^jit\.diff\.') |
	sed -n 's/^[0-9]*: Test command: //p' |
	sed -e "s|$build/jit/cli/accelos-jit|accelos-jit|" -e "s|$src/||g" \
	>"$stage/diff-commands.txt"
(cd "$build" && ctest -N -R '^jit\.diff\.') | sed -n 's/^ *Test *#[0-9]*: //p' \
	>"$stage/diff-names.txt"
[[ $(wc -l <"$stage/diff-commands.txt") == $(wc -l <"$stage/diff-names.txt") ]]

# Symbols and debug info off: the archive must fit the 64 MiB a lent machine carries with the tree.
strip --strip-unneeded "$stage"/bin/* "$stage"/lib/* "$stage/llvm/bin/clang" 2>/dev/null || true
tar -C "$stage" -cf - . | xz -T2 -6 >"$out"
echo "bundle: $out ($(du -h "$out" | cut -f1), $(wc -l <"$stage/diff-commands.txt") diff commands)"
