# shellcheck shell=bash
# Sourced by check.sh and sweep.sh: unpacks a bundle of make-bundle.sh and points the JIT at it.
#   aos_bundle_unpack BUNDLE   sets B (the unpacked tree) and exports PATH, LD_LIBRARY_PATH and
#                              the JIT's ACCELOS_* paths; returns non-zero when it cannot unpack
#   aos_nvidia_icd             prints the path of NVIDIA's OpenCL driver, nothing when none

aos_bundle_unpack() {
	B=${TMPDIR:-/tmp}/aos-gpu-bundle
	rm -rf "$B" && mkdir -p "$B" && tar -xJf "$1" -C "$B" || return 2
	export PATH=$B/bin:$PATH LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export ACCELOS_JIT_CLANG=$B/llvm/bin/clang ACCELOS_RTLIB_DIR=$B/rtlib ACCELOS_JIT_CACHE=$B/cache
	# libclc's shards (docs/jit.md).
	export ACCELOS_LIBCLC_NVPTX=$B/rtlib/clc-nvptx64
	# The bundle's zygote, else none (the build tree's path does not exist here).
	if [[ -x $B/bin/accelos-clang-zygote ]]; then
		export ACCELOS_JIT_ZYGOTE=$B/bin/accelos-clang-zygote
	else
		export ACCELOS_JIT_ZYGOTE=none
	fi
}

aos_nvidia_icd() {
	local icd
	icd=$(ldconfig -p | awk '/libnvidia-opencl\.so\.1/ {print $NF; exit}')
	[[ -n $icd ]] || icd=$(find /usr/local/nvidia /usr/lib /usr/lib64 /usr/local/cuda* \
		-name 'libnvidia-opencl.so*' 2>/dev/null | head -1)
	echo "$icd"
}
