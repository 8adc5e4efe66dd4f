// OpenCL 2.x linear and enqueued-size built-ins.
// DIFF: --kernel linear_id --global 16,12 --local 4,3 --offset 2,1 --arg buf:ulong:768:zero -- -cl-std=CL2.0
kernel void linear_id(global ulong *out)
{
	size_t i = get_global_linear_id();
	out[i * 4 + 0] = get_global_id(0) + 100 * get_global_id(1);
	out[i * 4 + 1] = get_local_linear_id();
	out[i * 4 + 2] = get_enqueued_local_size(0) * 10 + get_enqueued_local_size(1);
	out[i * 4 + 3] = i;
}
