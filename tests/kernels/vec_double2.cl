// double2 vectors (cl_khr_fp64).
// DIFF: --kernel vec_double2 --global 256 --local 16 --arg buf:double2:256 --arg buf:double2:256:zero
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void vec_double2(global const double2 *a, global double2 *c)
{
	size_t i = get_global_id(0);
	c[i] = a[i] * (double2)(1.5, -0.25) + (double2)((double)get_group_id(0));
}
