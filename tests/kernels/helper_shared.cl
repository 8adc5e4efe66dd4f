// One helper used by two kernels; each kernel gets its own rewrite.
// DIFF: --kernel first --global 256 --local 16 --arg buf:int:256:zero
// DIFF: --kernel second --global 8,32 --local 2,8 --arg buf:int:256:zero
__attribute__((noinline)) int where(void) { return (int)(get_group_id(0) * 1000 + get_global_id(0)); }
kernel void first(global int *out) { out[get_global_id(0)] = where(); }
kernel void second(global int *out) { out[get_global_id(1) * 8 + get_global_id(0)] = where() + (int)get_global_id(1); }
