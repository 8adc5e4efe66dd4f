// 2D grid with offsets in both dimensions.
// DIFF: --kernel mat_2d_offset --global 32,16 --local 4,4 --offset 8,4 --arg buf:int:2048:zero
kernel void mat_2d_offset(global int *out)
{
	size_t x = get_global_id(0), y = get_global_id(1);
	out[y * 64 + x] = (int)(x * 1000 + y + get_global_offset(1) * 7 + get_global_offset(0));
}
