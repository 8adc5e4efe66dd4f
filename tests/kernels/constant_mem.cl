// constant buffer argument used as a lookup table.
// DIFF: --kernel constant_mem --global 1024 --local 64 --arg buf:float:16 --arg buf:uint:1024:mod16 --arg buf:float:1024:zero
kernel void constant_mem(constant float *coef, global const uint *idx, global float *out)
{
	size_t i = get_global_id(0);
	out[i] = coef[idx[i]] * coef[get_group_id(0) & 15];
}
