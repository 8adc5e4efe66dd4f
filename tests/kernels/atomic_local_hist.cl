// Local atomics into a kernel-scope histogram, merged with global atomics.
// DIFF: --kernel atomic_local_hist --global 4096 --local 128 --arg buf:uint:4096:mod32 --arg buf:uint:32:zero
kernel void atomic_local_hist(global const uint *in, global uint *hist)
{
	local uint h[32];
	size_t l = get_local_id(0);
	if (l < 32)
		h[l] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	atomic_add(&h[in[get_global_id(0)] & 31], 1u);
	barrier(CLK_LOCAL_MEM_FENCE);
	if (l < 32)
		atomic_add(&hist[l], h[l]);
}
