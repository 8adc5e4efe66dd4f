// Early return after the last barrier, with local data before it.
// DIFF: --kernel early_return_barrier --global 512 --local 32 --arg buf:int:512:mod50 --arg buf:int:512:zero
kernel void early_return_barrier(global const int *in, global int *out)
{
	local int t[32];
	size_t l = get_local_id(0);
	t[l] = in[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	if (t[31 - l] % 3 == 0)
		return;
	out[get_global_id(0)] = t[31 - l] + (int)get_group_id(0);
}
