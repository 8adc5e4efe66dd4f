// Scalar argument by value.
// DIFF: --kernel saxpy --global 2048 --local 128 --arg float:2.5 --arg buf:float:2048 --arg buf:float:2048
kernel void saxpy(float a, global const float *x, global float *y)
{
	size_t i = get_global_id(0);
	y[i] = a * x[i] + y[i];
}
