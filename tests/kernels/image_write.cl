// Image written by the kernel (compared as an output).
// DIFF: --kernel image_write --global 16,16 --local 4,4 --arg buf:float4:256 --arg wimage2d:16:16
kernel void image_write(global const float4 *in, write_only image2d_t out)
{
	int x = (int)get_global_id(0), y = (int)get_global_id(1);
	write_imagef(out, (int2)(x, y), in[y * 16 + x] + (float4)((float)get_group_id(1)));
}
