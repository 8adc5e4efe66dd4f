// Early return in some work-items (bounds check on a padded grid).
// DIFF: --kernel early_return --global 1024 --local 64 --arg uint:1000 --arg buf:float:1024 --arg buf:float:1024:zero
kernel void early_return(uint n, global const float *in, global float *out)
{
	size_t i = get_global_id(0);
	if (i >= n)
		return;
	out[i] = in[i] * in[i] + (float)get_group_id(0);
}
