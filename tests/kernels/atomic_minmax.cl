// atomic_min / atomic_max / atomic_xor on global ints.
// DIFF: --kernel atomic_minmax --global 2048 --local 32 --arg buf:int:2048 --arg buf:int:3:zero
kernel void atomic_minmax(global const int *in, global int *res)
{
	int v = in[get_global_id(0)];
	atomic_min(&res[0], v);
	atomic_max(&res[1], v);
	atomic_xor(&res[2], v ^ (int)get_group_id(0));
}
