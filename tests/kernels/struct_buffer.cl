// Array of structs in global memory.
// DIFF: --kernel struct_buffer --global 256 --local 32 --arg buf:int:1024:mod100 --arg buf:int:256:zero
typedef struct { int x, y, z, w; } quad_t;
kernel void struct_buffer(global const quad_t *q, global int *out)
{
	size_t i = get_global_id(0);
	quad_t v = q[i];
	out[i] = v.x * v.y - v.z + v.w * (int)get_group_id(0);
}
