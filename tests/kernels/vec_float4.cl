// float4 arithmetic and swizzles.
// DIFF: --kernel vec_float4 --global 1024 --local 64 --arg buf:float4:1024 --arg buf:float4:1024 --arg buf:float4:1024:zero
kernel void vec_float4(global const float4 *a, global const float4 *b, global float4 *c)
{
	size_t i = get_global_id(0);
	float4 x = a[i], y = b[i];
	c[i] = x.wzyx * y + (float4)(get_group_id(0));
}
