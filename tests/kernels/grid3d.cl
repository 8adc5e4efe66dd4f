// 3D grid: every id and size built-in.
// DIFF: --kernel grid3d --global 8,8,8 --local 2,4,2 --arg buf:uint:4096:zero
kernel void grid3d(global uint *out)
{
	size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
	size_t i = (z * get_global_size(1) + y) * get_global_size(0) + x;
	out[i * 8 + 0] = (uint)get_group_id(0);
	out[i * 8 + 1] = (uint)get_group_id(1);
	out[i * 8 + 2] = (uint)get_group_id(2);
	out[i * 8 + 3] = (uint)(get_num_groups(0) * 100 + get_num_groups(1) * 10 + get_num_groups(2));
	out[i * 8 + 4] = (uint)get_local_id(0) + 10 * (uint)get_local_id(1);
	out[i * 8 + 5] = (uint)get_local_id(2);
	out[i * 8 + 6] = (uint)get_work_dim();
	out[i * 8 + 7] = (uint)get_local_size(1);
}
