// Very small kernel (largest adaptive chunk).
// DIFF: --kernel tiny_kernel --global 8192 --local 16 --arg buf:int:8192:zero
kernel void tiny_kernel(global int *out)
{
	out[get_global_id(0)] = (int)get_group_id(0);
}
