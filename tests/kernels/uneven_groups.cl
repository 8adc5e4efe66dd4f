// Group counts that do not divide evenly by physical groups or chunks.
// DIFF: --kernel uneven_groups --global 91,7 --local 7,7 --arg buf:int:637:zero
kernel void uneven_groups(global int *out)
{
	size_t i = get_global_id(1) * 91 + get_global_id(0);
	out[i] = (int)(get_group_id(0) * 100 + get_group_id(1) * 10 + get_num_groups(0));
}
