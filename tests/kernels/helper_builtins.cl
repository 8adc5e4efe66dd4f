// Helper functions that call the grid built-ins.
// DIFF: --kernel helper_builtins --global 512 --local 32 --arg buf:int:512:zero
int my_index(void) { return (int)get_global_id(0); }
int my_group(void) { return (int)get_group_id(0) * (int)get_num_groups(0); }
kernel void helper_builtins(global int *out)
{
	out[my_index()] = my_group() + (int)get_local_id(0);
}
