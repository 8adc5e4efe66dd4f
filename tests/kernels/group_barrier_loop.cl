// Barrier inside a data-independent loop with global memory fences.
// DIFF: --kernel group_barrier_loop --global 256 --local 32 --arg buf:int:256:mod100 --arg buf:int:256:zero
kernel void group_barrier_loop(global const int *in, global int *out)
{
	local int s[32];
	size_t l = get_local_id(0);
	int acc = in[get_global_id(0)];
	for (int r = 0; r < 5; r++) {
		s[l] = acc;
		barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
		acc += s[(l + r + 1) & 31];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	out[get_global_id(0)] = acc;
}
