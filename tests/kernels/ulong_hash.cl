// 64-bit hash loop per work-item.
// DIFF: --kernel ulong_hash --global 512 --local 16 --arg buf:ulong:512 --arg buf:ulong:512:zero
kernel void ulong_hash(global const ulong *a, global ulong *c)
{
	ulong h = a[get_global_id(0)] ^ get_group_id(0);
	for (int r = 0; r < 16; r++) {
		h ^= h >> 33;
		h *= 0xff51afd7ed558ccdUL;
		h ^= h >> 29;
	}
	c[get_global_id(0)] = h;
}
