// Many arguments of mixed kinds (buffers, locals, scalars, vectors).
// DIFF: --kernel mixed_args --global 512 --local 32 --arg buf:int:512 --arg local:128 --arg int2:3,4 --arg buf:float:512 --arg local:256 --arg ulong:77 --arg buf:float:512:zero
kernel void mixed_args(global const int *a, local int *la, int2 v, global const float *b,
		       local float *lb, ulong u, global float *out)
{
	size_t l = get_local_id(0), g = get_global_id(0);
	la[l] = a[g] & 1023;
	lb[l] = b[g];
	barrier(CLK_LOCAL_MEM_FENCE);
	out[g] = (float)(la[(l + 1) % 32] * v.x + v.y) + lb[31 - l] * (float)(u + get_group_id(0));
}
