// Normalised coordinates with a linear filter and repeat addressing.
// DIFF: --kernel image_linear --global 16,16 --local 4,4 --arg image2d:8:8 --arg sampler:repeat:linear:norm --arg buf:float4:256:zero
kernel void image_linear(read_only image2d_t img, sampler_t s, global float4 *out)
{
	float2 c = (float2)((get_global_id(0) + 0.25f) / 8.0f, (get_global_id(1) + 0.5f) / 8.0f);
	out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = read_imagef(img, s, c);
}
