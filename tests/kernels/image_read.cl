// Image read with an unnormalised nearest sampler into a buffer.
// DIFF: --kernel image_read --global 32,16 --local 8,4 --arg image2d:32:16 --arg sampler:clamp:nearest:unnorm --arg buf:float4:512:zero
kernel void image_read(read_only image2d_t img, sampler_t s, global float4 *out)
{
	int2 p = (int2)((int)get_global_id(0), (int)get_global_id(1));
	out[p.y * 32 + p.x] = read_imagef(img, s, p) * (float)(get_group_id(0) + 1);
}
