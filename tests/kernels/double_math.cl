// double precision math built-ins.
// DIFF: --kernel double_math --global 512 --local 32 --arg buf:double:512 --arg buf:double:512:zero
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void double_math(global const double *a, global double *c)
{
	size_t i = get_global_id(0);
	c[i] = sqrt(a[i] + 1.0) * exp(-a[i]) + fma(a[i], 2.0, (double)get_global_id(0));
}
