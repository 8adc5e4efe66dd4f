// Tree reduction through a local buffer passed as an argument.
// DIFF: --kernel reduce_local_arg --global 4096 --local 128 --arg buf:int:4096:mod1000 --arg buf:int:32:zero --arg local:512
kernel void reduce_local_arg(global const int *in, global int *out, local int *scratch)
{
	size_t l = get_local_id(0);
	scratch[l] = in[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
		if (l < s)
			scratch[l] += scratch[l + s];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0)
		out[get_group_id(0)] = scratch[0];
}
