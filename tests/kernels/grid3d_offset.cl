// 3D grid with offsets.
// DIFF: --kernel grid3d_offset --global 4,6,8 --local 2,3,2 --offset 1,2,3 --arg buf:ulong:2048:zero
kernel void grid3d_offset(global ulong *out)
{
	size_t x = get_global_id(0) - get_global_offset(0);
	size_t y = get_global_id(1) - get_global_offset(1);
	size_t z = get_global_id(2) - get_global_offset(2);
	size_t i = (z * 6 + y) * 4 + x;
	out[i * 2] = get_global_id(0) | (get_global_id(1) << 16) | (get_global_id(2) << 32);
	out[i * 2 + 1] = get_group_id(0) + get_group_id(1) * 10 + get_group_id(2) * 100;
}
