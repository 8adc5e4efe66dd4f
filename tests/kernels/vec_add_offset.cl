// 1D launch with a global offset.
// DIFF: --kernel vec_add_offset --global 1024 --local 32 --offset 512 --arg buf:int:2048 --arg buf:int:2048:zero
kernel void vec_add_offset(global const int *a, global int *c)
{
	size_t i = get_global_id(0);
	c[i] = a[i] * 3 + (int)get_global_offset(0);
}
