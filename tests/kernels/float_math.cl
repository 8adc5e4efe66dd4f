// float math built-ins.
// DIFF: --kernel float_math --global 1024 --local 64 --arg buf:float:1024 --arg buf:float:1024:zero
kernel void float_math(global const float *a, global float *c)
{
	size_t i = get_global_id(0);
	c[i] = sin(a[i]) * cos(a[i] * 0.5f) + log1p(a[i]) + pown(a[i], 3);
}
