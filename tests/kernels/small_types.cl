// char / uchar / short arithmetic with wrap-around.
// DIFF: --kernel small_types --global 2048 --local 64 --arg buf:uchar:2048 --arg buf:short:2048 --arg buf:char:2048:zero
kernel void small_types(global const uchar *a, global const short *b, global char *c)
{
	size_t i = get_global_id(0);
	c[i] = (char)(a[i] * 3 + b[i] / 7 + (short)get_group_id(0));
}
