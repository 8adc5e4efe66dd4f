// 2D grid.
// DIFF: --kernel mat_add_2d --global 64,48 --local 8,4 --arg buf:float:3072 --arg buf:float:3072 --arg buf:float:3072:zero
kernel void mat_add_2d(global const float *a, global const float *b, global float *c)
{
	size_t x = get_global_id(0), y = get_global_id(1);
	size_t w = get_global_size(0);
	c[y * w + x] = a[y * w + x] - 2.0f * b[y * w + x];
}
