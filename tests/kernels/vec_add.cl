// 1D element-wise add.
// DIFF: --kernel vec_add --global 4096 --local 64 --arg buf:float:4096 --arg buf:float:4096 --arg buf:float:4096:zero
kernel void vec_add(global const float *a, global const float *b, global float *c)
{
	size_t i = get_global_id(0);
	c[i] = a[i] + b[i];
}
