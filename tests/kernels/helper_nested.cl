// Three levels of helpers; the innermost reads the grid, never inlined by hand.
// DIFF: --kernel helper_nested --global 16,16 --local 4,4 --arg buf:float:256 --arg buf:float:256:zero
__attribute__((noinline)) size_t row(void) { return get_global_id(1); }
__attribute__((noinline)) size_t flat(void) { return row() * get_global_size(0) + get_global_id(0); }
__attribute__((noinline)) float fetch(global const float *p) { return p[flat()] * (float)(get_group_id(0) + 1); }
kernel void helper_nested(global const float *in, global float *out)
{
	out[flat()] = fetch(in) + (float)get_group_id(1);
}
