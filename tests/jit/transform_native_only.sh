#!/bin/sh
# accelos-jit transform on a program the target cannot express (images have no PTX in libclc):
# each kernel says why, the exit status is 0, and no empty module is written.
#   transform_native_only.sh ACCELOS_JIT SOURCE.cl OUT.ptx
jit=$1 src=$2 out=$3
rm -f "$out"
log=$("$jit" transform "$src" --target nvptx64 --no-cache -o "$out" 2>&1) || { echo "$log"; exit 1; }
echo "$log"
case $log in
*"image_read: not rewritten: the nvptx64 target has no implementation of: _Z11read_imagef"*) ;;
*) echo "FAIL: no reason given"; exit 1 ;;
esac
if [ -e "$out" ]; then
	echo "FAIL: $out was written"
	exit 1
fi
