// int8 vectors with shifts and selects.
// DIFF: --kernel vec_int8 --global 512 --local 32 --arg buf:int8:512 --arg buf:int8:512:zero
kernel void vec_int8(global const int8 *a, global int8 *c)
{
	size_t i = get_global_id(0);
	int8 v = a[i];
	c[i] = select(v >> 3, v << 1, v > (int8)0) + (int8)((int)get_global_id(0));
}
