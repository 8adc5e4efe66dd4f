// One work-group in total.
// DIFF: --kernel single_group --global 64 --local 64 --arg buf:float:64 --arg buf:float:64:zero
kernel void single_group(global const float *a, global float *c)
{
	c[get_global_id(0)] = a[63 - get_local_id(0)] + (float)get_num_groups(0);
}
