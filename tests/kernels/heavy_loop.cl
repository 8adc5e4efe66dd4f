// Long kernel (chunk 1): many instructions per work-item.
// DIFF: --kernel heavy_loop --global 1024 --local 32 --arg buf:float:1024 --arg buf:float:1024:zero --arg int:50
kernel void heavy_loop(global const float *a, global float *c, int iters)
{
	size_t i = get_global_id(0);
	float x = a[i], y = 0.0f;
	for (int k = 0; k < iters; k++) {
		y = y * 0.5f + x * (float)k;
		x = x * x - 0.25f;
		if (x > 2.0f)
			x -= 1.0f;
		y += (k & 1) ? x : -x;
	}
	c[i] = y + (float)get_group_id(0);
}
