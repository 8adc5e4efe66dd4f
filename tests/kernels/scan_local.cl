// Work-group inclusive scan (Hillis-Steele) in a local array.
// DIFF: --kernel scan_local --global 1024 --local 64 --arg buf:uint:1024:mod10 --arg buf:uint:1024:zero
kernel void scan_local(global const uint *in, global uint *out)
{
	local uint buf[2][64];
	size_t l = get_local_id(0);
	int src = 0;
	buf[0][l] = in[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t off = 1; off < 64; off <<= 1) {
		buf[1 - src][l] = buf[src][l] + (l >= off ? buf[src][l - off] : 0u);
		src = 1 - src;
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	out[get_global_id(0)] = buf[src][l] + (uint)get_group_id(0);
}
