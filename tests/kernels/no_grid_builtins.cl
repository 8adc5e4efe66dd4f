// Kernel that only uses local ids: rewritten but no replacement needed.
// DIFF: --kernel no_grid_builtins --global 128 --local 128 --arg buf:int:128:zero
kernel void no_grid_builtins(global int *out)
{
	out[get_local_id(0)] = (int)(get_local_id(0) * get_local_size(0));
}
