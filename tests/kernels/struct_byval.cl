// Struct passed by value.
// DIFF: --kernel struct_byval --global 512 --local 32 --arg raw:int=3,float=0.5,int=7,float=-2 --arg buf:float:512 --arg buf:float:512:zero
typedef struct { int a; float s; int b; float t; } params_t;
kernel void struct_byval(params_t p, global const float *in, global float *out)
{
	size_t i = get_global_id(0);
	out[i] = in[i] * p.s + (float)(p.a * (int)get_group_id(0) + p.b) * p.t;
}
