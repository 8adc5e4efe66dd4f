// Built-ins called with a dimension only known at run time.
// DIFF: --kernel dynamic_dim --global 16,8 --local 4,2 --arg uint:1 --arg buf:ulong:512:zero
kernel void dynamic_dim(uint d, global ulong *out)
{
	size_t i = get_global_id(1) * 16 + get_global_id(0);
	out[i * 4 + 0] = get_global_id(d);
	out[i * 4 + 1] = get_group_id(d ^ 1);
	out[i * 4 + 2] = get_num_groups(d);
	out[i * 4 + 3] = get_global_size(d + 1);
}
