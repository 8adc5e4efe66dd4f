// printf in a few work-items (order of lines may differ; buffers must not).
// DIFF: --kernel printf_kernel --global 64 --local 16 --arg buf:int:64:zero
kernel void printf_kernel(global int *out)
{
	size_t g = get_global_id(0);
	if (g % 29 == 0)
		printf("work-item %d in group %d\n", (int)g, (int)get_group_id(0));
	out[g] = (int)(g * g);
}
