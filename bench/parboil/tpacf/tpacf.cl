/* tpacf: two-point angular correlation. For points on the unit sphere,
 * counts pairs (one from set A, one from set B; i < j when A == B) into
 * angular bins. Boundaries binb[0..nb] are cosines of log-spaced angles,
 * decreasing; a pair's bin is the number of boundaries greater than its
 * dot product, so the histogram has nb + 2 slots (under/overflow).
 *
 * gen_hists: 1D NDRange global = npts rounded up to 256, local 256.
 * Each work-group accumulates into a local histogram with local atomics,
 * then adds it into hist[0 .. nb+1] with one global atomic per bin.
 * Launched once per (data, data), (data, random_r) and (random_r,
 * random_r) pair; offA/offB select the sets inside points and hist_base
 * the DD, DR or RR histogram inside hists. */
#pragma OPENCL FP_CONTRACT OFF
#define MAX_SLOTS 64

__kernel void gen_hists(__global const float4 *points, int offA, int offB, int npts,
			int same_set, __constant float *binb, int nb,
			__global uint *hists, int hist_base)
{
	__global const float4 *setA = points + offA, *setB = points + offB;
	__global uint *hist = hists + hist_base;
	__local uint lhist[MAX_SLOTS];
	int lid = get_local_id(0), i = get_global_id(0);
	for (int b = lid; b < nb + 2; b += get_local_size(0))
		lhist[b] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	if (i < npts) {
		float4 p = setA[i];
		for (int j = same_set ? i + 1 : 0; j < npts; j++) {
			float4 q = setB[j];
			float d = p.x * q.x + p.y * q.y + p.z * q.z;
			int lo = 0, hi = nb + 1;
			while (lo < hi) {
				int mid = (lo + hi) / 2;
				if (binb[mid] <= d)
					hi = mid;
				else
					lo = mid + 1;
			}
			atomic_inc(&lhist[lo]);
		}
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int b = lid; b < nb + 2; b += get_local_size(0))
		if (lhist[b])
			atomic_add(&hist[b], lhist[b]);
}
