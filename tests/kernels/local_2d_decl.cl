// 2D local array declared in the kernel, read back transposed in the group.
// DIFF: --kernel local_2d_decl --global 16,16 --local 4,4 --arg buf:int:256:mod1000 --arg buf:int:256:zero
kernel void local_2d_decl(global const int *in, global int *out)
{
	local int t[4][4];
	size_t lx = get_local_id(0), ly = get_local_id(1);
	size_t i = get_global_id(1) * 16 + get_global_id(0);
	t[ly][lx] = in[i];
	barrier(CLK_LOCAL_MEM_FENCE);
	out[i] = t[lx][ly] * 2 + t[0][0];
}
