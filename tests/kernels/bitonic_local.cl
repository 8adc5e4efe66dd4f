// Bitonic sort of each work-group's block in local memory.
// DIFF: --kernel bitonic_local --global 1024 --local 64 --arg buf:int:1024 --arg buf:int:1024:zero
kernel void bitonic_local(global const int *in, global int *out)
{
	local int s[64];
	uint l = (uint)get_local_id(0);
	s[l] = in[get_global_id(0)];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint k = 2; k <= 64; k <<= 1)
		for (uint j = k >> 1; j > 0; j >>= 1) {
			uint p = l ^ j;
			if (p > l) {
				int a = s[l], b = s[p];
				bool up = (l & k) == 0;
				if ((a > b) == up) {
					s[l] = b;
					s[p] = a;
				}
			}
			barrier(CLK_LOCAL_MEM_FENCE);
		}
	out[get_global_id(0)] = s[l];
}
