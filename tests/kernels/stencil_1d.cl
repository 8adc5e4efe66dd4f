// 1D stencil with a halo in local memory.
// DIFF: --kernel stencil_1d --global 1024 --local 64 --arg buf:float:1024 --arg buf:float:1024:zero
kernel void stencil_1d(global const float *in, global float *out)
{
	local float s[66];
	size_t g = get_global_id(0), l = get_local_id(0), n = get_global_size(0);
	s[l + 1] = in[g];
	if (l == 0)
		s[0] = g > 0 ? in[g - 1] : 0.0f;
	if (l == get_local_size(0) - 1)
		s[l + 2] = g + 1 < n ? in[g + 1] : 0.0f;
	barrier(CLK_LOCAL_MEM_FENCE);
	out[g] = 0.25f * s[l] + 0.5f * s[l + 1] + 0.25f * s[l + 2];
}
