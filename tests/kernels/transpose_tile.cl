// Tiled transpose: 2D grid, local tile declared in the kernel.
// DIFF: --kernel transpose_tile --global 64,32 --local 8,8 --arg buf:float:2048 --arg buf:float:2048:zero
#define T 8
kernel void transpose_tile(global const float *in, global float *out)
{
	local float tile[T][T + 1];
	size_t w = get_global_size(0), h = get_global_size(1);
	size_t lx = get_local_id(0), ly = get_local_id(1);
	tile[ly][lx] = in[get_global_id(1) * w + get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	size_t ox = get_group_id(1) * T + lx, oy = get_group_id(0) * T + ly;
	out[oy * h + ox] = tile[lx][ly];
}
