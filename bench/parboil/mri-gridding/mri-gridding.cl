/* mri-gridding: convolve non-Cartesian MRI samples onto a G^3 Cartesian
 * grid with a separable Kaiser-Bessel window of half-width W (looked up in
 * a table indexed by (d/W)^2). Samples are first binned into cubic bins of
 * B^3 cells and sorted by bin (LSD radix sort, 4 bits per pass, built from
 * split + scan), so each grid point only visits nearby bins.
 *
 * Launch shapes (WG = 256, SCAN_BLOCK = 512 elements per scan block):
 * binning_kernel:   1D global Npad (N rounded up to 256), local 256.
 *                   Padding items get key 0xffffffff so they sort last.
 * splitSort:        1D global Npad, local 256. Stable 4-bit split of one
 *                   256-key block in local memory; writes the block's digit
 *                   histogram (digit-major) and digit run starts.
 * scan_L1_kernel:   1D global nblocks*256, local 256; exclusive Blelloch
 *                   scan of each 512-element block, block totals out.
 * scan_inter1_kernel: 1D global 512, local 512 (one work-group): up-sweep
 *                   over up to 1024 block totals.
 * scan_inter2_kernel: same shape: down-sweep, giving exclusive offsets.
 * uniformAdd:       1D global m rounded up to 256, local 256.
 * splitRearrange:   1D global Npad, local 256; scatters each key to its
 *                   global position for the current digit.
 * reorder_kernel:   1D global N rounded up to 256, local 256; gathers the
 *                   sample data into sorted order.
 * gridding_GPU:     3D global (G, G, G), local (8, 8, 1); one work-item per
 *                   grid point. */
#define WG 256
#define SCAN_BLOCK 512
#define INTER_MAX 1024

__kernel void binning_kernel(__global const float4 *pos, int n, int npad, int B, int nbd,
			     __global uint *keys, __global uint *vals, __global uint *binCount)
{
	int i = get_global_id(0);
	if (i >= npad)
		return;
	if (i >= n) {
		keys[i] = 0xffffffffu;
		vals[i] = i;
		return;
	}
	float4 p = pos[i];
	int bx = min((int)(p.x / B), nbd - 1), by = min((int)(p.y / B), nbd - 1), bz = min((int)(p.z / B), nbd - 1);
	uint key = bx + nbd * (by + nbd * bz);
	keys[i] = key;
	vals[i] = i;
	atomic_inc(&binCount[key]);
}

