// Tree reduction through a local array declared in the kernel.
// DIFF: --kernel reduce_local_decl --global 2048 --local 64 --arg buf:float:2048 --arg buf:float:32:zero
kernel void reduce_local_decl(global const float *in, global float *out)
{
	local float tile[64];
	size_t l = get_local_id(0);
	tile[l] = in[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t s = 32; s > 0; s >>= 1) {
		if (l < s)
			tile[l] += tile[l + s];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0)
		out[get_group_id(0)] = tile[0];
}
