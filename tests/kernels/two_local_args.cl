// Two local-pointer arguments and one local array in the kernel.
// DIFF: --kernel two_local_args --global 256 --local 16 --arg buf:uint:256:mod100 --arg local:64 --arg local:64 --arg buf:uint:256:zero
kernel void two_local_args(global const uint *in, local uint *x, local uint *y, global uint *out)
{
	local uint z[16];
	size_t l = get_local_id(0);
	x[l] = in[get_global_id(0)];
	y[l] = x[l] * 2u;
	z[l] = (uint)get_group_id(0);
	barrier(CLK_LOCAL_MEM_FENCE);
	out[get_global_id(0)] = x[15 - l] + y[(l + 3) & 15] + z[0];
}
