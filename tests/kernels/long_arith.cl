// 64-bit arithmetic: multiply, shift, divide.
// DIFF: --kernel long_arith --global 1024 --local 64 --arg buf:long:1024 --arg buf:long:1024:zero
kernel void long_arith(global const long *a, global long *c)
{
	size_t i = get_global_id(0);
	long v = a[i];
	c[i] = (v * 6364136223846793005L + (long)get_global_id(0)) ^ (v >> 17) ^ (v / 1000003L);
}