__kernel void splitSort(__global const uint *keys, __global const uint *vals, int shift,
			__global uint *keysBlk, __global uint *valsBlk,
			__global uint *blockHist, __global uint *localStart, int numBlocks)
{
	__local uint lk[WG], lv[WG], scan[WG], starts[16], counts[16];
	int lid = get_local_id(0), gid = get_global_id(0), blk = get_group_id(0);
	uint k = keys[gid], v = vals[gid];

	/* Four stable 1-bit splits = one stable 4-bit split. */
	for (int bit = shift; bit < shift + 4; bit++) {
		uint zero = ((k >> bit) & 1u) == 0;
		scan[lid] = zero;
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int off = 1; off < WG; off <<= 1) {
			uint t = lid >= off ? scan[lid - off] : 0;
			barrier(CLK_LOCAL_MEM_FENCE);
			scan[lid] += t;
			barrier(CLK_LOCAL_MEM_FENCE);
		}
		uint excl = scan[lid] - zero, zeros = scan[WG - 1];
		uint dst = zero ? excl : zeros + ((uint)lid - excl);
		lk[dst] = k;
		lv[dst] = v;
		barrier(CLK_LOCAL_MEM_FENCE);
		k = lk[lid];
		v = lv[lid];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (lid < 16) {
		starts[lid] = 0;
		counts[lid] = 0;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	uint d = (k >> shift) & 15u;
	uint prev = lid > 0 ? (lk[lid - 1] >> shift) & 15u : 16u;
	uint next = lid < WG - 1 ? (lk[lid + 1] >> shift) & 15u : 16u;
	if (d != prev)
		starts[d] = lid;
	barrier(CLK_LOCAL_MEM_FENCE);
	if (d != next)
		counts[d] = lid + 1 - starts[d];
	barrier(CLK_LOCAL_MEM_FENCE);
	if (lid < 16) {
		blockHist[lid * numBlocks + blk] = counts[lid];
		localStart[blk * 16 + lid] = starts[lid];
	}
	keysBlk[gid] = k;
	valsBlk[gid] = v;
}

__kernel void splitRearrange(__global const uint *keysBlk, __global const uint *valsBlk, int shift,
			     __global const uint *blockScan, __global const uint *localStart,
			     int numBlocks, __global uint *keysOut, __global uint *valsOut)
{
	int lid = get_local_id(0), gid = get_global_id(0), blk = get_group_id(0);
	uint k = keysBlk[gid];
	uint d = (k >> shift) & 15u;
	uint dst = blockScan[d * numBlocks + blk] + (uint)lid - localStart[blk * 16 + d];
	/* Never true in a full pass; a single-kernel replay runs on another pass's scan results and
	 * must not write outside the Npad-element outputs. */
	if (dst >= (uint)get_global_size(0))
		return;
	keysOut[dst] = k;
	valsOut[dst] = valsBlk[gid];
}

__kernel void scan_L1_kernel(__global uint *data, int m, __global uint *blockSums)
{
	__local uint t[SCAN_BLOCK];
	int lid = get_local_id(0), base = get_group_id(0) * SCAN_BLOCK;
	int a = 2 * lid, b = 2 * lid + 1;
	t[a] = base + a < m ? data[base + a] : 0;
	t[b] = base + b < m ? data[base + b] : 0;
	int offset = 1;
	for (int d = SCAN_BLOCK / 2; d > 0; d >>= 1) {
		barrier(CLK_LOCAL_MEM_FENCE);
		if (lid < d)
			t[offset * (2 * lid + 2) - 1] += t[offset * (2 * lid + 1) - 1];
		offset <<= 1;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (lid == 0) {
		blockSums[get_group_id(0)] = t[SCAN_BLOCK - 1];
		t[SCAN_BLOCK - 1] = 0;
	}
	for (int d = 1; d < SCAN_BLOCK; d <<= 1) {
		offset >>= 1;
		barrier(CLK_LOCAL_MEM_FENCE);
		if (lid < d) {
			int ai = offset * (2 * lid + 1) - 1, bi = offset * (2 * lid + 2) - 1;
			uint x = t[ai];
			t[ai] = t[bi];
			t[bi] += x;
		}
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (base + a < m)
		data[base + a] = t[a];
	if (base + b < m)
		data[base + b] = t[b];
}

__kernel void scan_inter1_kernel(__global uint *sums, int nblocks)
{
	__local uint t[INTER_MAX];
	int lid = get_local_id(0), a = 2 * lid, b = 2 * lid + 1;
	t[a] = a < nblocks ? sums[a] : 0;
	t[b] = b < nblocks ? sums[b] : 0;
	int offset = 1;
	for (int d = INTER_MAX / 2; d > 0; d >>= 1) {
		barrier(CLK_LOCAL_MEM_FENCE);
		if (lid < d)
			t[offset * (2 * lid + 2) - 1] += t[offset * (2 * lid + 1) - 1];
		offset <<= 1;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	sums[a] = t[a];
	sums[b] = t[b];
}

__kernel void scan_inter2_kernel(__global uint *sums, int nblocks)
{
	__local uint t[INTER_MAX];
	int lid = get_local_id(0), a = 2 * lid, b = 2 * lid + 1;
	t[a] = sums[a];
	t[b] = sums[b];
	barrier(CLK_LOCAL_MEM_FENCE);
	if (lid == 0)
		t[INTER_MAX - 1] = 0;
	int offset = INTER_MAX;
	for (int d = 1; d < INTER_MAX; d <<= 1) {
		offset >>= 1;
		barrier(CLK_LOCAL_MEM_FENCE);
		if (lid < d) {
			int ai = offset * (2 * lid + 1) - 1, bi = offset * (2 * lid + 2) - 1;
			uint x = t[ai];
			t[ai] = t[bi];
			t[bi] += x;
		}
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (a < nblocks)
		sums[a] = t[a];
	if (b < nblocks)
		sums[b] = t[b];
}

__kernel void uniformAdd(__global uint *data, int m, __global const uint *sums)
{
	int i = get_global_id(0);
	if (i < m)
		data[i] += sums[i / SCAN_BLOCK];
}

__kernel void reorder_kernel(__global const uint *sortedIdx, int n,
			     __global const float4 *pos, __global const float2 *val,
			     __global float4 *sortedPos, __global float2 *sortedVal)
{
	int i = get_global_id(0);
	if (i >= n)
		return;
	uint s = sortedIdx[i];
	sortedPos[i] = pos[s];
	sortedVal[i] = val[s];
}

static float kb_weight(float d, float W, __constant float *lut, int lutN)
{
	float u = d * d / (W * W) * (float)(lutN - 1);
	int i = min((int)u, lutN - 1);
	int j = min(i + 1, lutN - 1);
	return lut[i] + (u - (float)i) * (lut[j] - lut[i]);
}

__kernel void gridding_GPU(__global const float4 *spos, __global const float2 *sval,
			   __global const uint *binStart, int G, int B, int nbd, float W,
			   __constant float *lut, int lutN, __global float2 *grid)
{
	int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
	if (x >= G || y >= G || z >= G)
		return;
	int bx0 = max((int)floor((x - W) / B), 0), bx1 = min((int)floor((x + W) / B), nbd - 1);
	int by0 = max((int)floor((y - W) / B), 0), by1 = min((int)floor((y + W) / B), nbd - 1);
	int bz0 = max((int)floor((z - W) / B), 0), bz1 = min((int)floor((z + W) / B), nbd - 1);
	float re = 0.0f, im = 0.0f;
	for (int bz = bz0; bz <= bz1; bz++)
		for (int by = by0; by <= by1; by++)
			for (int bx = bx0; bx <= bx1; bx++) {
				int b = bx + nbd * (by + nbd * bz);
				for (uint s = binStart[b]; s < binStart[b + 1]; s++) {
					float4 p = spos[s];
					float dx = fabs(p.x - (float)x), dy = fabs(p.y - (float)y), dz = fabs(p.z - (float)z);
					if (dx <= W && dy <= W && dz <= W) {
						float w = kb_weight(dx, W, lut, lutN) * kb_weight(dy, W, lut, lutN) *
							  kb_weight(dz, W, lut, lutN);
						float2 v = sval[s];
						re += w * v.x;
						im += w * v.y;
					}
				}
			}
	grid[x + G * (y + G * z)] = (float2)(re, im);
}
