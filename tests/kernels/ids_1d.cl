// Grid built-ins with dimensions past work_dim return their defaults.
// DIFF: --kernel ids_1d --global 256 --local 16 --arg buf:ulong:2048:zero
kernel void ids_1d(global ulong *out)
{
	size_t i = get_global_id(0);
	out[i * 8 + 0] = get_group_id(0);
	out[i * 8 + 1] = get_num_groups(0);
	out[i * 8 + 2] = get_global_size(0);
	out[i * 8 + 3] = get_group_id(1) + get_group_id(2);
	out[i * 8 + 4] = get_num_groups(1) * get_num_groups(2);
	out[i * 8 + 5] = get_global_size(2) + get_global_id(1);
	out[i * 8 + 6] = get_global_offset(1);
	out[i * 8 + 7] = get_global_size(1) * get_local_size(2) + get_global_offset(2);
}
