// float3 through vload3/vstore3.
// DIFF: --kernel vec3 --global 300 --local 20 --arg buf:float:900 --arg buf:float:900:zero
kernel void vec3(global const float *in, global float *out)
{
	size_t i = get_global_id(0);
	float3 v = vload3(i, in);
	vstore3(cross(v, (float3)(0.0f, 0.0f, 1.0f)) + v.zxy, i, out);
}
