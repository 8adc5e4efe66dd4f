// Many virtual groups (4096) with one work-item each.
// DIFF: --kernel large_grid --global 4096 --local 1 --arg buf:uint:4096:zero
kernel void large_grid(global uint *out)
{
	out[get_global_id(0)] = (uint)(get_group_id(0) * 2654435761u);
}
