// Per-group control flow (Figure 8 of the paper: branch on the group id).
// DIFF: --kernel divergent_groups --global 1024 --local 32 --arg buf:float:1024 --arg buf:float:1024 --arg buf:float:1024:zero --arg uint:13
kernel void divergent_groups(global const float *ina, global const float *inb, global float *out, uint nconst)
{
	size_t gid = get_global_id(0);
	size_t grid = get_group_id(0);
	if (grid < nconst)
		out[gid] = ina[gid] + inb[gid];
	else
		out[gid] = ina[gid] - inb[gid];
}
